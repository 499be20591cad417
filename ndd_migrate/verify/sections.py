"""The sections of one pair's report, from what the two workers wrote.

:func:`~ndd_migrate.verify.api.verify_pair` runs the two sides (:mod:`.worker`); this module turns
their results and step files into the report: where each side ended, the outputs compared step by
step (:mod:`.compare`), the random ops and readers, the seeding, the devices, the capture and
checkpoint checks, the throughput, and the verdict. Nothing here imports DALI.
"""

from __future__ import annotations

import os
import pickle

from ndd_migrate.verify.errors import SetupError
from ndd_migrate.verify.model import Settings, SideSpec
from ndd_migrate.verify.report import (
    DIFFERENT,
    EQUAL,
    EQUAL_TOL,
    ERROR,
    ErrorInfo,
    Finding,
    PairReport,
)


def error_info(result: dict, side: str) -> ErrorInfo:
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


def not_exercised(spec: SideSpec) -> list[str]:
    from ndd_migrate.verify.loading import read_source
    from ndd_migrate.verify.scope import uses_outside

    try:
        source = spec.source if spec.source is not None else read_source(spec.path)
    except (OSError, SetupError):
        return []
    return uses_outside(source, spec.display or spec.path, spec.function.split(".")[-1])


def compare_runs(
    report: PairReport,
    orig: dict,
    mig: dict,
    settings: Settings,
    workdir: str,
    tolerances,
    default_tolerance,
) -> None:
    """Every section after the ending, for two sides that both ran: the outputs, the random ops
    and readers, the seeding, the devices when CPU-lowered, and the capture, checkpoint and
    throughput checks where they ran."""
    lowered = mig["lowered"]
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


def compare_ends(report: PairReport, orig: dict, mig: dict, epochs: int | None) -> None:
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
    for msg in comparator.structure_findings + comparator.order_findings():
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
    report.random["deterministic"] = (
        None
        if rerun is None
        else not failures
        and all([c["words"] for c in a] == [c["words"] for c in b] for a, b in zip(mig.get("random_calls", []), rerun))
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


def verdict_of(report: PairReport) -> str:
    if report.error is not None:
        return ERROR
    if any(not o.ok for o in report.outputs) or any(f.severity == "error" for f in report.findings):
        return DIFFERENT
    if any(o.samples_within_tolerance for o in report.outputs):
        return EQUAL_TOL
    return EQUAL
