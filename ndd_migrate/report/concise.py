"""``concise``: one line per finding, ruff-style, then a summary. The default text format.

``[*]`` marks a finding that ``check --fix`` would fix; ``[unsafe]`` one whose fix needs
``--unsafe-fixes`` (or ``migrate``); no marker, one that needs a human.
"""

from __future__ import annotations

from collections.abc import Iterable

from ndd_migrate.io.diagnostics import Diagnostic, FileError, FileResult, FixSafety
from ndd_migrate.report._common import (
    Options,
    display_path,
    file_errors,
    indent_continuation,
    is_fixable,
    plural,
    remaining,
    sorted_diagnostics,
    sorted_results,
)


def fix_marker(diagnostic: Diagnostic, unsafe_fixes: bool) -> str:
    if is_fixable(diagnostic, unsafe_fixes):
        return "[*] "
    if diagnostic.fix is FixSafety.UNSAFE and not diagnostic.fixed:
        return "[unsafe] "
    return ""


def diagnostic_line(diagnostic: Diagnostic, opts: Options) -> str:
    path = display_path(diagnostic.path, opts.root)
    marker = fix_marker(diagnostic, opts.unsafe_fixes)
    message = indent_continuation(diagnostic.message)
    return f"{path}:{diagnostic.position()}: {diagnostic.code} {marker}{message}"


def error_line(error: FileError, opts: Options) -> str:
    path = display_path(error.path, opts.root)
    where = f"{path}:{error.line}" if error.line else path
    return f"{where}: error: {indent_continuation(error.message)}"


def summary(results: Iterable[FileResult], opts: Options) -> list[str]:
    """The closing lines: how many findings, how many fixed, and which flag would fix more.

    Worded like ruff's so users of both tools read it at a glance.
    """
    results = list(results)
    left = list(remaining(results, opts.root))
    fixed = sum(d.fixed for r in results for d in r.diagnostics)
    errors = file_errors(results, opts.root)
    lines: list[str] = []
    if fixed:
        lines.append(f"Found {plural(len(left) + fixed, 'error')} ({fixed} fixed, {len(left)} remaining).")
    elif left:
        lines.append(f"Found {plural(len(left), 'error')}.")
    elif not errors:
        lines.append("All checks passed!")
    fixable = sum(is_fixable(d, opts.unsafe_fixes) for d in left)
    hidden = 0 if opts.unsafe_fixes else sum(d.fix is FixSafety.UNSAFE for d in left)
    hidden_note = (
        f"{plural(hidden, 'hidden fix', 'hidden fixes')} can be enabled with the `--unsafe-fixes` option"
        if hidden
        else ""
    )
    if fixable:
        extra = f" ({hidden_note})" if hidden else ""
        lines.append(f"[*] {fixable} fixable with the `--fix` option{extra}.")
    elif hidden:
        lines.append(f"No fixes available ({hidden_note}).")
    if errors:
        lines.append(f"{plural(len(errors), 'file')} could not be checked.")
    return lines


def render(results: list[FileResult], opts: Options) -> str:
    lines: list[str] = []
    for result in sorted_results(results, opts.root):
        if result.error is not None:
            lines.append(error_line(result.error, opts))
        for diagnostic in sorted_diagnostics(result.diagnostics):
            if not diagnostic.fixed:
                lines.append(diagnostic_line(diagnostic, opts))
    body = "\n".join(lines)
    return (body + "\n\n" if body else "") + "\n".join(summary(results, opts)) + "\n"
