"""``migrate``'s outcome for CI and scripts: its exit status, and its ``--output-format json``
document (the reference is docs/output-formats.md, "migrate").

CI asks two questions of ``migrate --check``: would a file change (the migration is not done, or
was not committed), and is there work left for a human. The first fails the check, as ``ruff
format --check`` fails on a file it would reformat; the second fails it only when asked
(``--exit-non-zero-on-todo``), since the TODOs of a committed migration stay in the files until
someone does the work, and a check that always fails on them says nothing new.
"""

from __future__ import annotations

import json
from pathlib import Path

from ndd_migrate.app.runner import RunSummary
from ndd_migrate.io.diagnostics import Diagnostic
from ndd_migrate.report._common import Options, RuleInfo, display_path, posix_path, sorted_diagnostics
from ndd_migrate.report.json_format import diagnostic_object

#: The finding at a reader whose sample order the migration could not keep (reader_seed.OTHER_ORDER).
OTHER_ORDER = "sample order is not the pipeline's"


def draws_from_rng(summary: RunSummary) -> bool:
    """Did the migration create an ``ndd.random.RNG`` in a file (random operators draw from it)?"""
    return any(
        "random.RNG(" in (result.new_source or "") and "random.RNG(" not in (result.old_source or "")
        for result in summary.changed
    )


def other_order(summary: RunSummary) -> list[Diagnostic]:
    """The readers of the changed files whose sample order is not the pipeline's."""
    return [d for r in summary.changed for d in r.diagnostics if OTHER_ORDER in d.message]


def would_change(summary: RunSummary) -> bool:
    """Does (or did) the run change a file: a module, or a support module it writes?"""
    return bool(summary.changed) or any(s.changes and not s.refused for s in summary.support)


def in_place(summary: RunSummary) -> list[Diagnostic]:
    """The places that need a human in files the run leaves as they are: their TODOs are there."""
    changed = {id(result) for result in summary.changed}
    return [d for r in summary.results if id(r) not in changed and not r.error for d in r.diagnostics if d.needs_human]


def exit_status(summary: RunSummary, *, dry_run: bool, todo_fails: bool) -> int:
    """2: a file failed. Writing: 1 when a place needs a human (a TODO was written or is there).
    ``--check``/``--diff`` (``dry_run``): 1 when a file would change; places that need a human in
    files that would not (the TODOs are there already) make it 1 only with ``todo_fails``."""
    if summary.failed:
        return 2
    if not dry_run:
        return 1 if summary.manual else 0
    return 1 if would_change(summary) or (todo_fails and summary.manual) else 0


def render_json(summary: RunSummary, *, wrote: bool, root: Path) -> str:
    """The run as one JSON object: what changed (or would), the support modules, what changes in
    behaviour (random draws, readers' sample order), the files that failed, and every place that
    needs a human, each a finding as ``check --output-format json``
    writes it, with ``file_changes``: whether the run changes (or would change) its file (when it
    does not, the TODO is already there)."""
    opts = Options(root=root, rules=RuleInfo())
    name = lambda path: posix_path(display_path(path, root))  # noqa: E731
    changed = {id(result) for result in summary.changed}
    needs_human = []
    for result in summary.results:
        for diagnostic in sorted_diagnostics(d for d in result.diagnostics if d.needs_human):
            item = diagnostic_object(diagnostic, opts)
            item["file_changes"] = id(result) in changed
            needs_human.append(item)
    document = {
        "wrote": wrote,
        "would_change": would_change(summary),
        "counts": {
            "scanned": len(summary.results),
            "changed": len(summary.changed),
            "unchanged": len(summary.results) - len(summary.changed) - len(summary.failed),
            "failed": len(summary.failed),
            "needs_human": len(needs_human),
        },
        "changed": [name(result.path) for result in summary.changed],
        "support_modules": [{"filename": name(s.path), "action": _action(s)} for s in summary.support if not s.refused],
        "behaviour": {
            "random_draws": draws_from_rng(summary),
            "sample_order": [
                {"filename": name(d.path), "row": d.line, "message": d.message} for d in other_order(summary)
            ],
        },
        "errors": [
            {"filename": name(r.error.path), "row": r.error.line, "message": r.error.message} for r in summary.failed
        ],
        "needs_human": needs_human,
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _action(support) -> str:
    if not support.changes:
        return "keep"
    return "write" if support.old is None else "update"
