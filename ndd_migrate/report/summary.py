"""The end-of-run summary of ``migrate``: counts, and every place that still needs a human."""

from __future__ import annotations

import difflib

from rich.console import Console
from rich.table import Table

from ndd_migrate.engine import RunSummary


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
        console.print(f"[red]error[/] {result.error.location()}: {result.error.message}", highlight=False)
    manual = summary.manual
    if not manual:
        return
    table = Table(title=f"Needs a human ({len(manual)})", title_justify="left", show_lines=False)
    table.add_column("rule", style="bold yellow", no_wrap=True)
    table.add_column("where", no_wrap=True)
    table.add_column("why")
    table.add_column("what to do")
    for diag in manual:
        table.add_row(diag.code, f"{diag.path}:{diag.line}", diag.message, diag.hint or "see `ndd-migrate explain " + diag.code + "`")
    console.print(table)
