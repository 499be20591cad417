"""Public API of the equivalence check.

* :func:`assert_equivalent` — for tests: two functions in, a report out, or :class:`NotEquivalent`
  (outputs differ) / :class:`CouldNotVerify` (could not run) raised with the same report.
* :func:`verify_files` — two files, pipelines paired by function name (:mod:`.pairing`).
* :func:`verify_base` — files against their own text at a git revision.
* :func:`verify_pair` — the primitive the others use: one :class:`SideSpec` per side.

How a pair is checked (details in the modules named):

1. the migrated side runs in a worker process first (:mod:`.worker`): ``g = f(*args,
   batch_size=B, device_id=D, seed=S, **kw)`` and ``next(g)`` N times (or until ``--epochs`` are
   done), recording every random state drawn (:mod:`.rng`) and every reader seed
   (:mod:`.readers`); outputs go to one file per step;
2. the original runs in another worker: ``pipe = f(...)``, ``build()``, ``run()`` N times, with
   the recorded states fed to its random ops and the same reader seeds;
3. this process compares the steps as they are read (:mod:`.compare`) and assembles the report
   (:mod:`.sections`, :mod:`.report`), with the throughput of both sides when asked
   (:mod:`.timing`).

Nothing here imports DALI: it runs in the workers only.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ndd_migrate.verify.errors import INSTALL_HINT, CouldNotVerify, NotEquivalent, SetupError
from ndd_migrate.verify.model import BenchConfig, Settings, SideSpec
from ndd_migrate.verify.pairing import pairs_for
from ndd_migrate.verify.report import ERROR, ErrorInfo, PairReport, VerifyReport
from ndd_migrate.verify.sections import (
    compare_ends,
    compare_runs,
    error_info,
    not_exercised,
    verdict_of,
)

ToleranceSpec = Mapping[int, "tuple[float, float] | Any"]


# --------------------------------------------------------------------------------------------
# Options


def make_settings(
    *,
    args: Iterable[Any] = (),
    kwargs: Mapping[str, Any] | None = None,
    batch_size: int | None = None,
    iterations: int | None = None,
    epochs: int | None = None,
    seed: int | None = None,
    device: str = "auto",
    device_id: int = 0,
    align_random: bool = True,
    align_order: bool = False,
    reader_seed: int | None = None,
    bench: bool | BenchConfig = False,
    capture: bool = False,
    load_mode: str = "definitions",
    timeout: float = 300.0,
    synthetic: bool = False,
) -> Settings:
    """Validate the options shared by every entry point into a :class:`Settings`.

    ``capture=True`` asks for ``reader.next_epoch(capture=True)`` on the migrated side without
    the migrated function having to support it: verify forces it on every reader. The comparison
    itself always runs eagerly (that is the migrated code as written); with ``capture`` the
    migrated side is run a second time captured and must give the same bytes as eagerly (a report
    section of its own), and ``bench`` times the captured variant.

    ``args`` is a list of positional arguments or, as ``--args`` takes a JSON object, a mapping of
    keyword arguments (``args={"data_dir": ...}`` passed the key as the first argument).
    """
    if isinstance(args, Mapping):  # keywords, as `--args '{"data_dir": ...}'` gives them
        clash = sorted(set(args) & set(kwargs or {}))
        if clash:
            raise ValueError(f"{', '.join(clash)} given both in args and in kwargs")
        args, kwargs = (), {**args, **(kwargs or {})}
    if bench is True:
        bench_config: BenchConfig | None = BenchConfig()
    elif bench is False or bench is None:
        bench_config = None
    else:
        bench_config = bench
    return Settings(
        args=tuple(args),
        kwargs=dict(kwargs or {}),
        batch_size=batch_size,
        seed=seed,
        device=device,
        device_id=device_id,
        iterations=iterations,
        epochs=epochs,
        align_random=align_random,
        align_order=align_order,
        reader_seed=reader_seed,
        bench=bench_config,
        capture=capture,
        load_mode=load_mode,
        timeout=timeout,
        synthetic=synthetic,
    )


def make_tolerances(rtol: float | None, atol: float | None, tolerance: ToleranceSpec | None):
    """(per-output tolerances, default tolerance). ``rtol``/``atol`` apply to every output;
    ``tolerance={index: (rtol, atol)}`` to single outputs (and wins for them)."""
    from ndd_migrate.verify.compare import Tolerance

    default = Tolerance(rtol or 0.0, atol or 0.0)
    per: dict[int, Tolerance] = {}
    for index, value in (tolerance or {}).items():
        if isinstance(value, Tolerance):
            per[int(index)] = value
        else:
            r, a = value
            per[int(index)] = Tolerance(float(r), float(a))
    for t in [default, *per.values()]:
        if t.rtol < 0 or t.atol < 0:
            raise ValueError("tolerances must be >= 0")
    return per, default


def _preflight() -> ErrorInfo | None:
    """The parent needs numpy to compare; the workers need DALI. Checked before starting
    processes, so a missing extra is one clear line and exit code 2."""
    missing = [m for m in ("nvidia.dali", "numpy") if _find_spec(m) is None]
    if missing:
        return ErrorInfo(
            "missing-dali" if "nvidia.dali" in missing else "missing-numpy",
            f"{' and '.join(missing)} not installed; {INSTALL_HINT}",
        )
    return None


def _find_spec(name: str):
    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None


# --------------------------------------------------------------------------------------------
# One pair


def verify_pair(
    original: SideSpec,
    migrated: SideSpec,
    settings: Settings,
    *,
    tolerances: Mapping[int, Any] | None = None,
    default_tolerance: Any = None,
    name: str | None = None,
    workdir: str | None = None,
) -> PairReport:
    """Check one original pipeline function against one migrated generator function."""
    report = PairReport(name=name or original.function, original=original.label, migrated=migrated.label)
    pre = _preflight()
    if pre is not None:
        report.error = pre
        report.verdict = ERROR
        return report

    own_dir = workdir is None
    workdir = workdir or tempfile.mkdtemp(prefix="ndd-verify-")
    processes: list = []
    try:
        if settings.synthetic:
            from ndd_migrate.verify.synthetic import with_synthetic_inputs

            settings = with_synthetic_inputs(original, settings, workdir, report)
            if report.error is not None:
                report.verdict = ERROR
                return report
        settings = _with_inferred(original, migrated, settings, report)
        if report.error is not None:  # a required parameter nobody gives: asked for, nothing run
            report.verdict = ERROR
            return report
        ran = _run_sides(original, migrated, settings, workdir, processes, report)
        if ran is None:
            report.verdict = ERROR
            return report
        orig, mig = ran
        compare_ends(report, orig, mig, settings.epochs)
        if report.error is not None:
            report.verdict = ERROR
            return report
        compare_runs(report, orig, mig, settings, workdir, tolerances, default_tolerance)
        report.not_exercised = not_exercised(migrated)
        report.verdict = verdict_of(report)
        return report
    finally:
        for proc in processes:
            proc.abort()  # no-op for a finished worker
        if own_dir:
            shutil.rmtree(workdir, ignore_errors=True)


def _run_sides(
    original: SideSpec,
    migrated: SideSpec,
    settings: Settings,
    workdir: str,
    processes: list,
    report: PairReport,
) -> tuple[dict, dict] | None:
    """Run both workers, the migrated side first, and put what the migrated run tells (device,
    steps, epochs) and both sides' notes in the report. The results ``(original, migrated)``, or
    None when a side could not run (``report.error`` says which). Each process started is added
    to ``processes``, for the caller to stop."""
    from ndd_migrate.verify.runner import SideProcess

    # The original side starts now and imports DALI while the migrated side runs; it gets the
    # recorded states and reader seeds when they exist.
    original_proc = SideProcess("original", original, settings, workdir, pre_start=True)
    processes.append(original_proc)
    migrated_proc = SideProcess("migrated", migrated, settings, workdir)
    processes.append(migrated_proc)
    mig = migrated_proc.wait()
    report.dali_version = mig.get("dali_version")
    report.notes.extend(mig.get("notes", []))
    if not mig["ok"]:
        report.error = error_info(mig, "migrated")
        return None
    lowered = mig["lowered"]
    report.device = "CPU-lowered" if lowered else f"native GPU (device_id={settings.device_id})"
    report.iterations = mig["iterations"]
    report.epochs = mig.get("epochs") or None
    report.iterations_per_epoch = mig.get("iterations_per_epoch")

    original_proc.release(**_original_job(mig, settings))
    orig = original_proc.wait()
    report.notes.extend(orig.get("notes", []))
    if not orig["ok"]:
        report.error = error_info(orig, "original")
        return None
    return orig, mig


def _original_job(mig: dict, settings: Settings) -> dict:
    """The rest of the original side's job, from the migrated side's result: the random states
    to feed, the reader seeds, the steps to run, and whether to probe for its end."""
    states = [[tuple(c["words"]) for c in step] for step in mig["random_calls"]]
    return dict(
        lowered=mig["lowered"],
        states=states,
        reader_seeds=[r["used_seed"] for r in mig["readers"]],
        iterations=mig["iterations"],
        probe_end=mig.get("ended_at") is not None or settings.epochs is not None and not mig["readers"],
    )


def _with_inferred(original: SideSpec, migrated: SideSpec, settings: Settings, report) -> Settings:
    """``settings`` with arguments for what the migrated function requires and nobody gave
    (:mod:`.callargs`), each named in the report's notes; what nothing gives is asked for by
    name in ``report.error``."""
    from ndd_migrate.verify.callargs import infer
    from ndd_migrate.verify.loading import read_source

    try:
        sources = [spec.source if spec.source is not None else read_source(spec.path) for spec in (original, migrated)]
    except (OSError, SetupError):
        return settings  # the worker reports it
    given = set(settings.kwargs) | {"device_id"}
    given |= {k for k in ("batch_size", "seed") if getattr(settings, k) is not None}
    found = infer(
        sources[0],
        original.written or sources[0],
        original.function,
        sources[1],
        migrated.function,
        positional=len(settings.args),
        given=given,
        seed=settings.effective_reader_seed,
    )
    report.notes.extend(f"not given: {note}" for note in found.notes)
    if found.missing:
        report.error = ErrorInfo("missing-argument", _ask_for(migrated.function, found.missing, settings.kwargs))
    return dataclasses.replace(settings, defaults={**found.values, **settings.defaults})


def _ask_for(function: str, missing: tuple[str, ...], given: Mapping[str, Any]) -> str:
    """One line asking for the parameters nobody gives, with the ``--args`` that gives them, and
    the keywords given that the function does not take (a misspelt one is the likely cause)."""
    names = ", ".join(f"`{p}`" for p in missing)
    example = ", ".join(f'"{p}": ...' for p in missing)
    them = "it" if len(missing) == 1 else "them"
    unused = [k for k in given if k not in missing]
    also = f" (given: {', '.join(f'`{k}`' for k in unused)})" if unused else ""
    return (
        f"`{function}` requires {names}, which no call site of the original gives as a literal{also}: "
        f"pass {them} with --args '{{{example}}}' (Python: kwargs={{{example}}})"
    )


# --------------------------------------------------------------------------------------------
# Pairing functions of two files


def _run_pairs(pairs, settings, tolerances, default, report: VerifyReport, source=None) -> None:
    for o, m in pairs:
        if source is not None and o.source is None:
            o = dataclasses.replace(o, source=source)
        report.pairs.append(verify_pair(o, m, settings, tolerances=tolerances, default_tolerance=default))


def verify_files(
    original_path: str | os.PathLike,
    migrated_path: str | os.PathLike,
    pipeline: str | None = None,
    *,
    rtol: float | None = None,
    atol: float | None = None,
    tolerance: ToleranceSpec | None = None,
    **options: Any,
) -> VerifyReport:
    """Verify the pipelines of ``original_path`` against the migrated ``migrated_path``.

    ``pipeline`` names one function (``"train_pipe"``), or a pair when the names differ
    (``"train_pipe:train_pipe_v2"``); without it every ``@pipeline_def`` function of the original
    is paired with the migrated function of the same name. ``options`` are those of
    :func:`make_settings` (``args``, ``kwargs``, ``batch_size``, ``iterations``/``epochs``,
    ``seed``, ``device``, ``bench``, ``capture``, ``timeout``, ``load_mode``...).
    """
    report = VerifyReport()
    report.error = _preflight()
    if report.error is not None:
        return report
    try:
        settings = make_settings(**options)
        tolerances, default = make_tolerances(rtol, atol, tolerance)
        from ndd_migrate.verify.loading import read_source

        original_path, migrated_path = os.fspath(original_path), os.fspath(migrated_path)
        original_source = read_source(original_path)
        migrated_source = read_source(migrated_path)
        pairs, missing = pairs_for(original_path, original_source, None, migrated_path, migrated_source, pipeline)
    except SetupError as e:
        report.error = ErrorInfo(e.kind, str(e), location=e.location)
        return report
    report.pairs.extend(missing)
    _run_pairs(pairs, settings, tolerances, default, report)
    return report


def verify_base(
    rev: str,
    paths: Iterable[str | os.PathLike],
    pipeline: str | None = None,
    *,
    rtol: float | None = None,
    atol: float | None = None,
    tolerance: ToleranceSpec | None = None,
    **options: Any,
) -> VerifyReport:
    """Verify each file in ``paths`` (migrated, in the working tree) against its own text at git
    revision ``rev`` (see :mod:`.gitbase`)."""
    from ndd_migrate.verify.gitbase import git_show
    from ndd_migrate.verify.loading import python_of, read_source

    report = VerifyReport()
    report.error = _preflight()
    if report.error is not None:
        return report
    try:
        settings = make_settings(**options)
        tolerances, default = make_tolerances(rtol, atol, tolerance)
    except (SetupError, ValueError) as e:
        report.error = ErrorInfo(getattr(e, "kind", "usage"), str(e))
        return report
    paths = [os.fspath(p) for p in paths]
    if not paths:
        report.error = ErrorInfo("usage", "--base needs at least one path")
        return report
    for path in paths:
        try:
            migrated_source = read_source(path)
            base_source = python_of(path, git_show(path, rev))
            pairs, missing = pairs_for(path, base_source, f"{path}@{rev}", path, migrated_source, pipeline)
        except SetupError as e:
            rep = PairReport(name=os.path.basename(path), original=f"{path}@{rev}", migrated=path)
            rep.error = ErrorInfo(e.kind, str(e), location=e.location)
            report.pairs.append(rep)
            continue
        report.pairs.extend(missing)
        _run_pairs(pairs, settings, tolerances, default, report, source=base_source)
    return report


# --------------------------------------------------------------------------------------------
# Functions in, exception out


def side_from_function(fn: Callable, kind: str) -> SideSpec:
    """The file and module-level name a function can be loaded from in a worker process."""
    target = inspect.unwrap(fn)
    name = getattr(fn, "__name__", None)
    qualname = getattr(fn, "__qualname__", name) or ""
    if not name or "<locals>" in qualname or "<lambda>" in qualname:
        raise SetupError(
            "no-function",
            f"the {kind} function {qualname or fn!r} must be defined at module level in a file "
            "(it runs in a separate process, which loads it from there)",
        )
    try:
        path = inspect.getsourcefile(target)
    except TypeError:
        path = None
    if path is None:
        module = sys.modules.get(getattr(fn, "__module__", ""), None)
        path = getattr(module, "__file__", None)
    if path is None or not os.path.exists(path):
        raise SetupError("no-function", f"cannot find the file that defines the {kind} function `{name}`")
    return SideSpec(path, qualname)


def assert_equivalent(
    original_fn: Callable,
    migrated_fn: Callable,
    args: Iterable[Any] = (),
    kwargs: Mapping[str, Any] | None = None,
    *,
    batch_size: int | None = None,
    iterations: int | None = None,
    epochs: int | None = None,
    seed: int | None = None,
    device: str = "auto",
    rtol: float | None = None,
    atol: float | None = None,
    tolerance: ToleranceSpec | None = None,
    load_mode: str = "module",
    **options: Any,
) -> VerifyReport:
    """Assert that ``migrated_fn`` (a generator function in the target shape) reproduces
    ``original_fn`` (a ``@pipeline_def`` function or any function returning a ``Pipeline``).

    Both must be module-level functions of importable files. Returns the report when equal (also
    "equal within tolerance"); raises :class:`NotEquivalent` when they differ and
    :class:`CouldNotVerify` when the check cannot run, both carrying the report (``e.report``),
    whose text is the exception message. Extra ``options``: see :func:`make_settings`.
    """
    report = VerifyReport()
    report.error = _preflight()
    if report.error is not None:
        raise CouldNotVerify(report)
    try:
        o = side_from_function(original_fn, "original")
        m = side_from_function(migrated_fn, "migrated")
        settings = make_settings(
            args=args,
            kwargs=kwargs,
            batch_size=batch_size,
            iterations=iterations,
            epochs=epochs,
            seed=seed,
            device=device,
            load_mode=load_mode,
            **options,
        )
        tolerances, default = make_tolerances(rtol, atol, tolerance)
    except SetupError as e:
        report.error = ErrorInfo(e.kind, str(e))
        raise CouldNotVerify(report) from None
    report.pairs.append(verify_pair(o, m, settings, tolerances=tolerances, default_tolerance=default))
    if report.exit_code == 2:
        raise CouldNotVerify(report)
    if report.exit_code == 1:
        raise NotEquivalent(report)
    return report
