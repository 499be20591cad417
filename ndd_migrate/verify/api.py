"""Public API of the equivalence check.

* :func:`assert_equivalent` — for tests: two functions in, a report out, or :class:`NotEquivalent`
  (outputs differ) / :class:`CouldNotVerify` (could not run) raised with the same report.
* :func:`verify_files` — two files, pipelines paired by function name.
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
   (:mod:`.report`), with the throughput of both sides when asked (:mod:`.timing`).

Nothing here imports DALI: it runs in the workers only.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
import os
import pickle
import shutil
import sys
import tempfile
from typing import Any, Callable, Iterable, Mapping

from ndd_migrate.verify.errors import INSTALL_HINT, CouldNotVerify, NotEquivalent, SetupError
from ndd_migrate.verify.model import BenchConfig, Settings, SideSpec
from ndd_migrate.verify.report import (
    DIFFERENT,
    EQUAL,
    EQUAL_TOL,
    ERROR,
    ErrorInfo,
    Finding,
    PairReport,
    VerifyReport,
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
    reader_seed: int | None = None,
    bench: bool | BenchConfig = False,
    capture: bool = False,
    load_mode: str = "definitions",
    timeout: float = 300.0,
) -> Settings:
    """Validate the options shared by every entry point into a :class:`Settings`.

    ``capture=True`` asks for ``reader.next_epoch(capture=True)`` on the migrated side without
    the migrated function having to support it: verify forces it on every reader. The comparison
    itself always runs eagerly (that is the migrated code as written); with ``capture`` the
    migrated side is run a second time captured and must give the same bytes as eagerly (a report
    section of its own), and ``bench`` times the captured variant.
    """
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
        reader_seed=reader_seed,
        bench=bench_config,
        capture=capture,
        load_mode=load_mode,
        timeout=timeout,
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


def _error_info(result: dict, side: str) -> ErrorInfo:
    e = result.get("error") or {"kind": "crash", "message": "no result"}
    return ErrorInfo(
        kind=e.get("kind", "exception"),
        message=e.get("message", ""),
        side=side,
        location=e.get("location"),
        phase=e.get("phase"),
        traceback=e.get("traceback"),
        stderr_tail=e.get("stderr_tail"),
        ops=list(e.get("ops") or []),
    )


def _load_step(path: str) -> list[dict]:
    with open(path, "rb") as f:
        return pickle.load(f)


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
    report = PairReport(
        name=name or original.function, original=original.label, migrated=migrated.label
    )
    pre = _preflight()
    if pre is not None:
        report.error = pre
        report.verdict = ERROR
        return report

    settings = _with_inferred(original, migrated, settings, report)

    from ndd_migrate.verify.runner import SideProcess

    own_dir = workdir is None
    workdir = workdir or tempfile.mkdtemp(prefix="ndd-verify-")
    processes: list = []
    try:
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
            report.error = _error_info(mig, "migrated")
            report.verdict = ERROR
            return report
        lowered = mig["lowered"]
        report.device = "CPU-lowered" if lowered else f"native GPU (device_id={settings.device_id})"
        report.iterations = mig["iterations"]
        report.epochs = mig.get("epochs") or None
        report.iterations_per_epoch = mig.get("iterations_per_epoch")

        states = [[tuple(c["words"]) for c in step] for step in mig["random_calls"]]
        original_proc.release(
            lowered=lowered,
            states=states,
            reader_seeds=[r["used_seed"] for r in mig["readers"]],
            iterations=mig["iterations"],
            probe_end=mig.get("ended_at") is not None or settings.epochs is not None and not mig["readers"],
            defaults=mig.get("defaults", {}),
        )
        orig = original_proc.wait()
        report.notes.extend(orig.get("notes", []))
        if not orig["ok"]:
            report.error = _error_info(orig, "original")
            report.verdict = ERROR
            return report

        _ends(report, orig, mig, settings.epochs)
        if report.error is not None:
            report.verdict = ERROR
            return report
        _compare_outputs(report, workdir, tolerances, default_tolerance, lowered)
        _random_and_readers(report, orig, mig, settings.align_random)
        _seeding(report, orig, mig, workdir)
        if lowered:
            from ndd_migrate.verify.lowering import device_findings

            for sev, msg in device_findings(orig.get("devices", []), mig.get("devices", [])):
                report.findings.append(Finding(sev, msg))
        if mig.get("captured"):
            _capture_check(report, workdir)
        if mig.get("checkpoint"):
            _checkpoint_check(report, workdir, mig["checkpoint"])
        if settings.bench:
            _timing(report, orig, mig)
        report.not_exercised = _not_exercised(migrated)
        report.verdict = _verdict(report)
        return report
    finally:
        for proc in processes:
            proc.abort()  # no-op for a finished worker
        if own_dir:
            shutil.rmtree(workdir, ignore_errors=True)


def _with_inferred(original: SideSpec, migrated: SideSpec, settings: Settings, report) -> Settings:
    """``settings`` with arguments for what the migrated function requires and nobody gave
    (:mod:`.callargs`), each named in the report's notes."""
    from ndd_migrate.verify.callargs import infer
    from ndd_migrate.verify.loading import read_source

    try:
        sources = [
            spec.source if spec.source is not None else read_source(spec.path)
            for spec in (original, migrated)
        ]
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
    return dataclasses.replace(
        settings,
        defaults={**found.values, **settings.defaults},
        from_schema={**found.from_schema, **settings.from_schema},
    )


def _not_exercised(spec: SideSpec) -> list[str]:
    from ndd_migrate.verify.loading import read_source
    from ndd_migrate.verify.scope import uses_outside

    try:
        source = spec.source if spec.source is not None else read_source(spec.path)
    except (OSError, SetupError):
        return []
    return uses_outside(source, spec.display or spec.path, spec.function.split(".")[-1])


def _ends(report: PairReport, orig: dict, mig: dict, epochs: int | None) -> None:
    """Compare where the two sides ended (:mod:`.ending`); only the steps both produced are
    compared."""
    from ndd_migrate.verify.ending import end_findings

    report.ended = {"original": orig.get("ended_at"), "migrated": mig.get("ended_at")}
    report.iterations = min(report.iterations, orig["iterations"])
    for sev, msg in end_findings(report.ended["original"], report.ended["migrated"]):
        report.findings.append(Finding(sev, msg))
    if epochs and not mig["readers"] and report.ended == {"original": None, "migrated": None}:
        report.error = ErrorInfo(
            "epochs",
            f"--epochs needs a reader or an end: no reader, and neither side ended in "
            f"{report.iterations} step(s) (without a reader an epoch is the steps until "
            "iter_setup raises StopIteration); use --iterations",
        )


def _compare_outputs(report, workdir, tolerances, default_tolerance, lowered) -> None:
    """Stream both sides' step files through the comparator."""
    from ndd_migrate.verify.compare import Comparator, Tolerance
    from ndd_migrate.verify.side import step_path

    comparator = Comparator(tolerances, default_tolerance or Tolerance())
    for k in range(report.iterations):
        o = _load_step(step_path(workdir, "original", k))
        m = _load_step(step_path(workdir, "migrated", k))
        if k == 0 and o and o[0]["samples"]:
            report.batch_size = len(o[0]["samples"])
        comparator.add_step(k, o, m)
        os.remove(step_path(workdir, "original", k))
    report.outputs = comparator.results()
    for msg in comparator.structure_findings:
        report.findings.append(Finding("error", msg))
    for o in report.outputs:
        if o.device[0] and o.device[0] != o.device[1] and not lowered:
            report.findings.append(
                Finding(
                    "warning",
                    f"output {o.index} is on the {o.device[0]} in the original and on the "
                    f"{o.device[1]} in the migrated code",
                )
            )


def _random_and_readers(report: PairReport, orig: dict, mig: dict, align: bool) -> None:
    """The random-op and reader sections, with their findings."""
    from ndd_migrate.verify.readers import seed_findings
    from ndd_migrate.verify.rng import alignment_findings

    pipeline_ops = orig.get("random_ops", [])
    ndd_steps = mig.get("random_calls", [])
    random_findings, mismatch = alignment_findings(pipeline_ops, ndd_steps, align)
    any_random = bool(pipeline_ops) or any(ndd_steps)
    if not any_random:
        status = "none"
    elif not align:
        status = "NOT aligned: alignment turned off"
    elif mismatch:
        status = "MISMATCH, fed by position"
    else:
        status = f"aligned, {len(pipeline_ops)} per step, in this order"
    report.random = {
        "status": status,
        "aligned": align and any_random,
        "original": [o["display"] for o in pipeline_ops],
        "migrated": [c["display"] for c in (ndd_steps[0] if ndd_steps else [])],
    }
    report.readers = {
        "original": orig.get("readers", []),
        "migrated": mig.get("readers", []),
        "original_meta": orig.get("reader_meta", []),
        "migrated_meta": mig.get("reader_meta", []),
    }
    from ndd_migrate.verify.readers import argument_findings, epoch_findings, in_loop_finding

    for sev, msg in (
        random_findings
        + in_loop_finding(mig.get("readers_in_loop") or [])
        + seed_findings(report.readers["original"], report.readers["migrated"])
        + argument_findings(report.readers["original"], report.readers["migrated"])
        + epoch_findings(
            report.readers["original_meta"],
            report.readers["migrated_meta"],
            report.batch_size,
            report.iterations_per_epoch,
        )
    ):
        report.findings.append(Finding(sev, msg))


def _same_as_eager(report: PairReport, workdir: str, tag: str, first: int = 0) -> list[str]:
    """Differences between the migrated eager run and a second run written as ``tag`` (steps
    ``first`` to the end)."""
    from ndd_migrate.verify.compare import Comparator
    from ndd_migrate.verify.side import step_path

    cmp = Comparator()
    for k in range(first, report.iterations):
        cmp.add_step(
            k,
            _load_step(step_path(workdir, "migrated", k)),
            _load_step(step_path(workdir, tag, k)),
        )
    return [
        f"output {o.index}: {o.first_failure.reason} at step {o.first_failure.iteration}"
        for o in cmp.results()
        if not o.ok
    ] + cmp.structure_findings


def _seeding(report: PairReport, orig: dict, mig: dict, workdir: str) -> None:
    """Lost seeding (see :func:`ndd_migrate.verify.rng.seeding_findings`)."""
    from ndd_migrate.verify.rng import seeding_findings

    rerun = mig.get("rerun_random_calls")
    failures = _same_as_eager(report, workdir, "rerun") if rerun is not None else []
    seed = orig.get("pipeline_seed")
    report.random["pipeline_seed"] = seed
    report.random["deterministic"] = None if rerun is None else not failures and all(
        [c["words"] for c in a] == [c["words"] for c in b]
        for a, b in zip(mig.get("random_calls", []), rerun)
    )
    for sev, msg in seeding_findings(mig.get("random_calls", []), rerun, seed, failures):
        report.findings.append(Finding(sev, msg))


def _checkpoint_check(report: PairReport, workdir: str, found: dict) -> None:
    """A migrated generator saved after ``at`` steps and restored must give the uninterrupted
    run's steps from ``at`` on, and its checkpoint must hold every reader and generator it uses
    (:mod:`.checkpointing`)."""
    at = found["at"]
    for what in found["unregistered"]:
        report.findings.append(
            Finding(
                "error",
                f"checkpoint: {what} is not registered in the checkpoint (checkpoint.register): "
                "a restored run does not restore its state",
            )
        )
    failures = _same_as_eager(report, workdir, "resumed", first=at)
    if failures:
        detail = (
            f"saved after {at} step(s) and restored, the migrated generator does not continue "
            f"where it stopped: {'; '.join(failures)}"
        )
        report.findings.append(Finding("error", detail))
    else:
        detail = (
            f"saved after {at} step(s) and restored ({', '.join(found['names']) or 'nothing registered'}): "
            f"the next {report.iterations - at} step(s) equal the uninterrupted run"
        )
    report.checkpoint = {
        "checked": True,
        "at": at,
        "registered": found["names"],
        "unregistered": found["unregistered"],
        "equal": not failures,
        "detail": detail,
    }


def _capture_check(report: PairReport, workdir: str) -> None:
    """``capture=True`` must reproduce the eager run of the migrated code exactly."""
    from ndd_migrate.verify.compare import Comparator
    from ndd_migrate.verify.side import step_path

    cap = Comparator()
    for k in range(report.iterations):
        cap.add_step(
            k,
            _load_step(step_path(workdir, "migrated", k)),
            _load_step(step_path(workdir, "captured", k)),
        )
    failures = [
        f"output {o.index}: {o.first_failure.reason} at step {o.first_failure.iteration}"
        for o in cap.results()
        if not o.ok
    ] + cap.structure_findings
    if failures:
        detail = "captured run differs from the eager run: " + "; ".join(failures)
        report.findings.append(Finding("error", detail))
    else:
        detail = "captured run identical to the eager run"
    report.capture = {"checked": True, "equal": not failures, "detail": detail}


def _timing(report: PairReport, orig: dict, mig: dict) -> None:
    from ndd_migrate.verify.timing import Throughput, ratio

    to, tm = orig.get("timing"), mig.get("timing")
    if not (to or tm):
        return
    report.timing = {
        "original": to,
        "migrated": tm,
        "ratio": ratio(Throughput(**to) if to else None, Throughput(**tm) if tm else None),
    }


def _verdict(report: PairReport) -> str:
    if report.error is not None:
        return ERROR
    if any(not o.ok for o in report.outputs) or any(f.severity == "error" for f in report.findings):
        return DIFFERENT
    if any(o.samples_within_tolerance for o in report.outputs):
        return EQUAL_TOL
    return EQUAL


# --------------------------------------------------------------------------------------------
# Pairing functions of two files


def _parse_pipeline(pipeline: str | None) -> tuple[str, str] | None:
    if pipeline is None:
        return None
    if ":" in pipeline:
        a, b = pipeline.split(":", 1)
        return a.strip(), b.strip()
    return pipeline.strip(), pipeline.strip()


def _pairs_for(
    original_path: str,
    original_source: str,
    original_display: str | None,
    migrated_path: str,
    migrated_source: str | None,
    pipeline: str | None,
) -> tuple[list[tuple[SideSpec, SideSpec]], list[PairReport]]:
    """Specs of the pairs to run, and reports for pairs that cannot be formed."""
    from ndd_migrate.verify.loading import factories, pipeline_classes, top_level_functions

    written = original_source
    runnable_source = _hand_built_as_functions(original_source)
    if runnable_source is not None:
        original_source = runnable_source
        original_display = original_display or original_path
    explicit = _parse_pipeline(pipeline)
    if explicit is not None:
        names = [explicit]
    else:
        funcs = top_level_functions(original_source, original_display or original_path)
        names = [(f.name, f.name) for f in funcs if f.is_pipeline_def]
        # A legacy subclass becomes a generator function of the same name.
        names += [(c, c) for c in pipeline_classes(original_source, original_display or original_path)]
        # A factory building a graph by hand returns the generator it defines once migrated.
        if runnable_source is not None:
            names += [(f, f) for f in factories(original_source, original_display or original_path)]
        if not names and migrated_source is not None:
            theirs = [
                f.name for f in top_level_functions(migrated_source, migrated_path)
                if f.is_pipeline_def
            ]
            if theirs:
                raise SetupError(
                    "swapped",
                    f"ORIGINAL and MIGRATED look swapped: {original_display or original_path} has "
                    f"no @pipeline_def function but {migrated_path} has "
                    f"({', '.join(theirs)}); give the pipeline-mode file first",
                )
        if not names:
            raise SetupError(
                "no-function",
                f"{original_display or original_path} has no @pipeline_def function or "
                "Pipeline subclass; "
                "name the pipeline with --pipeline NAME",
            )
    migrated_names = None
    if explicit is None and migrated_source is not None:
        migrated_names = {f.name for f in top_level_functions(migrated_source, migrated_path)}
    runnable, missing = [], []
    for orig_name, mig_name in names:
        o = SideSpec(
            original_path,
            orig_name,
            source=runnable_source,
            display=original_display,
            written=written if runnable_source is not None else None,
        )
        m = SideSpec(migrated_path, mig_name)
        if migrated_names is not None and mig_name not in migrated_names:
            rep = PairReport(name=orig_name, original=o.label, migrated=m.label)
            rep.error = ErrorInfo(
                "no-function",
                f"the migrated file {migrated_path} has no function `{mig_name}` "
                f"(pipelines are paired by name)",
                side="migrated",
            )
            missing.append(rep)
        else:
            runnable.append((o, m))
    return runnable, missing


def _hand_built_as_functions(source: str) -> str | None:
    """The original with each graph built by hand (``pipe = Pipeline(...)``, ``with pipe:``,
    ``pipe.set_outputs(...)``) as the ``@pipeline_def`` function the migration reads it as
    (:func:`ndd_migrate.model.sources.hand_built.desugar`: ``pipe_batches``, ``pipe_batches_2``, ... — the
    names the migrated generators keep); None when it has none."""
    import libcst as cst

    from ndd_migrate.model.sources import hand_built

    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return None  # loading reports it
    desugared, done = hand_built.desugar(module)
    return desugared.code if done.graphs else None


def _run_pairs(pairs, settings, tolerances, default, report: VerifyReport, source=None) -> None:
    for o, m in pairs:
        if source is not None and o.source is None:
            o = dataclasses.replace(o, source=source)
        report.pairs.append(
            verify_pair(o, m, settings, tolerances=tolerances, default_tolerance=default)
        )


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
        pairs, missing = _pairs_for(
            original_path, original_source, None, migrated_path, migrated_source, pipeline
        )
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
            pairs, missing = _pairs_for(
                path, base_source, f"{path}@{rev}", path, migrated_source, pipeline
            )
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
        raise SetupError(
            "no-function", f"cannot find the file that defines the {kind} function `{name}`"
        )
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
    report.pairs.append(
        verify_pair(o, m, settings, tolerances=tolerances, default_tolerance=default)
    )
    if report.exit_code == 2:
        raise CouldNotVerify(report)
    if report.exit_code == 1:
        raise NotEquivalent(report)
    return report
