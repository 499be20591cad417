"""The end-of-run summary of ``migrate``: counts, and every place that still needs a human."""

from __future__ import annotations

import os
import re

from rich.console import Console
from rich.markup import escape

from ndd_migrate.app.runner import RunSummary
from ndd_migrate.report import line_diff
from ndd_migrate.report._common import plural, printable
from ndd_migrate.report.migrate_output import draws_from_rng, in_place, other_order

_AFTER_NEWLINE = re.compile(rb"(?<=\n)")


def unified_diff(path: str, old: bytes, new: bytes) -> bytes:
    """The unified diff of two files' bytes, for ``patch -p1`` and ``git apply``.

    Bytes, not text, so that tabs, CRs and the encoding reach the output as they are in the files,
    and lines split only at ``\\n``, where ``patch`` splits them (``str.splitlines`` also splits at
    lone CRs, form feeds and Unicode line separators). A last line without a newline gets the
    ``\\ No newline at end of file`` marker, without which ``patch`` would glue it to the next line
    of the diff.
    """
    out = []
    # the name's own bytes, as `patch` will look for them
    lines = line_diff.unified(_lines(old), _lines(new), os.fsencode(f"a/{path}"), os.fsencode(f"b/{path}"))
    for line in lines:
        out.append(line)
        if not line.endswith(b"\n"):
            out.append(b"\n\\ No newline at end of file\n")
    return b"".join(out)


def _lines(data: bytes) -> list[bytes]:
    return [line for line in _AFTER_NEWLINE.split(data) if line]


#: Said once per run in which the migration made random operators draw from an ``ndd.random.RNG``:
#: what changes by design, and how the rest is proven.
RANDOM_DRAWS = (
    "random operators now draw from `ndd.random.RNG`: the same seed gives other values than "
    "pipeline mode did (by design); the samples and their order are kept, except where a reader is "
    "listed here. `ndd-migrate verify ORIGINAL MIGRATED` proves the rest equal."
)


def print_summary(summary: RunSummary, console: Console, *, wrote: bool, quiet: bool = False) -> None:
    """The counts line; what changes in behaviour (random draws, a reader's sample order); the
    support module written; the files that failed; every place left for a human. Paths, messages,
    hints and codes are user or rule text, escaped so rich does not read ``.tensors[i]`` or
    ``x[/]b.py`` as markup. ``quiet`` leaves out the counts and the support module, never what
    changes in behaviour."""
    results = summary.results
    scanned = len(results)
    changed = len(summary.changed)
    failed = len(summary.failed)
    verb = "changed" if wrote else "would change"
    if not quiet:
        console.print(
            f"[bold]ndd-migrate[/]: {plural(scanned, 'file')} scanned, {changed} {verb}, "
            f"{scanned - changed - failed} unchanged, {failed} failed",
            soft_wrap=True,
        )
    _print_behaviour(summary, console)
    if not quiet:
        _print_support(summary, console, wrote)
    for result in summary.failed:  # as `check` writes a file's error: `path[:line]: error: message`
        console.print(
            f"{escape(printable(result.error.location()))}: [red]error[/]: {escape(result.error.message)}",
            soft_wrap=True,
        )
    manual = summary.manual
    if not manual:
        return
    console.print(f"[bold]Needs a human ({len(manual)}{'' if wrote else _already_marked(summary)}):[/]")
    for diag in manual:
        advice = diag.hint or f"see `ndd-migrate explain {diag.code}`"
        line = f"cell {diag.cell}:{diag.line}" if diag.cell is not None else diag.line
        console.print(
            f"  [bold yellow]{escape(diag.code)}[/] {escape(f'{printable(diag.path)}:{line}: {diag.message}')}"
            f"\n      → {escape(advice)}",
            soft_wrap=True,
        )


def _already_marked(summary: RunSummary) -> str:
    """For ``--check``/``--diff``: how many of the places are in files that would not change (their
    TODOs are there already), so CI can tell "would change" from "only TODOs remain"."""
    there = len(in_place(summary))
    if not there:
        return ""
    if there == len(summary.manual):
        return "; all marked with TODOs already, in files that would not change"
    return f"; {there} marked with TODOs already, in files that would not change"


def _print_behaviour(summary: RunSummary, console: Console) -> None:
    """What the migrated programs do differently, first: the random draws (once per run) and each
    reader whose sample order changes."""
    readers = other_order(summary)
    draws = draws_from_rng(summary)
    if not (draws or readers):
        return
    console.print("[bold]What changes in behaviour:[/]")
    if draws:
        console.print(f"  random draws: {escape(RANDOM_DRAWS)}", soft_wrap=True)
    for diag in readers:
        where = f"{printable(diag.path)}:{diag.line}"
        console.print(f"  sample order: {escape(where)}: {escape(diag.message)}", soft_wrap=True)


def _print_support(summary: RunSummary, console: Console, wrote: bool) -> None:
    """One line per support module the run writes, updates or keeps."""
    for support in summary.support:
        if support.refused:
            continue  # said at each module it kept unchanged
        users = plural(len(support.needed_by), "migrated module")
        if not support.changes:
            what = "up to date" if support.new is not None else "kept as edited"
            console.print(f"support module {escape(support.path)}: {what} (imported by {users})", soft_wrap=True)
            continue
        verb = (
            ("wrote" if wrote else "would write") if support.old is None else ("updated" if wrote else "would update")
        )
        console.print(f"{verb} support module {escape(support.path)} (imported by {users})", soft_wrap=True)


def print_not_looked_at(paths, targets, results, console) -> None:
    """A warning, as ruff gives one, where a run would otherwise pass in silence what it did not
    look at: no Python file under the paths given, a file named explicitly but marked @generated."""
    if not targets:
        console.print("warning: No Python files found under the given path(s)", highlight=False)
    named = {os.path.normpath(os.fspath(p)) for p in paths}
    for result in results:
        if result.generated and os.path.normpath(result.path) in named:
            console.print(
                f"warning: {escape(result.path)}: marked @generated, not looked at (`--include-generated` includes it)",
                highlight=False,
                soft_wrap=True,
            )
