"""The worker process: runs one side and writes what it saw.

``python -m ndd_migrate.verify.worker JOB RESULT`` — ``JOB`` is a pickle written by
:mod:`ndd_migrate.verify.runner`; ``RESULT`` a pickle this process writes. Each step's outputs go to
their own file in the job's directory, so neither process ever holds all steps in memory.

Why a process per side: the two sides must not share DALI state (thread pools, the dynamic-mode
operator cache, our patches), a crash or hang in user code must not take the caller down, and
a timeout must be able to kill it. The migrated (ndd) side runs first: it records the random
states and reader seeds the pipeline side then receives (see :mod:`~ndd_migrate.verify.rng` and
:mod:`~ndd_migrate.verify.readers`).

Diagnostics for a side that never writes its result: the current phase (``step 3``) is kept in a
status file, and ``faulthandler`` writes every thread's Python stack to a file on a fatal signal
and shortly before the parent's timeout, so a crash or a hang still points at a line of user code.
"""

from __future__ import annotations

import contextlib
import dataclasses
import faulthandler
import inspect
import os
import pickle
import sys
import traceback
from typing import Any

from ndd_migrate.verify.ending import close_generator
from ndd_migrate.verify.errors import INSTALL_HINT, SetupError
from ndd_migrate.verify.loading import find_function, load_module, user_location
from ndd_migrate.verify.model import DEFAULT_ITERATIONS, Settings, SideSpec


def step_path(directory: str, tag: str, index: int) -> str:
    return os.path.join(directory, f"{tag}_{index:05d}.pkl")


def _write_pickle(path: str, obj: Any) -> None:
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, path)


class Status:
    """The phase the worker is in, readable by the parent after a timeout or crash."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.phase = "starting"

    def __call__(self, phase: str) -> None:
        self.phase = phase
        with open(self.path, "w") as f:
            f.write(phase)


# --------------------------------------------------------------------------------------------
# Calling the user's function


def _accepts(func: Any, name: str) -> bool:
    if getattr(func, "_is_pipeline_def", False):
        return True  # create_pipeline(*args, **kwargs) passes Pipeline arguments through
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return True
    params = sig.parameters
    if name in params and params[name].kind in (
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.KEYWORD_ONLY,
    ):
        return True
    return any(p.kind == inspect.Parameter.VAR_KEYWORD for p in params.values())


def call_kwargs(func: Any, settings: Settings, device_id: int | None, label: str):
    """The keyword arguments ``verify`` passes (docs/target-shape.md: ``batch_size``,
    ``device_id``, ``seed`` on top of the user's own), minus those the function cannot take —
    a migrated function without randomness has no ``seed`` parameter. Returns (kwargs, notes)."""
    kwargs = {**settings.defaults, **settings.kwargs}
    notes = []
    wanted = {"device_id": device_id}
    if settings.batch_size is not None:
        wanted["batch_size"] = settings.batch_size
    if settings.seed is not None:
        wanted["seed"] = settings.seed
    for name, value in wanted.items():
        if _accepts(func, name):
            kwargs[name] = value
        elif name != "device_id" or value is not None:
            notes.append(f"{label} takes no `{name}` parameter; {name}={value!r} not passed")
    return kwargs, notes


# --------------------------------------------------------------------------------------------
# Sides


def batches_of(value: Any) -> tuple[Any, dict | None]:
    """(the step generator, the reader metadata) of what a migrated function returned: the
    generator itself, or — the framework-iterator shape (docs/target-shape.md) — the pair
    ``(reader.get_metadata(), batches())``. (None, None) for anything else."""
    if hasattr(value, "__next__"):
        return value, None
    if (
        isinstance(value, tuple)
        and len(value) == 2
        and isinstance(value[0], dict)
        and hasattr(value[1], "__next__")
    ):
        return value[1], dict(value[0])
    return None, None


def _resolve_device(settings: Settings) -> bool:
    """True when the run is CPU-lowered."""
    from nvidia.dali import backend

    try:
        gpus = backend.GetCUDADeviceCount()
    except Exception:
        gpus = 0
    if settings.device == "gpu" and gpus == 0:
        raise SetupError(
            "no-gpu", "--device gpu was requested but no GPU is visible; use --device cpu or auto"
        )
    return settings.device == "cpu" or (settings.device == "auto" and gpus == 0)


def run_migrated(job: dict, result: dict, status: Status) -> None:
    from ndd_migrate.verify.lowering import NddLowering
    from ndd_migrate.verify.outputs import ndd_step
    from ndd_migrate.verify.readers import NddReaders
    from nvidia.dali.experimental.dynamic import random as ndd_random

    from ndd_migrate.verify.patching import Patches
    from ndd_migrate.verify.rng import (
        NddRandomRecorder,
        default_rng_state,
        restore_default_rng,
        track_seeding,
    )

    settings: Settings = job["settings"]
    spec: SideSpec = job["spec"]
    if settings.from_schema:
        from ndd_migrate.verify.callargs import resolve

        values, notes = resolve(settings.from_schema)
        settings = dataclasses.replace(settings, defaults={**values, **settings.defaults})
        result["defaults"] = values
        result["notes"].extend(notes)
    # Before the user's module is imported: a module-level set_seed() must be seen.
    track_seeding(Patches(), ndd_random)
    lowered = _resolve_device(settings)
    result["lowered"] = lowered
    device_id = None if lowered else settings.device_id
    reader_seed = settings.effective_reader_seed

    ndd_lowering = NddLowering() if lowered else None
    with ndd_lowering if ndd_lowering else contextlib.nullcontext():
        status("loading")
        func, kwargs = _load_side(spec, settings, device_id, "migrated", result)

        def start(**extra):
            value = func(*settings.args, **kwargs, **extra)
            gen, meta = batches_of(value)
            if meta is not None:
                result.setdefault("returned_meta", meta)
            if gen is None:
                gen = value
                from nvidia.dali.pipeline import Pipeline

                if isinstance(gen, Pipeline):
                    raise SetupError(
                        "swapped",
                        f"migrated `{spec.function}` returned a DALI Pipeline: ORIGINAL and "
                        "MIGRATED look swapped (give the pipeline-mode code first)",
                    )
                raise SetupError(
                    "bad-shape",
                    f"migrated `{spec.function}` returned a {type(gen).__name__}, not a generator: "
                    "the migrated function must yield one tuple of batches per step, or return "
                    "(reader metadata, that generator) (docs/target-shape.md)",
                )
            return gen

        default_state = default_rng_state(ndd_random)
        with NddReaders(reader_seed) as readers, NddRandomRecorder() as recorder:
            status("calling the function")
            gen = start()
            target = settings.iterations or (None if settings.epochs else DEFAULT_ITERATIONS)
            steps, epoch_starts, epochs_touched, ended = 0, [], 0, None
            while target is None or steps < target:
                if settings.epochs and not readers.readers and steps >= settings.max_feed_steps:
                    # No reader: the epoch is the feed (.ending); the original side runs as
                    # many steps and shows whether it ends.
                    break
                if steps >= settings.max_iterations:
                    raise SetupError(
                        "epochs",
                        f"{settings.epochs} epoch(s) not reached after {steps} steps",
                    )
                status(f"step {steps}")
                if steps:
                    recorder.next_step()
                    if ndd_lowering:
                        ndd_lowering.recording = False
                before = readers.primary_epochs
                readers.step = steps
                try:
                    out = next(gen)
                except StopIteration:
                    # Where a legacy iter_setup raised StopIteration (.ending); the original
                    # side must end at the same step.
                    recorder.drop_last_step()
                    ended = steps
                    break
                if settings.epochs and any(s == steps for s, _ in readers.created_in_loop()):
                    # A reader made inside the loop: the first reader's epochs never advance
                    # again, so --epochs would wait forever. Stop; the finding says why.
                    recorder.drop_last_step()
                    break
                if readers.primary_epochs != before:
                    epoch_starts.append(steps)
                if settings.epochs:
                    if readers.readers and readers.primary_epochs > settings.epochs:
                        # This step opened epoch N+1: not compared, its random calls forgotten.
                        recorder.drop_last_step()
                        epoch_starts.pop()
                        break
                epochs_touched = readers.primary_epochs
                host, step_notes = ndd_step(out)
                for note in step_notes:
                    if note not in result["notes"]:
                        result["notes"].append(note)
                _write_pickle(step_path(job["dir"], "migrated", steps), host)
                steps += 1
            result["iterations"] = steps
            result["ended_at"] = ended
            result["epochs"] = epochs_touched or (1 if settings.epochs and ended is not None else 0)
            result["iterations_per_epoch"] = (
                epoch_starts[1] - epoch_starts[0] if len(epoch_starts) >= 2
                # no reader: the one epoch is the feed, up to its end (.ending)
                else steps if settings.epochs and ended is not None and not readers.readers
                else None
            )
            result["random_calls"] = [[c.to_dict() for c in s] for s in recorder.steps[:steps]]
            result["readers"] = [r.to_dict() for r in readers.records]
            result["reader_meta"] = readers.metadata()
            result["readers_in_loop"] = readers.created_in_loop()
            result["devices"] = ndd_lowering.devices if ndd_lowering else []
            if ndd_lowering:
                ndd_lowering.recording = False
            close_generator(gen)

        from ndd_migrate.verify import checkpointing

        at = checkpointing.save_point(result["iterations"], epoch_starts)
        if at is not None and checkpointing.takes_checkpoint(func):
            status("checkpoint check")

            def write_resumed(k, out):
                _write_pickle(step_path(job["dir"], "resumed", k), ndd_step(out)[0])

            result["checkpoint"] = checkpointing.run(
                start, at, result["iterations"], reader_seed, write_resumed, status
            )

        if settings.align_random and any(result["random_calls"]):
            # Deterministic for a given seed? A second run from scratch must draw the same
            # states (the parent decides whether that matters: it does when the original is
            # seeded). The default generator is NOT reset: code that relies on it unseeded is
            # exactly what this finds.
            status("determinism check")
            with NddReaders(reader_seed), NddRandomRecorder() as again:
                gen = start()
                for k in range(result["iterations"]):
                    status(f"determinism check, step {k}")
                    if k:
                        again.next_step()
                    host, _ = ndd_step(next(gen))
                    _write_pickle(step_path(job["dir"], "rerun", k), host)
                close_generator(gen)
            result["rerun_random_calls"] = [
                [c.to_dict() for c in s] for s in again.steps[: result["iterations"]]
            ]

        if settings.capture:
            status("capture check")
            # Same default-generator stream as the eager run: an unseeded migration that draws
            # from it is still one program, and capture must reproduce it.
            restore_default_rng(ndd_random, default_state)
            with NddReaders(reader_seed, force_capture=True):
                gen = start()
                for k in range(result["iterations"]):
                    status(f"capture check, step {k}")
                    host, _ = ndd_step(next(gen))
                    _write_pickle(step_path(job["dir"], "captured", k), host)
                close_generator(gen)
            result["captured"] = True

        if settings.bench:
            from ndd_migrate.verify.timing import measure, ndd_stepper

            status("benchmark")
            with NddReaders(reader_seed, force_capture=settings.capture):
                gen = start()
                try:
                    result["timing"] = measure(ndd_stepper(gen), settings.bench).to_dict()
                except StopIteration:
                    raise SetupError("bench", _BENCH_END.format(settings.bench)) from None
                if settings.capture:
                    result["timing"]["note"] = "next_epoch(capture=True)"
                close_generator(gen)


#: --bench on a side that ends (a feed of iter_setup): the timed steps must all exist.
_BENCH_END = (
    "--bench: the generator ended (StopIteration) before the {0.warmup} warm-up and "
    "{0.runs} × {0.iterations} timed steps; time a feed at least that long"
)


def run_original(job: dict, result: dict, status: Status) -> None:
    from nvidia.dali.pipeline import Pipeline

    from ndd_migrate.verify.lowering import NoCpuBackend, PipelineLowering
    from ndd_migrate.verify.outputs import pipeline_step
    from ndd_migrate.verify.readers import PipelineReaderSeeds
    from ndd_migrate.verify.rng import PipelineRandomFeeder

    settings: Settings = job["settings"]
    settings = dataclasses.replace(settings, defaults={**job.get("defaults", {}), **settings.defaults})
    spec: SideSpec = job["spec"]
    lowered = job["lowered"]
    result["lowered"] = lowered
    device_id = None if lowered else settings.device_id
    planned_seeds = job["reader_seeds"]
    default_seed = settings.effective_reader_seed
    lowering = PipelineLowering() if lowered else None

    with lowering if lowering else contextlib.nullcontext():
        status("loading")
        func, kwargs = _load_side(spec, settings, device_id, "original", result)

        def check_lowering():
            if lowering and lowering.no_cpu_backend:
                raise NoCpuBackend(lowering.no_cpu_backend, "original")

        def make_pipeline():
            pipe = func(*settings.args, **kwargs)
            check_lowering()
            if not isinstance(pipe, Pipeline):
                raise SetupError(
                    "bad-shape",
                    f"original `{spec.function}` returned a {type(pipe).__name__}, not a DALI "
                    "Pipeline (is it a @pipeline_def function?)",
                )
            return pipe

        def build(pipe):
            try:
                pipe.build()
            except Exception:
                check_lowering()  # a Pipeline subclass defines its graph in build()
                raise
            check_lowering()

        states = job["states"] if settings.align_random else None
        with (
            PipelineReaderSeeds(planned_seeds, default_seed) as seeds,
            PipelineRandomFeeder(states) as feeder,
        ):
            status("defining the graph")
            pipe = make_pipeline()
            seed = getattr(pipe, "_seed", None)
            result["pipeline_seed"] = None if seed is None or seed == -1 else int(seed)
            status("build")
            build(pipe)
            ended = None
            for k in range(job["iterations"] + bool(job.get("probe_end"))):
                status(f"step {k}")
                try:
                    outputs = pipe.run()
                except StopIteration:  # iter_setup ran out (.ending)
                    ended = k
                    break
                if k < job["iterations"]:  # the probe only asks whether it ends
                    _write_pickle(step_path(job["dir"], "original", k), pipeline_step(outputs))
            result["ended_at"] = ended
            result["iterations"] = job["iterations"] if ended is None else ended
            result["random_ops"] = [o.to_dict() for o in feeder.ops]
            result["devices"] = lowering.devices if lowering else []
            result["readers"] = [r.to_dict() for r in seeds.records]
            try:
                meta = pipe.reader_meta()
                result["reader_meta"] = [dict(v, name=k) for k, v in meta.items()]
            except Exception:
                result["reader_meta"] = []
            del pipe

        if settings.bench:
            from ndd_migrate.verify.timing import measure, pipeline_stepper

            status("benchmark")
            with PipelineReaderSeeds(planned_seeds, default_seed):
                pipe = make_pipeline()
                stepper = pipeline_stepper(pipe)
            try:
                result["timing"] = measure(stepper, settings.bench).to_dict()
            except StopIteration:
                raise SetupError("bench", _BENCH_END.format(settings.bench)) from None
            del pipe


# --------------------------------------------------------------------------------------------
# Entry point


def _error(result: dict, kind: str, message: str, **extra) -> None:
    result["ok"] = False
    result["error"] = {"kind": kind, "message": message, **extra}


def _wait_for_go(job: dict, status: Status) -> bool:
    """Pre-started workers (the original side starts while the migrated side runs, so that its
    DALI import overlaps) wait here for the rest of their job. False: the parent gave up."""
    import time

    status("waiting for the migrated side")
    path = job["go_path"]
    while not os.path.exists(path):
        time.sleep(0.02)
    with open(path, "rb") as f:
        go = pickle.load(f)
    if go.get("abort"):
        return False
    job.update(go)
    return True


def _arm_fault_dump(job: dict) -> None:
    """Dump every thread's stack shortly before the parent's deadline (``job["deadline"]``, wall
    clock), so that a hang is located even though the process gets killed."""
    import time

    timeout = job["settings"].timeout
    left = job.get("deadline", time.time() + timeout) - time.time()
    margin = min(1.5, timeout * 0.1)
    faulthandler.dump_traceback_later(
        max(0.1, left - margin), file=sys.stderr if _FAULTS is None else _FAULTS
    )


_FAULTS = None


def _format_user_traceback(exc: BaseException, tb: traceback.StackSummary) -> str:
    """The traceback's frames without the worker's own outer frames: it starts where user code
    (or DALI called by it) begins."""
    own = os.path.dirname(os.path.abspath(__file__))
    start = 0
    while start < len(tb) - 1 and os.path.abspath(tb[start].filename).startswith(own):
        start += 1
    lines = ["Traceback (most recent call last):\n"]
    lines += traceback.format_list(tb[start:])
    return "".join(lines)  # the exception itself is the error's message


_WRAPPERS = ("An error happened during asynchronous execution",)


def _actionable(exc: BaseException) -> BaseException:
    """The exception that says what went wrong: dynamic mode re-raises an operator's error as
    "An error happened during asynchronous execution" *from* DALI's own message ("Slice can't be
    placed out of bounds ..."), which is the one a user can act on."""
    seen = 0
    while seen < 10 and any(w in str(exc) for w in _WRAPPERS):
        inner = exc.__cause__ or exc.__context__
        if inner is None:
            break
        exc, seen = inner, seen + 1
    return exc


def _user_frame(exc: BaseException, files: set) -> str | None:
    """The user's line in the traceback of the exception that says what went wrong: for a
    dynamic-mode operator error it starts with the call stack of the op's invocation."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename in files:
            return f"{frame.filename}:{frame.lineno}"
    return None


def run_job(job: dict) -> dict:
    side = job["side"]
    status = Status(job["status_path"])
    result: dict = {
        "ok": False,
        "side": side,
        "error": None,
        "notes": [],
        "user_files": [],
        "timing": None,
    }
    try:
        try:
            import nvidia.dali as dali
        except ImportError as e:
            _error(result, "missing-dali", f"DALI cannot be imported ({e}); {INSTALL_HINT}")
            return result
        result["dali_version"] = getattr(dali, "__version__", "?")
        if job.get("go_path"):
            import numpy  # noqa: F401 - warm up while waiting
            import nvidia.dali.fn  # noqa: F401
            import nvidia.dali.pipeline  # noqa: F401

            if not _wait_for_go(job, status):
                _error(result, "aborted", "the other side failed")
                return result
        _arm_fault_dump(job)
        if side == "migrated":
            run_migrated(job, result, status)
        else:
            run_original(job, result, status)
        result["ok"] = True
    except SetupError as e:
        _error(result, e.kind, str(e), location=e.location, phase=status.phase)
    except BaseException as e:  # user code: anything, SystemExit included
        from ndd_migrate.verify.lowering import NoCpuBackend, no_cpu_backend_from_error

        ncb = e if isinstance(e, NoCpuBackend) else None
        if ncb is None and result.get("lowered") and side == "migrated":
            ncb = no_cpu_backend_from_error(e)
        if ncb is not None:
            _error(result, "no-cpu-backend", str(ncb), ops=ncb.ops, phase=status.phase)
        else:
            tb = traceback.extract_tb(e.__traceback__)
            files = set(result["user_files"]) | {os.path.abspath(job["spec"].path)}
            shown = _actionable(e)
            _error(
                result,
                "exception",
                f"{type(shown).__name__}: {shown}".strip(),
                exception_type=type(e).__name__,
                location=(shown is not e and _user_frame(shown, files))
                or user_location(tb, files, str(e)),
                traceback=_format_user_traceback(e, tb),
                phase=status.phase,
            )
    return result


def main(argv: list[str]) -> int:
    global _FAULTS
    job_path, result_path = argv
    with open(job_path, "rb") as f:
        job = pickle.load(f)
    with open(job["faults_path"], "w") as faults:
        _FAULTS = faults
        faulthandler.enable(file=faults, all_threads=True)
        result = run_job(job)
        faulthandler.cancel_dump_traceback_later()
        _write_pickle(result_path, result)
        sys.stdout.flush()
        sys.stderr.flush()
        # DALI's thread pools and pipelines may take long to tear down; the result is written.
        os._exit(0)


def _load_side(spec, settings, device_id, kind: str, result: dict):
    """Load one side's module and function and its call arguments; record the file and notes.

    Shared by both sides so they are loaded, and report problems, the same way."""
    loaded = load_module(spec.path, source=spec.source, display=spec.display, mode=settings.load_mode)
    result["user_files"].append(loaded.filename)
    func = find_function(loaded, spec.function, kind=kind)
    kwargs, notes = call_kwargs(func, settings, device_id, f"{kind} `{spec.function}`")
    kwargs = _module_globals(loaded.module, func, kwargs, notes, kind)
    result["notes"].extend(notes)
    return func, kwargs


def _module_globals(module: Any, func: Any, kwargs: dict, notes: list, kind: str) -> dict:
    """``kwargs`` minus those naming no parameter of ``func`` but a top-level name of its module:
    those set the module's global instead. A graph built by hand in a script reads its data from
    module globals (``image_dir = sys.argv[1]``); the generator it migrates to takes no
    parameters and reads the same global."""
    from nvidia.dali.pipeline import Pipeline

    try:
        params = dict(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return kwargs
    if getattr(func, "_is_pipeline_def", False):
        params.update(inspect.signature(Pipeline.__init__).parameters)
    elif any(p.kind == inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return kwargs
    out = {}
    for name, value in kwargs.items():
        if name not in params and name in vars(module) and not callable(vars(module)[name]):
            setattr(module, name, value)
            notes.append(f"{kind}: the module global `{name}` set to {value!r}")
        else:
            out[name] = value
    return out


if __name__ == "__main__":  # pragma: no cover - run as a subprocess
    sys.exit(main(sys.argv[1:]))
