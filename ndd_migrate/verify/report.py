"""The verify report: one :class:`PairReport` per pipeline function, as a rich table or JSON.

Verdicts and exit codes (the CLI's contract):

* ``equal`` (0): every output, every sample identical, no error-level finding;
* ``equal within tolerance`` (0): as above, but some samples only within the opt-in tolerance;
* ``different`` (1): an output differs, or the random calls or reader seeds do not correspond;
* ``error`` (2): a side could not run (the error says which side, what, and where in user code).

Several pairs: any ``error`` gives 2, else any ``different`` gives 1.
"""

from __future__ import annotations

import io
import json
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - compare needs numpy, the report itself does not
    from ndd_migrate.verify.compare import OutputComparison

JSON_VERSION = 1

EQUAL = "equal"
EQUAL_TOL = "equal within tolerance"
DIFFERENT = "different"
ERROR = "error"

_EXIT = {EQUAL: 0, EQUAL_TOL: 0, DIFFERENT: 1, ERROR: 2}


@dataclass
class Finding:
    severity: str  # error | warning | info
    message: str

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class ErrorInfo:
    kind: str
    message: str
    side: str | None = None  # original | migrated | None (setup)
    location: str | None = None
    phase: str | None = None
    traceback: str | None = None
    stderr_tail: str | None = None
    ops: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)

    def headline(self) -> str:
        side = f"{self.side} side: " if self.side else ""
        where = f" at {self.location}" if self.location else ""
        return f"{side}{self.message}{where}"


@dataclass
class PairReport:
    name: str
    original: str
    migrated: str
    verdict: str = ERROR
    device: str = ""
    batch_size: int | None = None
    iterations: int = 0
    epochs: int | None = None
    iterations_per_epoch: int | None = None
    #: the step at which each side raised StopIteration, None where it did not (:mod:`.ending`)
    ended: dict = field(default_factory=dict)
    random: dict = field(default_factory=dict)
    readers: dict = field(default_factory=dict)
    outputs: list[OutputComparison] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    timing: dict | None = None
    capture: dict | None = None
    #: the migrated generator saved mid-run and restored (:mod:`.checkpointing`)
    checkpoint: dict | None = None
    error: ErrorInfo | None = None
    notes: list[str] = field(default_factory=list)
    dali_version: str | None = None
    #: uses of the migrated function outside its body (call sites, consumers): not run
    not_exercised: list[str] = field(default_factory=list)
    #: the inputs ``--synthetic`` generated (:class:`~ndd_migrate.verify.synthetic.Generated`)
    synthetic: list[dict] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return _EXIT[self.verdict]

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "original": self.original,
            "migrated": self.migrated,
            "verdict": self.verdict,
            "exit_code": self.exit_code,
            "device": self.device,
            "batch_size": self.batch_size,
            "iterations": self.iterations,
            "epochs": self.epochs,
            "iterations_per_epoch": self.iterations_per_epoch,
            "ended": self.ended,
            "random": self.random,
            "readers": self.readers,
            "outputs": [o.to_dict() for o in self.outputs],
            "findings": [f.to_dict() for f in self.findings],
            "timing": self.timing,
            "capture": self.capture,
            "checkpoint": self.checkpoint,
            "error": self.error.to_dict() if self.error else None,
            "notes": self.notes,
            "dali_version": self.dali_version,
            "not_exercised": self.not_exercised,
            "synthetic": self.synthetic,
        }


@dataclass
class VerifyReport:
    pairs: list[PairReport] = field(default_factory=list)
    error: ErrorInfo | None = None  # a problem before any pair could be formed

    @property
    def exit_code(self) -> int:
        if self.error is not None:
            return 2
        return max((p.exit_code for p in self.pairs), default=2)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    @property
    def verdict(self) -> str:
        if self.error is not None or not self.pairs:
            return ERROR
        order = [ERROR, DIFFERENT, EQUAL_TOL, EQUAL]
        return min((p.verdict for p in self.pairs), key=order.index)

    def pair(self, name: str) -> PairReport:
        for p in self.pairs:
            if p.name == name:
                return p
        raise KeyError(name)

    def to_dict(self) -> dict:
        return {
            "version": JSON_VERSION,
            "verdict": self.verdict,
            "exit_code": self.exit_code,
            "error": self.error.to_dict() if self.error else None,
            "pairs": [p.to_dict() for p in self.pairs],
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, default=str)

    def render(self, console: Any = None) -> str:
        """Print the report with rich (tables, colours when the console supports them), and return
        it as plain text (:meth:`to_text`), so that ``assert report.ok, report.render()`` shows it."""
        from rich.console import Console

        console = console or Console(emoji=False)
        render(self, console)
        return self.to_text()

    def to_text(self, width: int = 110) -> str:
        """The rich rendering as plain text (for exception messages and logs)."""
        from rich.console import Console

        buf = io.StringIO()
        console = Console(file=buf, width=width, color_system=None, force_terminal=False, emoji=False)
        render(self, console)
        return buf.getvalue().rstrip() + "\n"

    def __str__(self) -> str:
        return self.to_text()


# --------------------------------------------------------------------------------------------
# Rendering

_STYLE = {EQUAL: "bold green", EQUAL_TOL: "bold yellow", DIFFERENT: "bold red", ERROR: "bold red"}
_SEVERITY = {"error": "red", "warning": "yellow", "info": "dim"}


def _fmt_err(x: float) -> str:
    if x == 0:
        return "0"
    return f"{x:.3g}"


def _render_error(console, error: ErrorInfo) -> None:
    from rich.markup import escape

    console.print(f"  [red]could not run[/red] ({error.kind}): {escape(error.headline())}", soft_wrap=True)
    if error.phase:
        console.print(f"  phase: {escape(error.phase)}")
    if error.traceback:
        lines = error.traceback.strip().splitlines()
        tail = lines[-14:]
        if len(lines) > len(tail):
            tail = ["..."] + tail
        console.print("  " + escape("\n  ".join(tail)), style="dim")
    if error.stderr_tail and error.kind in ("crash", "timeout"):
        tail = error.stderr_tail.strip().splitlines()[-8:]
        if tail:
            console.print("  stderr: " + escape("\n          ".join(tail)), style="dim")


def _render_pair(console, pair: PairReport) -> None:
    from rich.markup import escape

    console.print(
        f"[{_STYLE[pair.verdict]}]{pair.verdict.upper()}[/] [bold]{escape(pair.name)}[/]  "
        f"{escape(pair.original)}  ⟷  {escape(pair.migrated)}"
    )
    facts = _facts(pair)
    if facts:
        console.print("  " + escape(" · ".join(facts)))
    if pair.random:
        _render_random(console, pair.random)
    if pair.error:
        _render_error(console, pair.error)
    if pair.outputs:
        _render_outputs(console, pair.outputs)
    _render_findings(console, pair)
    if pair.capture:
        _render_capture(console, pair.capture)
    if pair.checkpoint:
        _render_checkpoint(console, pair.checkpoint)
    if pair.timing:
        _render_timing(console, pair.timing)


def _facts(pair: PairReport) -> list[str]:
    """The run in one line: device, steps, epochs, where a side ended, DALI's version."""
    from ndd_migrate.verify.ending import end_fact

    facts = []
    if pair.device:
        facts.append(pair.device)
    if pair.iterations:
        batch = f" × batch {pair.batch_size}" if pair.batch_size else ""
        facts.append(f"{pair.iterations} step(s){batch}")
    if pair.epochs:
        facts.append(_epochs_fact(pair))
    ended = end_fact(pair.ended.get("original"), pair.ended.get("migrated"))
    if ended:
        facts.append(ended)
    if pair.dali_version:
        facts.append(f"DALI {pair.dali_version}")
    return facts


def _epochs_fact(pair: PairReport) -> str:
    per = pair.iterations_per_epoch
    if per and pair.iterations == per * pair.epochs:
        return f"epochs: {pair.epochs} complete, {per} step{'s' * (per != 1)}/epoch"
    return f"epochs touched: {pair.epochs}" + (f", {per} step{'s' * (per != 1)}/epoch" if per else "")


def _render_random(console, r: dict) -> None:
    """The random ops of the original, and how the migrated side's states were aligned and
    seeded."""
    from rich.markup import escape

    if r.get("status") == "none":
        console.print("  random ops: none")
        return
    names = " → ".join(r.get("original") or []) or "none"
    console.print(f"  random ops ({escape(r.get('status', ''))}): {escape(names)}")
    if r.get("deterministic") is not None:
        seed = r.get("pipeline_seed")
        console.print(
            "  seeding: original "
            + (f"seed={seed}" if seed is not None else "unseeded")
            + "; a second migrated run drew "
            + ("the same states" if r["deterministic"] else "DIFFERENT states"),
            soft_wrap=True,
        )


def _render_outputs(console, outputs: list[OutputComparison]) -> None:
    """One table row per output, then the first failure of each output that has one."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(show_edge=False, pad_edge=False, box=None, padding=(0, 1))
    for col in (
        "out",
        "dtype",
        "shape",
        "layout",
        "samples",
        "result",
        "max abs",
        "max rel",
        "differing",
    ):
        table.add_column(
            col,
            justify="right" if col in ("out", "samples", "max abs", "max rel", "differing") else "left",
        )
    for o in outputs:
        table.add_row(
            str(o.index),
            escape(_both(o.dtype)),
            escape(_both(o.shape)),
            escape(_both(tuple(x or "-" for x in o.layout))),
            f"{o.samples_equal + o.samples_within_tolerance}/{o.samples_compared}",
            _output_result(o),
            _fmt_err(o.max_abs_error),
            _fmt_err(o.max_rel_error),
            f"{o.elements_differing}/{o.elements_compared}",
        )
    console.print(table)
    for o in outputs:
        if o.first_failure is not None:
            _render_first_failure(console, o.index, o.first_failure)


def _both(x) -> str:
    """A cell for a (original, migrated) pair of values: one value when they agree."""
    return x[0] if x[0] == x[1] else f"{x[0]} ≠ {x[1]}"


def _output_result(o: OutputComparison) -> str:
    """The "result" cell of an output's row."""
    if not o.ok:
        return (
            f"[red]{o.first_failure.reason} {'differ' if o.first_failure.reason == 'values' else 'differs'}[/]"
            if o.first_failure.reason not in ("missing output", "batch size")
            else f"[red]{o.first_failure.reason}[/]"
        )
    if o.samples_within_tolerance:
        return "[yellow]within tolerance[/]"
    return "[green]equal[/]"


def _render_first_failure(console, index: int, f) -> None:
    from rich.markup import escape

    where = f"step {f.iteration}" + (f", sample {f.sample}" if f.sample is not None else "")
    console.print(
        f"  [red]output {index}[/]: first failure at {where}: {escape(f.reason)} — {escape(f.detail)}",
        soft_wrap=True,
    )
    for e in f.excerpt:
        console.print(
            escape(f"      at {tuple(e['index'])}: original {e['original']!r}, migrated {e['migrated']!r}"),
            style="dim",
        )


def _render_findings(console, pair: PairReport) -> None:
    """The findings, the notes, and the uses of the migrated function this run did not execute."""
    from rich.markup import escape

    for finding in pair.findings:
        style = _SEVERITY.get(finding.severity, "")
        message = escape(finding.message).replace("\n", "\n    ")
        console.print(f"  [{style}]{finding.severity}[/]: {message}", soft_wrap=True)
    for note in pair.notes:
        console.print(f"  [dim]note: {escape(note)}[/]", soft_wrap=True)
    for made in pair.synthetic:
        console.print(f"  synthetic input: {escape(made['describe'])}", soft_wrap=True)
    if pair.not_exercised and pair.verdict != ERROR:
        console.print(
            f"  not proven by this run: {len(pair.not_exercised)} use(s) of the migrated "
            "function outside its body (call sites, consumers) were not executed:",
            soft_wrap=True,
        )
        for use in pair.not_exercised:
            console.print(f"    {escape(use)}", style="dim", soft_wrap=True)


def _render_capture(console, c: dict) -> None:
    from rich.markup import escape

    style = "green" if c.get("equal") else "red"
    console.print(f"  capture=True check: [{style}]{escape(c.get('detail', ''))}[/]", soft_wrap=True)


def _render_checkpoint(console, c: dict) -> None:
    from rich.markup import escape

    style = "green" if c.get("equal") and not c.get("unregistered") else "red"
    console.print(f"  checkpoint check: [{style}]{escape(c.get('detail', ''))}[/]", soft_wrap=True)


def _render_timing(console, t: dict) -> None:
    """The throughput of both sides, and their ratio."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(show_edge=False, pad_edge=False, box=None, padding=(0, 1), title=None)
    table.add_column("throughput")
    table.add_column("samples/s", justify="right")
    table.add_column("runs", justify="right")
    for side in ("original", "migrated"):
        v = t.get(side)
        if v:
            note = f" ({v['note']})" if v.get("note") else ""
            steps = v["iterations_per_run"]
            table.add_row(
                escape(side + note),
                f"{v['samples_per_s']:.1f}",
                f"median of {len(v['run_samples_per_s'])} × {steps} step{'s' * (steps != 1)}",
            )
    if t.get("ratio") is not None:
        table.add_row("migrated / original", f"{t['ratio']:.2f}×", "")
    console.print(table)


def render(report: VerifyReport, console) -> None:
    from rich.markup import escape

    if report.error is not None:
        console.print(f"[bold red]ERROR[/] {escape(report.error.headline())}", soft_wrap=True)
        if report.error.traceback:
            console.print(escape(report.error.traceback), style="dim")
    for i, pair in enumerate(report.pairs):
        if i:
            console.print()
        _render_pair(console, pair)
    if len(report.pairs) > 1:
        counts: dict[str, int] = {}
        for p in report.pairs:
            counts[p.verdict] = counts.get(p.verdict, 0) + 1
        console.print()
        console.print(
            "summary: " + ", ".join(f"{n} {v}" for v, n in counts.items()),
            style=_STYLE[report.verdict],
        )
