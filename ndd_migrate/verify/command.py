"""The ``verify`` command: what ``ndd-migrate verify`` and ``python -m ndd_migrate.verify`` run.

Two forms::

    verify ORIGINAL MIGRATED [--pipeline NAME | ORIG:MIGRATED] [--synthetic] [options]
    verify --base REV PATH... [options]

Exit codes: 0 equal, 1 different, 2 could not run (the reason is printed). The CLI layer
(``cli.py``) only maps its options onto :func:`verify_command`; all behaviour lives here so it is
tested without typer.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from ndd_migrate.verify.model import DEVICES

OUTPUT_FORMATS = ("text", "json")


class UsageError(ValueError):
    """Bad command-line input: printed as one line, exit code 2."""


def parse_args_json(text: str, origin: str = "--args") -> tuple[tuple, dict]:
    """``--args`` / ``--args-file`` content → (positional args, keyword args).

    A JSON list is positional arguments, an object is keyword arguments, and an object whose
    keys are only ``args`` and/or ``kwargs`` gives both: ``{"args": ["/data"], "kwargs":
    {"crop": 224}}``.
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise UsageError(f"{origin} is not valid JSON: {e}") from None
    if isinstance(value, list):
        return tuple(value), {}
    if isinstance(value, dict):
        if value and set(value) <= {"args", "kwargs"}:
            args = value.get("args", [])
            kwargs = value.get("kwargs", {})
            if not isinstance(args, list) or not isinstance(kwargs, dict):
                raise UsageError(f'{origin}: "args" must be a list and "kwargs" an object')
            return tuple(args), dict(kwargs)
        return (), dict(value)
    raise UsageError(f"{origin} must be a JSON list (positional) or object (keyword arguments)")


def parse_tolerance(items: Sequence[str]) -> dict[int, tuple[float, float]]:
    """``--tolerance OUTPUT:RTOL:ATOL`` (repeatable) → ``{output: (rtol, atol)}``."""
    out: dict[int, tuple[float, float]] = {}
    for item in items:
        parts = item.split(":")
        if len(parts) != 3:
            raise UsageError(f"--tolerance {item!r}: expected OUTPUT:RTOL:ATOL, e.g. 0:1e-5:1e-6")
        try:
            out[int(parts[0])] = (float(parts[1]), float(parts[2]))
        except ValueError:
            raise UsageError(f"--tolerance {item!r}: OUTPUT is an integer, RTOL/ATOL numbers") from None
    return out


def output_console(*, stderr: bool = False, width: int = 10_000) -> Any:
    """A rich console for the report: a terminal's width on a terminal; piped (a CI log, a file) no
    wrapping at all, where rich would otherwise wrap every line at 80 columns."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    if tty:
        return Console(stderr=stderr, emoji=False)
    return Console(stderr=stderr, width=width, soft_wrap=True, emoji=False)


def verify_command(
    paths: Sequence[str],
    *,
    base: str | None = None,
    pipeline: str | None = None,
    args_json: str | None = None,
    args_file: str | None = None,
    batch_size: int | None = None,
    iterations: int | None = None,
    epochs: int | None = None,
    seed: int | None = None,
    device: str = "auto",
    device_id: int = 0,
    rtol: float | None = None,
    atol: float | None = None,
    tolerance: Sequence[str] = (),
    bench: bool = False,
    capture: bool = False,
    no_align: bool = False,
    align_order: bool = False,
    exec_module: bool = False,
    timeout: float = 300.0,
    synthetic: bool = False,
    output_format: str = "text",
    report_file: str | None = None,
    console: Any = None,
) -> int:
    """Run verify and print the report; returns the exit code (0 equal, 1 different, 2 error)."""
    from rich.markup import escape

    err = console or output_console(stderr=True)
    console = console or output_console()
    try:
        _check_choices(output_format, device, iterations, epochs, args_json, args_file)
        call_args, call_kwargs = _call_arguments(args_json, args_file)
        per_output = parse_tolerance(tolerance)
        paths = [os.fspath(p) for p in paths]
        if base is None and len(paths) != 2:
            raise UsageError(
                f"verify takes ORIGINAL MIGRATED (two files), or --base REV PATH... (got {len(paths)} path(s))"
            )
        options = dict(
            args=call_args,
            kwargs=call_kwargs,
            batch_size=batch_size,
            iterations=iterations,
            epochs=epochs,
            seed=seed,
            device=device,
            device_id=device_id,
            bench=bench,
            capture=capture,
            align_random=not no_align,
            align_order=align_order,
            load_mode="module" if exec_module else "definitions",
            timeout=timeout,
            synthetic=synthetic,
        )
        from ndd_migrate.verify.api import make_settings

        make_settings(**options)  # validate before starting anything
    except (UsageError, ValueError) as e:
        err.print(f"[red]error:[/red] {escape(str(e))}", highlight=False, soft_wrap=True)
        return 2

    from ndd_migrate.verify.api import verify_base, verify_files

    with _progress_shown(err):
        if base is not None:
            report = verify_base(base, paths, pipeline, rtol=rtol, atol=atol, tolerance=per_output, **options)
        else:
            report = verify_files(paths[0], paths[1], pipeline, rtol=rtol, atol=atol, tolerance=per_output, **options)
    return _print_report(report, output_format, report_file, console, err)


@contextlib.contextmanager
def _progress_shown(err):
    """On a terminal, a spinner saying which side of which pipeline is in which phase; in a pipe or
    a log, nothing (:mod:`ndd_migrate.verify.progress`)."""
    if not getattr(err, "is_terminal", False):
        yield
        return
    from rich.markup import escape

    from ndd_migrate.verify import progress

    with err.status("verify: starting") as status:

        def show(side: str, name: str, phase: str) -> None:
            status.update(f"verify {escape(name)}: {side} side, {escape(phase)}")

        with progress.reporting(show):
            yield


def _check_choices(
    output_format: str,
    device: str,
    iterations: int | None,
    epochs: int | None,
    args_json: str | None,
    args_file: str | None,
) -> None:
    """Raise :class:`UsageError` for an option value out of its choices, or options given
    together that exclude each other."""
    if output_format not in OUTPUT_FORMATS:
        raise UsageError(f"--output-format must be one of {', '.join(OUTPUT_FORMATS)}")
    if device not in DEVICES:
        raise UsageError(f"--device must be one of {', '.join(DEVICES)}")
    if iterations is not None and epochs is not None:
        raise UsageError("give --iterations or --epochs, not both")
    if args_json is not None and args_file is not None:
        raise UsageError("give --args or --args-file, not both")


def _call_arguments(args_json: str | None, args_file: str | None) -> tuple[tuple, dict]:
    """The arguments for both functions, from ``--args`` or ``--args-file`` (none without)."""
    if args_json is not None:
        return parse_args_json(args_json)
    if args_file is not None:
        try:
            with open(args_file, encoding="utf-8") as f:
                return parse_args_json(f.read(), f"--args-file {args_file}")
        except OSError as e:
            raise UsageError(f"cannot read --args-file {args_file}: {e.strerror}") from None
    return (), {}


def _print_report(report: Any, output_format: str, report_file: str | None, console, err) -> int:
    """Print the report as asked, write ``--report``'s JSON; the exit code."""
    from rich.markup import escape

    if output_format == "json":
        console.print(report.to_json(), markup=False, highlight=False, soft_wrap=True)
    else:
        report.render(console)
    if report_file:
        try:
            with open(report_file, "w", encoding="utf-8") as f:
                f.write(report.to_json() + "\n")
        except OSError as e:
            err.print(
                f"[red]error:[/red] {escape(f'cannot write --report {report_file}: {e.strerror}')}",
                soft_wrap=True,
            )
            return 2
    return report.exit_code


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m ndd_migrate.verify",
        description="Check that migrated dynamic-mode code reproduces the original DALI pipeline.",
    )
    p.add_argument("paths", nargs="*", help="ORIGINAL MIGRATED, or with --base: PATH...")
    p.add_argument("--base", metavar="REV", help="compare each PATH with its text at git REV")
    p.add_argument("--pipeline", metavar="NAME", help="function to check (NAME or ORIG:MIGRATED)")
    p.add_argument("--args", dest="args_json", metavar="JSON", help="arguments for both functions")
    p.add_argument("--args-file", metavar="FILE", help="--args read from a JSON file")
    p.add_argument("--batch-size", type=int)
    p.add_argument("--iterations", type=int)
    p.add_argument("--epochs", type=int)
    p.add_argument("--seed", type=int)
    p.add_argument("--device", default="auto", choices=DEVICES)
    p.add_argument("--device-id", type=int, default=0)
    p.add_argument("--rtol", type=float)
    p.add_argument("--atol", type=float)
    p.add_argument("--tolerance", action="append", default=[], metavar="OUT:RTOL:ATOL")
    p.add_argument("--bench", action="store_true", help="also measure throughput of both sides")
    p.add_argument("--capture", action="store_true", help="also run the migrated side captured")
    p.add_argument("--no-align", action="store_true", help="do not align random states")
    p.add_argument(
        "--align-order",
        action="store_true",
        help="give readers without seed= the migrated reader's seed: prove values, not the sample order",
    )
    p.add_argument("--exec-module", action="store_true", help="run the files' top-level code too")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per side")
    p.add_argument("--synthetic", action="store_true", help="generate the readers' data instead of reading yours")
    p.add_argument("--output-format", default="text", choices=OUTPUT_FORMATS)
    p.add_argument("--report", dest="report_file", metavar="FILE", help="also write JSON here")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    ns = build_parser().parse_args(argv)
    kwargs = vars(ns)
    paths = kwargs.pop("paths")
    return verify_command(paths, **kwargs)
