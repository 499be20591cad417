"""The migrated (dynamic-mode) side, run first in its worker (:mod:`~ndd_migrate.verify.worker`).

Its generator is stepped as the comparison needs, with every random state drawn
(:mod:`~ndd_migrate.verify.rng`) and every reader seed (:mod:`~ndd_migrate.verify.readers`)
recorded for the original side; then, as asked, the same generator again: saved and restored
(:mod:`~ndd_migrate.verify.checkpointing`), from scratch (is it deterministic?), captured, and
timed. Each run's steps go to their own files.
"""

from __future__ import annotations

import contextlib
from typing import Any

from ndd_migrate.verify.ending import close_generator
from ndd_migrate.verify.errors import SetupError
from ndd_migrate.verify.model import DEFAULT_ITERATIONS, Settings, SideSpec
from ndd_migrate.verify.side import (
    BENCH_END,
    Status,
    load_side,
    resolve_device,
    step_path,
    write_pickle,
)


def batches_of(value: Any) -> tuple[Any, dict | None]:
    """(the step generator, the reader metadata) of what a migrated function returned: the
    generator itself, or — the framework-iterator shape (docs/target-shape.md) — the pair
    ``(reader.get_metadata(), batches())``. (None, None) for anything else."""
    if hasattr(value, "__next__"):
        return value, None
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], dict) and hasattr(value[1], "__next__"):
        return value[1], dict(value[0])
    return None, None


def run_migrated(job: dict, result: dict, status: Status) -> None:
    from nvidia.dali.experimental.dynamic import random as ndd_random

    from ndd_migrate.verify.lowering import NddLowering
    from ndd_migrate.verify.patching import Patches
    from ndd_migrate.verify.rng import default_rng_state, track_seeding

    settings = job["settings"]
    spec: SideSpec = job["spec"]
    # Before the user's module is imported: a module-level set_seed() must be seen.
    track_seeding(Patches(), ndd_random)
    lowered = resolve_device(settings)
    result["lowered"] = lowered
    device_id = None if lowered else settings.device_id

    ndd_lowering = NddLowering() if lowered else None
    with ndd_lowering if ndd_lowering else contextlib.nullcontext():
        status("loading")
        func, kwargs = load_side(spec, settings, device_id, "migrated", result)
        start = _generator_starter(func, settings, kwargs, spec.function, result)
        default_state = default_rng_state(ndd_random)
        eager = _EagerRun(job, settings, result, status, ndd_lowering)
        eager.run(start)
        _checkpoint_run(func, start, eager.epoch_starts, job, settings, result, status)
        if settings.align_random and any(result["random_calls"]):
            _determinism_run(start, job, settings, result, status)
        if settings.capture or eager.asked_capture:  # the captured form as written is proven too
            _capture_run(start, default_state, job, settings, result, status)
        if settings.bench:
            _bench_migrated(start, settings, result, status)


def _generator_starter(func: Any, settings: Settings, kwargs: dict, name: str, result: dict):
    """``start(**extra)``: calls the migrated function and returns its step generator. Every run
    of the migrated side (eager, checkpoint, determinism, capture, bench) starts through it."""

    def start(**extra):
        value = func(*settings.args, **kwargs, **extra)
        gen, meta = batches_of(value)
        if meta is not None:
            result.setdefault("returned_meta", meta)
        if gen is None:
            _refuse_shape(value, name)
        return gen

    return start


def _refuse_shape(value: Any, name: str) -> None:
    """Raise for what a migrated function returned that is no step generator: a Pipeline (a
    pipeline ``migrate`` did not convert that pairing could not see as one, or the two files
    given the wrong way round) or anything else."""
    from nvidia.dali.pipeline import Pipeline

    if isinstance(value, Pipeline):
        raise SetupError(
            "not-migrated",
            f"migrated `{name}` returned a DALI Pipeline: it is still pipeline-mode code, which "
            "`migrate` did not convert (`ndd-migrate check` says why), or ORIGINAL and MIGRATED "
            "are given the wrong way round",
        )
    raise SetupError(
        "bad-shape",
        f"migrated `{name}` returned a {type(value).__name__}, not a generator: "
        "the migrated function must yield one tuple of batches per step, or return "
        "(reader metadata, that generator) (docs/target-shape.md)",
    )


class _EagerRun:
    """The compared run of the migrated side: its generator stepped until the iterations (or the
    ``--epochs``) are done, each step's outputs written to their file, the random calls and the
    readers recorded on the way."""

    def __init__(self, job: dict, settings: Settings, result: dict, status: Status, lowering) -> None:
        self.job = job
        self.settings = settings
        self.result = result
        self.status = status
        self.lowering = lowering
        self.steps = 0
        #: the steps at which the first reader started an epoch
        self.epoch_starts: list[int] = []
        self.epochs_touched = 0
        #: the step at which the generator raised StopIteration, None while it did not
        self.ended: int | None = None
        #: the code asked for `next_epoch(capture=True)` (this run is eager all the same)
        self.asked_capture = False

    def run(self, start) -> None:
        from ndd_migrate.verify.readers import NddReaders
        from ndd_migrate.verify.rng import NddRandomRecorder

        reader_seed = self.settings.effective_reader_seed
        with NddReaders(reader_seed) as readers, NddRandomRecorder() as recorder:
            self.status("calling the function")
            gen = start()
            self._step_through(gen, readers, recorder)
            self._record(readers, recorder)
            self.asked_capture = readers.asked_capture
            if self.lowering:
                self.lowering.recording = False
            close_generator(gen)

    def _step_through(self, gen, readers, recorder) -> None:
        settings = self.settings
        target = settings.iterations or (None if settings.epochs else DEFAULT_ITERATIONS)
        while target is None or self.steps < target:
            if not self._may_step(readers):
                break
            self.status(f"step {self.steps}")
            if self.steps:
                recorder.next_step()
                if self.lowering:
                    self.lowering.recording = False
            before = readers.primary_epochs
            readers.step = self.steps
            try:
                out = next(gen)
            except StopIteration:
                # Where a legacy iter_setup raised StopIteration (.ending); the original
                # side must end at the same step.
                recorder.drop_last_step()
                self.ended = self.steps
                break
            if self._reader_made_in_loop(readers):
                recorder.drop_last_step()
                break
            if readers.primary_epochs != before:
                self.epoch_starts.append(self.steps)
            if self._opened_an_epoch_too_many(readers):
                # This step opened epoch N+1: not compared, its random calls forgotten.
                recorder.drop_last_step()
                self.epoch_starts.pop()
                break
            self.epochs_touched = readers.primary_epochs
            self._write_step(out)
            self.steps += 1

    def _may_step(self, readers) -> bool:
        """Before a step: False when a feed has run long enough; raises when ``--epochs`` are not
        reached within ``max_iterations`` steps."""
        settings = self.settings
        if settings.epochs and not readers.readers and self.steps >= settings.max_feed_steps:
            # No reader: the epoch is the feed (.ending); the original side runs as
            # many steps and shows whether it ends.
            return False
        if self.steps >= settings.max_iterations:
            raise SetupError(
                "epochs",
                f"{settings.epochs} epoch(s) not reached after {self.steps} steps",
            )
        return True

    def _reader_made_in_loop(self, readers) -> bool:
        """A reader made inside the loop: the first reader's epochs never advance again, so
        ``--epochs`` would wait forever. The run stops there; the finding says why."""
        return bool(self.settings.epochs) and any(s == self.steps for s, _ in readers.created_in_loop())

    def _opened_an_epoch_too_many(self, readers) -> bool:
        epochs = self.settings.epochs
        return bool(epochs) and bool(readers.readers) and readers.primary_epochs > epochs

    def _write_step(self, out) -> None:
        from ndd_migrate.verify.outputs import ndd_step

        host, step_notes = ndd_step(out)
        for note in step_notes:
            if note not in self.result["notes"]:
                self.result["notes"].append(note)
        write_pickle(step_path(self.job["dir"], "migrated", self.steps), host)

    def _record(self, readers, recorder) -> None:
        result, steps = self.result, self.steps
        result["iterations"] = steps
        result["ended_at"] = self.ended
        result["epochs"] = self.epochs_touched or (1 if self.settings.epochs and self.ended is not None else 0)
        result["iterations_per_epoch"] = self._iterations_per_epoch(readers)
        result["random_calls"] = [[c.to_dict() for c in s] for s in recorder.steps[:steps]]
        result["readers"] = [r.to_dict() for r in readers.records]
        result["reader_meta"] = readers.metadata()
        result["readers_in_loop"] = readers.created_in_loop()
        result["devices"] = self.lowering.devices if self.lowering else []

    def _iterations_per_epoch(self, readers) -> int | None:
        if len(self.epoch_starts) >= 2:
            return self.epoch_starts[1] - self.epoch_starts[0]
        if self.settings.epochs and self.ended is not None and not readers.readers:
            return self.steps  # no reader: the one epoch is the feed, up to its end (.ending)
        return None


def _checkpoint_run(func, start, epoch_starts: list[int], job, settings, result, status) -> None:
    """Save the migrated generator mid-run and restore it, when it takes a ``checkpoint``
    (:mod:`.checkpointing`); the resumed steps go to their own files."""
    from ndd_migrate.verify import checkpointing
    from ndd_migrate.verify.outputs import ndd_step

    at = checkpointing.save_point(result["iterations"], epoch_starts)
    if at is None or not checkpointing.takes_checkpoint(func):
        return
    status("checkpoint check")

    def write_resumed(k, out):
        write_pickle(step_path(job["dir"], "resumed", k), ndd_step(out)[0])

    result["checkpoint"] = checkpointing.run(
        start, at, result["iterations"], settings.effective_reader_seed, write_resumed, status
    )


def _determinism_run(start, job, settings, result, status) -> None:
    """Deterministic for a given seed? A second run from scratch must draw the same states (the
    parent decides whether that matters: it does when the original is seeded). The default
    generator is NOT reset: code that relies on it unseeded is exactly what this finds."""
    from ndd_migrate.verify.outputs import ndd_step
    from ndd_migrate.verify.readers import NddReaders
    from ndd_migrate.verify.rng import NddRandomRecorder

    status("determinism check")
    with NddReaders(settings.effective_reader_seed), NddRandomRecorder() as again:
        gen = start()
        for k in range(result["iterations"]):
            status(f"determinism check, step {k}")
            if k:
                again.next_step()
            host, _ = ndd_step(next(gen))
            write_pickle(step_path(job["dir"], "rerun", k), host)
        close_generator(gen)
    result["rerun_random_calls"] = [[c.to_dict() for c in s] for s in again.steps[: result["iterations"]]]


def _capture_run(start, default_state, job, settings, result, status) -> None:
    """The migrated side again, every reader forced to ``next_epoch(capture=True)``; its steps
    go to their own files, for the parent to compare with the eager run."""
    from nvidia.dali.experimental.dynamic import random as ndd_random

    from ndd_migrate.verify.loading import prefetching_ahead
    from ndd_migrate.verify.outputs import ndd_step
    from ndd_migrate.verify.readers import NddReaders
    from ndd_migrate.verify.rng import restore_default_rng

    status("capture check")
    # Same default-generator stream as the eager run: an unseeded migration that draws
    # from it is still one program, and capture must reproduce it.
    restore_default_rng(ndd_random, default_state)
    with NddReaders(settings.effective_reader_seed, capture=True), prefetching_ahead():
        gen = start()
        for k in range(result["iterations"]):
            status(f"capture check, step {k}")
            host, _ = ndd_step(next(gen))
            write_pickle(step_path(job["dir"], "captured", k), host)
        close_generator(gen)
    result["captured"] = True


def _bench_migrated(start, settings, result, status) -> None:
    from ndd_migrate.verify.readers import NddReaders
    from ndd_migrate.verify.timing import measure, ndd_stepper

    status("benchmark")
    with NddReaders(settings.effective_reader_seed, capture=True if settings.capture else None):
        gen = start()
        try:
            result["timing"] = measure(ndd_stepper(gen), settings.bench).to_dict()
        except StopIteration:
            raise SetupError("bench", BENCH_END.format(settings.bench)) from None
        if settings.capture:
            result["timing"]["note"] = "next_epoch(capture=True)"
        close_generator(gen)
