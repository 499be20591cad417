"""The checkpoint contract of a migrated generator: saved mid-epoch, restored, it continues exactly.

A pipeline with checkpointing migrates to a generator function with a keyword-only
``checkpoint=None`` that registers its reader and its RNGs in an ``ndd.checkpoint.Checkpoint``
(docs/target-shape.md, "Checkpointing"). The outputs compared with the pipeline do not show whether
that works: a reader or an RNG left out of the checkpoint changes nothing until a run is resumed.
So when the migrated function takes ``checkpoint``, the worker also (DALI 2.4.0
``experimental/dynamic/checkpoint.py``):

1. runs it with a fresh ``Checkpoint`` for ``at`` steps (:func:`save_point`: mid-run, never the
   first step of an epoch), then ``collect()`` + ``serialize()``, and closes it;
2. starts it again from scratch with a ``Checkpoint`` that ``deserialize``d that state (as the
   migrated call sites do) and writes the steps it gives as ``resumed`` step files;
3. records which readers and which generators the saving run used and the checkpoint does not
   hold (``register`` is keyed by the object: ``Checkpoint._ops``).

The parent then compares the resumed steps with the uninterrupted run's steps ``at..N-1``
(:func:`ndd_migrate.verify.sections._checkpoint_check`). Both runs get the same reader seeds as the main
run (:class:`~ndd_migrate.verify.readers.NddReaders`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any


def takes_checkpoint(func: Any) -> bool:
    """True when the migrated function has a ``checkpoint`` parameter of its own (``**kwargs``
    does not count: passing one where nothing registers would prove nothing)."""
    try:
        param = inspect.signature(func).parameters.get("checkpoint")
    except (TypeError, ValueError):
        return False
    return param is not None and param.kind in (
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.KEYWORD_ONLY,
    )


def save_point(iterations: int, epoch_starts: list[int]) -> int | None:
    """The number of steps taken before saving: half the run, moved off an epoch's first step
    (a state saved at an epoch boundary would not test the position inside an epoch). None when
    the run is too short to leave a step after it."""
    if iterations < 2:
        return None
    at = iterations // 2
    while at in epoch_starts and at + 1 < iterations:
        at += 1
    return at


def _describe_generator(index: int, steps: list) -> str:
    for step in steps:
        for call in step:
            if call.rng_index == index:
                if call.rng == "default":
                    return f"the default generator ({call.display} has no rng=)"
                return f"the RNG {call.display} draws from"
    return f"generator #{index}"


def run(
    start: Callable[..., Any],
    at: int,
    iterations: int,
    reader_seed: int,
    write_step: Callable[[int, Any], None],
    status: Callable[[str], None],
) -> dict:
    """Steps 1–3 of the module docstring. ``start(checkpoint=...)`` gives the migrated generator;
    ``write_step(k, outputs)`` stores resumed step ``k`` (numbered as in the uninterrupted run)."""
    from nvidia.dali.experimental.dynamic import checkpoint as ndd_checkpoint

    from ndd_migrate.verify.ending import close_generator
    from ndd_migrate.verify.readers import NddReaders
    from ndd_migrate.verify.rng import NddRandomRecorder

    saving = ndd_checkpoint.Checkpoint()
    with NddReaders(reader_seed) as readers, NddRandomRecorder() as recorder:
        gen = start(checkpoint=saving)
        for k in range(at):
            status(f"checkpoint check, step {k}")
            if k:
                recorder.next_step()
            next(gen)
        saving.collect()
        state = saving.serialize()
        registered = {id(op) for op in saving._ops.values()}
        unregistered = [
            f"reader #{i} ({record.op}{f' {record.name!r}' if record.name else ''})"
            for i, (reader, record) in enumerate(zip(readers.readers, readers.records))
            if id(reader) not in registered
        ] + [
            _describe_generator(i, recorder.steps)
            for i, rng in enumerate(recorder.generators)
            if id(rng) not in registered
        ]
        close_generator(gen)

    resumed = ndd_checkpoint.Checkpoint()
    resumed.deserialize(state)
    with NddReaders(reader_seed):
        gen = start(checkpoint=resumed)
        for k in range(at, iterations):
            status(f"checkpoint check, resumed step {k}")
            write_step(k, next(gen))
        close_generator(gen)
    return {"at": at, "names": sorted(saving._ops), "unregistered": unregistered}
