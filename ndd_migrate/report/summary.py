"""The end-of-run summary of ``migrate``: counts, and every place that still needs a human."""

from __future__ import annotations

import difflib

from rich.console import Console

from ndd_migrate.runner import RunSummary


def unified_diff(path: str, old: str, new: str) -> str:
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), fromfile=f"a/{path}", tofile=f"b/{path}"
        )
    )


def print_summary(summary: RunSummary, console: Console, *, wrote: bool) -> None:
    results = summary.results
    scanned = len(results)
    changed = len(summary.changed)
    failed = len(summary.failed)
    verb = "changed" if wrote else "would change"
    console.print(
        f"[bold]ndd-migrate[/]: {scanned} file{'s' * (scanned != 1)} scanned, {changed} {verb}, "
        f"{scanned - changed - failed} unchanged, {failed} failed"
    )
    for result in summary.failed:
        console.print(f"[red]error[/] {result.error.location()}: {result.error.message}", soft_wrap=True)
    manual = summary.manual
    if not manual:
        return
    console.print(f"[bold]Needs a human ({len(manual)}):[/]")
    for diag in manual:
        advice = diag.hint or f"see `ndd-migrate explain {diag.code}`"
        line = f"cell {diag.cell}:{diag.line}" if diag.cell is not None else diag.line
        console.print(
            f"  [bold yellow]{diag.code}[/] {diag.path}:{line}: {diag.message}\n      → {advice}",
            soft_wrap=True,
        )
