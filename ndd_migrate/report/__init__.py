"""Rendering ``check`` results: ``concise``, ``full``, ``json``, ``sarif`` and ``github``.

:func:`render` turns the engine's :class:`~ndd_migrate.io.diagnostics.FileResult` list into the text to
print; :func:`exit_code` says how the process should end. Format modules are imported on demand so
a pre-commit run pays only for the format it prints, and rule metadata is read from the catalogue
only for codes that have findings. The formats are documented in ``docs/output-formats.md``.
:mod:`ndd_migrate.report.results` shows the diffs and writes the files a run changed.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

from ndd_migrate.io.diagnostics import FileResult
from ndd_migrate.report._common import Options, RuleInfo

#: format name → module implementing ``render(results, opts) -> str``.
FORMATS: dict[str, str] = {
    "concise": "ndd_migrate.report.concise",
    "full": "ndd_migrate.report.full",
    "json": "ndd_migrate.report.json_format",
    "sarif": "ndd_migrate.report.sarif",
    "github": "ndd_migrate.report.github",
}
DEFAULT_FORMAT = "concise"

EXIT_CLEAN = 0  #: nothing left to report
EXIT_FINDINGS = 1  #: findings remain in the code
EXIT_ERROR = 2  #: a file could not be checked (or, set by the CLI, bad configuration or usage)


def render(
    fmt: str,
    results: list[FileResult],
    *,
    statistics: bool = False,
    root: Path | None = None,
    unsafe_fixes: bool = False,
    rule_lookup: Callable[[str], object | None] | None = None,
    show_fixes: bool = False,
) -> str:
    """The report for ``results`` in format ``fmt``, ending with a newline (or empty).

    ``root`` (default: the current directory) is what paths are shown relative to and the SARIF
    ``%SRCROOT%``. ``unsafe_fixes`` says whether ``--unsafe-fixes`` was given, which decides the
    ``[*]`` marks and the fix hints. ``rule_lookup`` replaces the rule catalogue (for tests and for
    callers that already hold the rules); by default :func:`ndd_migrate.engine.catalog.get_rule` is used.
    ``show_fixes``: what this run fixed, enumerated first (:mod:`ndd_migrate.report.fixes`).
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown output format {fmt!r} (choose from {', '.join(FORMATS)})")
    root = Path.cwd() if root is None else Path(root)
    opts = Options(root=root, rules=RuleInfo(rule_lookup), unsafe_fixes=unsafe_fixes)
    results = list(results)
    if show_fixes and fmt in ("concise", "full"):  # ruff's: the enumeration above the report
        from ndd_migrate.report import fixes

        fixed = fixes.render(results, opts)
        return fixed + render(
            fmt, results, statistics=statistics, root=root, unsafe_fixes=unsafe_fixes, rule_lookup=rule_lookup
        )
    if statistics:
        from ndd_migrate.report import statistics as stats

        return stats.render_json(results, opts) if fmt == "json" else stats.render_text(results, opts)
    return importlib.import_module(FORMATS[fmt]).render(results, opts)


def write_report(
    results: list[FileResult], fmt: str, stream, *, statistics: bool, unsafe_fixes: bool, show_fixes: bool
):
    """:func:`render`'s report written to ``stream``, coloured (``concise`` and ``full``) where the
    stream is a terminal that takes colour (:mod:`ndd_migrate.report.colour`)."""
    text = render(fmt, results, statistics=statistics, unsafe_fixes=unsafe_fixes, show_fixes=show_fixes)
    if not text:
        return
    from ndd_migrate.report.colour import colour_report, use_colour

    if fmt in ("concise", "full") and not statistics and use_colour(stream):
        text = colour_report(text)
    stream.write(text if text.endswith("\n") else text + "\n")
    stream.flush()


def exit_code(results: list[FileResult]) -> int:
    """``2`` if any file could not be checked (we cannot call it clean), else ``1`` if any finding
    remains unfixed, else ``0``. Fixed findings do not count: ``check --fix`` that fixed everything
    succeeds, as with ruff."""
    if any(r.error is not None for r in results):
        return EXIT_ERROR
    if any(not d.fixed for r in results for d in r.diagnostics):
        return EXIT_FINDINGS
    return EXIT_CLEAN


__all__ = [
    "DEFAULT_FORMAT",
    "EXIT_CLEAN",
    "EXIT_ERROR",
    "EXIT_FINDINGS",
    "FORMATS",
    "exit_code",
    "render",
    "write_report",
]
