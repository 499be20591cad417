"""One file's bytes through :func:`~ndd_migrate.engine.transform.transform`: decoded as an editor
would, its line breaks and indentation put back after the rewrite, a notebook's cells joined into one
module and split again. Never raises: every failure is the file's :class:`FileError`.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

from ndd_migrate.engine.stack import without_cycle_collection
from ndd_migrate.engine.transform import transform
from ndd_migrate.io import files
from ndd_migrate.io.diagnostics import FileError, FileResult
from ndd_migrate.io.indentation import restore_indentation, split_indentation
from ndd_migrate.io.newlines import restore_newlines, split_newlines
from ndd_migrate.io.policy import Policy


@without_cycle_collection
def process_source(path: str, raw: bytes, policy: Policy) -> FileResult:
    """Run the rules over one file's bytes (a ``.py`` file or a notebook) as read from ``path``;
    never raises."""
    try:
        source = files.decode_source(raw, path)
    except files.SourceError as exc:
        return FileResult(path=path, error=exc.to_file_error())
    if path.endswith(".ipynb"):
        return _process_notebook(path, source.text, policy)
    # The rules see LF only; each line's own break is put back after (restore_newlines):
    # libcst takes the first line's break for the lines it adds, and drops a CR-only file's last.
    text, newlines = split_newlines(source.text)
    # Likewise indentation libcst cannot read (split_indentation): spaces for the rules.
    indented = split_indentation(text)
    result = transform(indented[0] if indented else text, path, policy)
    if indented is not None:
        _restore_indentation(result, path, text, *indented)
    if text is not source.text:
        result.old_source = source.text
        if result.new_source is not None:
            result.new_source = restore_newlines(text, result.new_source, newlines)
            if result.new_source == source.text:
                result.changed, result.new_source = False, None
    return result


def _restore_indentation(result: FileResult, path: str, text: str, spaced: str, indentation) -> None:
    """Give ``result``'s rewrite of ``spaced`` the file's own indentation back, as ``text`` has it;
    a rewrite that cannot keep it (it would not compile) is an error, the file left unchanged."""
    result.old_source = text
    if result.new_source is None:
        return
    restored = restore_indentation(spaced, result.new_source, indentation)
    try:
        with warnings.catch_warnings():  # the code's own SyntaxWarnings are not ours to print
            warnings.simplefilter("ignore", SyntaxWarning)
            ok = restored is not None and compile(restored, path, "exec", dont_inherit=True) is not None
    except (SyntaxError, ValueError):
        ok = False
    if not ok:
        result.changed, result.new_source = False, None
        result.error = FileError(
            path,
            "the rewrite cannot keep this file's indentation (tabs mixed with spaces, or form"
            " feeds, from this line on): file left unchanged; indent it with spaces to migrate it",
            indentation.culprit,
        )
    elif restored == text:
        result.changed, result.new_source = False, None
    else:
        result.new_source = restored


def _process_notebook(path: str, text: str, policy: Policy) -> FileResult:
    from ndd_migrate.io import notebooks

    try:
        module, layout = notebooks.notebook_to_module(text)
    except notebooks.NotebookError as exc:
        return FileResult(path=path, error=FileError(path, exc.message, exc.line))
    result = transform(module, path, policy)
    result.old_source = text
    in_cells = lambda d: (d.cell, d.line, d.column, d.code)  # noqa: E731
    result.diagnostics = sorted((_cell_diagnostic(d, layout) for d in result.diagnostics), key=in_cells)
    if result.findings is not None:
        result.findings = result.findings.remapped(lambda d: _cell_diagnostic(d, layout), in_cells)
    if result.error and result.error.line:
        cell, line = notebooks.cell_position(layout, result.error.line)
        result.error = FileError(path, f"cell {cell}: {result.error.message}", line)
    if result.changed:
        try:
            result.new_source = notebooks.module_to_notebook(result.new_source, layout)
        except notebooks.NotebookError as exc:
            result.changed, result.new_source = False, None
            result.error = FileError(path, f"could not rebuild the notebook, left unchanged: {exc}")
    return result


def _cell_diagnostic(diag, layout):
    from ndd_migrate.io import notebooks

    cell, line = notebooks.cell_position(layout, diag.line)
    end_line = None
    if diag.end_line and diag.end_line <= layout.line_count:
        end_cell, end_line = notebooks.cell_position(layout, diag.end_line)
        end_line = end_line if end_cell == cell else None  # a span over cells: to the line's end
    return replace(diag, cell=cell, line=line, end_line=end_line)
