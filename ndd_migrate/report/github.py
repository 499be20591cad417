"""``github``: GitHub Actions workflow commands, so findings appear as annotations on the pull request.

Format (one line each)::

    ::error title=ndd-migrate (NDD103),file=src/a.py,line=3,col=5,endLine=3,endColumn=17::src/a.py:3:5: NDD103 message

The message repeats the location so the raw job log stays readable, as ruff does. Values are escaped
as the runner's parser expects: ``%``, CR and LF everywhere, and ``:`` and ``,`` in properties,
where they would otherwise end the value. Only findings still in the code are annotated.
"""

from __future__ import annotations

from ndd_migrate.io.diagnostics import Diagnostic, FileError, FileResult
from ndd_migrate.report._common import (
    Options,
    display_path,
    posix_path,
    sorted_diagnostics,
    sorted_results,
)


def escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def command(properties: dict[str, object], message: str) -> str:
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    return f"::error {props}::{escape_data(message)}"


def diagnostic_command(diagnostic: Diagnostic, opts: Options) -> str:
    path = posix_path(display_path(diagnostic.path, opts.root))
    props: dict[str, object] = {
        "title": f"ndd-migrate ({diagnostic.code})",
        "file": path,
        "line": diagnostic.line,
        "col": diagnostic.column + 1,
    }
    if diagnostic.cell is not None:  # lines count within the cell: GitHub would point into the JSON
        del props["line"], props["col"]
    elif diagnostic.end_line is not None:
        props["endLine"] = diagnostic.end_line
        if diagnostic.end_column is not None:
            props["endColumn"] = diagnostic.end_column + 1
    message = f"{path}:{diagnostic.position()}: {diagnostic.code} {diagnostic.message}"
    if diagnostic.hint:
        message += f"\nhint: {diagnostic.hint}"
    return command(props, message)


def error_command(error: FileError, opts: Options) -> str:
    path = posix_path(display_path(error.path, opts.root))
    props: dict[str, object] = {"title": "ndd-migrate (file not checked)", "file": path}
    if error.line:
        props["line"] = error.line
    return command(props, f"{path}: {error.message}")


def render(results: list[FileResult], opts: Options) -> str:
    lines: list[str] = []
    for result in sorted_results(results, opts.root):
        if result.error is not None:
            lines.append(error_command(result.error, opts))
        lines += [diagnostic_command(d, opts) for d in sorted_diagnostics(result.diagnostics) if not d.fixed]
    return "".join(line + "\n" for line in lines)
