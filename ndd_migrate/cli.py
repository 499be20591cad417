"""The ``ndd-migrate`` command line: thin wrappers over the engine, the lint and verify.

``migrate`` and ``check`` import nothing that needs libcst (the engine, the rules, the
catalogue's rule modules) up front: :mod:`ndd_migrate.runner` reads the files, skips those that
never mention DALI, and imports the engine only for the rest, so a pre-commit run over files
without DALI stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

app = typer.Typer(
    name="ndd-migrate",
    help="Migrate NVIDIA DALI pipeline-mode code to dynamic mode (ndd): codemod, lint, equivalence check.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.command()
def migrate(
    paths: List[Path] = typer.Argument(..., help="Files and directories (searched recursively)."),
    diff: bool = typer.Option(False, "--diff", help="Print a unified diff; write nothing."),
    check: bool = typer.Option(False, "--check", help="Write nothing; exit 1 if any file would change."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Parallel worker processes (default: CPU count)."),
    exclude: List[str] = typer.Option([], "--exclude", help="Glob patterns of paths to skip."),
) -> None:
    """Rewrite pipeline-mode code into dynamic-mode code, in place."""
    from ndd_migrate import files, runner
    from ndd_migrate.policy import Policy
    from ndd_migrate.report.summary import print_summary

    err = _console(stderr=True)
    try:
        targets = files.discover(paths, exclude=exclude)
    except files.SourceError as exc:
        err.print(f"[red]error[/] {exc}")
        raise typer.Exit(2)
    summary = runner.run(targets, Policy.migrate(), jobs, roots=paths)
    write = not (diff or check)
    for result in summary.changed:
        if diff:
            _print_diff(result)
        if write:
            _write(result, summary)
    print_summary(summary, err, wrote=write)
    if summary.failed:
        raise typer.Exit(2)
    if summary.manual or (check and summary.changed):
        raise typer.Exit(1)


def _print_diff(result) -> None:
    """Print the diff of the bytes ``migrate`` would write (the file's encoding and BOM, its tabs
    and newlines) straight to stdout's buffer: a text stream, or rich, would alter them, and the
    patch would no longer apply. A text the file's encoding cannot hold fails as writing would."""
    import sys

    from ndd_migrate import files
    from ndd_migrate.diagnostics import FileError
    from ndd_migrate.report.summary import unified_diff

    try:
        current = files.read_source(result.path)
        old = files.encode_source(result.path, result.old_source, current)
        new = files.encode_source(result.path, result.new_source, current)
    except files.SourceError as exc:
        result.error = FileError(result.path, exc.message, exc.line)
        result.changed = False
        return
    sys.stdout.flush()
    sys.stdout.buffer.write(unified_diff(result.path, old, new))
    sys.stdout.buffer.flush()


def _write(result, summary) -> None:
    """Replace the file atomically, unless it changed on disk since it was read."""
    from ndd_migrate import files
    from ndd_migrate.diagnostics import FileError

    try:
        current = files.read_source(result.path)
        if not _same_text(current.text, result):
            raise files.SourceError(result.path, "changed on disk during the run; left as it is")
        files.write_source(result.path, result.new_source, current)
    except files.SourceError as exc:
        result.error = FileError(result.path, exc.message, exc.line)
        result.changed = False


def _same_text(text: str, result) -> bool:
    return text == result.old_source


@app.command()
def check(
    paths: List[Path] = typer.Argument(None, help="Files and directories (default: the current directory)."),
    fix: bool = typer.Option(False, "--fix", help="Apply safe fixes."),
    unsafe_fixes: bool = typer.Option(False, "--unsafe-fixes", help="With --fix, also apply unsafe fixes."),
    select: Optional[str] = typer.Option(None, "--select", help="Comma-separated codes or prefixes (NDD1, ALL)."),
    extend_select: Optional[str] = typer.Option(None, "--extend-select"),
    ignore: Optional[str] = typer.Option(None, "--ignore", help="Comma-separated codes or prefixes."),
    exclude: Optional[str] = typer.Option(None, "--exclude", help="Comma-separated glob patterns."),
    force_exclude: bool = typer.Option(False, "--force-exclude", help="Apply excludes to files named explicitly (pre-commit)."),
    output_format: str = typer.Option("concise", "--output-format", help="concise, full, json, sarif or github."),
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even with findings."),
    statistics: bool = typer.Option(False, "--statistics", help="Counts per rule code."),
    config: Optional[Path] = typer.Option(None, "--config", help="A pyproject.toml to use instead of discovery."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j"),
) -> None:
    """Lint: pipeline-mode leftovers and dynamic-mode mistakes, with rule codes."""
    from ndd_migrate import files, runner
    from ndd_migrate.catalog import rule_codes
    from ndd_migrate.config import ConfigError, Configuration, Overrides
    from ndd_migrate.policy import Policy
    from ndd_migrate.report import exit_code, render

    split = lambda value: tuple(v.strip() for v in value.split(",") if v.strip()) if value else None
    try:
        conf = Configuration(
            Overrides(
                select=split(select),
                extend_select=split(extend_select) or (),
                ignore=split(ignore) or (),
                exclude=split(exclude),
            ),
            config_file=config,
        )
        targets = files.discover(paths or [Path(".")], is_excluded=conf.is_excluded, force_exclude=force_exclude)
        for selector in conf.for_path(Path.cwd()).unmatched_selectors(rule_codes()):
            _console(stderr=True).print(f"[yellow]warning[/] `{selector}` selects no rule", soft_wrap=True)
    except (ConfigError, files.SourceError) as exc:
        _console(stderr=True).print(f"[red]error[/] {exc}", soft_wrap=True)
        raise typer.Exit(2)
    policy = Policy.check(fix=fix, unsafe_fixes=unsafe_fixes, is_enabled=conf.is_enabled)
    summary = runner.run(targets, policy, jobs, roots=paths or [Path(".")])
    if fix:
        for result in summary.changed:
            _write(result, summary)
    text = render(output_format, summary.results, statistics=statistics, unsafe_fixes=unsafe_fixes)
    if text:
        typer.echo(text, nl=not text.endswith("\n"))
    code = exit_code(summary.results)
    raise typer.Exit(0 if exit_zero and code == 1 else code)


@app.command()
def verify(
    paths: List[str] = typer.Argument(..., help="ORIGINAL.py MIGRATED.py, or with --base the migrated files."),
    base: Optional[str] = typer.Option(None, "--base", help="CI mode: the original is each file at this git revision."),
    pipeline: Optional[str] = typer.Option(None, "--pipeline", help="The function to compare (default: every pair)."),
    args: Optional[str] = typer.Option(None, "--args", help='JSON: list = positional, object = keyword, or {"args": [...], "kwargs": {...}}.'),
    args_file: Optional[str] = typer.Option(None, "--args-file", help="A JSON file of keyword arguments."),
    batch_size: Optional[int] = typer.Option(None, "--batch-size"),
    iterations: Optional[int] = typer.Option(None, "--iterations"),
    epochs: Optional[int] = typer.Option(None, "--epochs"),
    seed: Optional[int] = typer.Option(None, "--seed"),
    device: str = typer.Option("auto", "--device", help="auto, cpu (lower both sides) or gpu."),
    device_id: int = typer.Option(0, "--device-id"),
    rtol: Optional[float] = typer.Option(None, "--rtol"),
    atol: Optional[float] = typer.Option(None, "--atol"),
    tolerance: List[str] = typer.Option([], "--tolerance", help="OUT:RTOL:ATOL for one output (repeatable)."),
    bench: bool = typer.Option(False, "--bench", help="Also time both sides."),
    capture: bool = typer.Option(False, "--capture", help="Also run the migrated side with next_epoch(capture=True)."),
    no_align: bool = typer.Option(False, "--no-align", help="Do not align random states."),
    exec_module: bool = typer.Option(False, "--exec-module", help="Run the files' top-level code too."),
    timeout: float = typer.Option(300.0, "--timeout", help="Seconds per side."),
    output_format: str = typer.Option("text", "--output-format", help="text or json"),
    report: Optional[str] = typer.Option(None, "--report", help="Write the JSON report to this file."),
) -> None:
    """Prove a migrated loader gives the same outputs as its pipeline (exit 0 equal, 1 different, 2 error)."""
    from ndd_migrate.verify.command import verify_command

    raise typer.Exit(
        verify_command(
            paths, base=base, pipeline=pipeline, args_json=args, args_file=args_file, batch_size=batch_size,
            iterations=iterations, epochs=epochs, seed=seed, device=device, device_id=device_id, rtol=rtol,
            atol=atol, tolerance=tolerance, bench=bench, capture=capture, no_align=no_align,
            exec_module=exec_module, timeout=timeout, output_format=output_format, report_file=report,
        )
    )


@app.command()
def rules(
    output_format: str = typer.Option("text", "--output-format", help="text or json"),
) -> None:
    """List the rule catalogue."""
    from ndd_migrate.catalog import all_rules

    if output_format == "json":
        import json

        typer.echo(json.dumps([
            {"code": r.code, "name": r.name, "summary": r.summary, "fix_safety": r.fix_safety.value}
            for r in all_rules()
        ], indent=2))
        return
    from rich.table import Table

    table = Table(title="ndd-migrate rules")
    for col in ("code", "name", "fix", "summary"):
        table.add_column(col)
    for r in all_rules():
        table.add_row(r.code, r.name, r.fix_safety.value, r.summary)
    _console(highlight=True).print(table)


@app.command()
def explain(code: str = typer.Argument(..., help="A rule code, e.g. NDD103.")) -> None:
    """Print one rule's documentation and examples."""
    from ndd_migrate.catalog import get_rule
    from ndd_migrate.docs import rule_markdown

    rule = get_rule(code)
    if rule is None:
        _console(stderr=True, highlight=True).print(
            f"[red]error[/] unknown rule code {code!r}; `ndd-migrate rules` lists them"
        )
        raise typer.Exit(2)
    typer.echo(rule_markdown(rule))


def _console(*, stderr: bool = False, highlight: bool = False):
    """A rich console. rich is imported here, not at start-up: it costs about 60 ms, and a clean
    ``check`` prints nothing through it."""
    from rich.console import Console

    return Console(stderr=stderr, highlight=highlight)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
