"""``full``: each finding with its source line, a caret under the span, the hint and the rule summary.

For reading in a terminal or a CI log without opening the file. The source comes from
``FileResult.old_source`` (the text the rules saw); when the engine did not keep it and the file was
not rewritten, the file is read again. Without either, the finding is shown without the snippet
rather than failing the whole report.
"""

from __future__ import annotations

from pathlib import Path

from ndd_migrate.io.diagnostics import Diagnostic, FileResult
from ndd_migrate.report._common import Options, rule_url, sorted_diagnostics, sorted_results
from ndd_migrate.report.concise import diagnostic_line, error_line, summary

TAB_SIZE = 4


def _source_lines(result: FileResult) -> list[str] | None:
    text = result.old_source
    if text is None and not result.changed:
        try:
            text = Path(result.path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
    return text.splitlines() if text is not None else None


def _cell_lines(result: FileResult, cell: int) -> list[str] | None:
    """A notebook cell's source lines (a notebook's findings count lines within their cell)."""
    import json

    try:
        source = json.loads(result.old_source or "")["cells"][cell - 1]["source"]
    except (ValueError, LookupError, TypeError):
        return None
    return ("".join(source) if isinstance(source, list) else source).splitlines()


def snippet(diagnostic: Diagnostic, lines: list[str] | None) -> list[str]:
    """The source line with a caret under the reported span (to the line's end if it spans lines)."""
    if not lines or not 1 <= diagnostic.line <= len(lines):
        return []
    text = lines[diagnostic.line - 1]
    start = len(text[: diagnostic.column].expandtabs(TAB_SIZE))
    if diagnostic.end_line == diagnostic.line and diagnostic.end_column is not None:
        end = len(text[: diagnostic.end_column].expandtabs(TAB_SIZE))
    elif diagnostic.end_line is not None and diagnostic.end_line > diagnostic.line:
        end = len(text.rstrip().expandtabs(TAB_SIZE))
    else:
        end = start + 1
    gutter = " " * len(str(diagnostic.line))
    return [
        f"{gutter} |",
        f"{diagnostic.line} | {text.expandtabs(TAB_SIZE)}".rstrip(),
        f"{gutter} | {' ' * start}{'^' * max(1, end - start)} {diagnostic.code}",
        f"{gutter} |",
    ]


def notes(diagnostic: Diagnostic, opts: Options) -> list[str]:
    out = []
    if diagnostic.hint:
        out.append(f"= help: {diagnostic.hint}")
    rule = opts.rules.get(diagnostic.code)
    if rule is not None:
        out.append(f"= {diagnostic.code} ({rule.name}): {rule.summary}")
        out.append(f"= docs: {rule_url(diagnostic.code, rule.name)}")
    gutter = " " * len(str(diagnostic.line))
    return [f"{gutter} {line}".replace("\n", f"\n{gutter}   ") for line in out]


def render(results: list[FileResult], opts: Options) -> str:
    blocks: list[str] = []
    for result in sorted_results(results, opts.root):
        if result.error is not None:
            blocks.append(error_line(result.error, opts))
        todo = [d for d in sorted_diagnostics(result.diagnostics) if not d.fixed]
        lines = _source_lines(result) if todo else None
        for diagnostic in todo:
            shown = _cell_lines(result, diagnostic.cell) if diagnostic.cell is not None else lines
            block = [diagnostic_line(diagnostic, opts), *snippet(diagnostic, shown), *notes(diagnostic, opts)]
            blocks.append("\n".join(block))
    body = "\n\n".join(blocks)
    return (body + "\n\n" if body else "") + "\n".join(summary(results, opts)) + "\n"
