"""Checkpointing (NDD415): what a pipeline's ``enable_checkpointing``/``checkpoint=`` become.

Pipeline mode checkpoints the whole pipeline (``pipe.checkpoint()`` → a string; ``checkpoint=`` at
creation restores it). Dynamic mode checkpoints objects: an ``ndd.checkpoint.Checkpoint`` in which
readers and RNGs are registered by name; a state loaded into it is applied when the object is
registered, so registration must come before the first ``next_epoch``. The migrated function takes
the checkpoint as ``checkpoint=`` and registers its reader and RNGs right after creating them; each
call site gets its own ``<pipe>_checkpoint``. The two formats are not interchangeable: a checkpoint
saved by the pipeline cannot be restored into the migrated code.
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate import cstutil
from ndd_migrate.iterators import plain_call_sites


def name(pipe: str) -> str:
    """The checkpoint that goes with the pipeline object ``pipe``."""
    return f"{pipe}_checkpoint"


def blocked(model, assigns):
    """(pipeline, node, why) for checkpointing pipelines that cannot be migrated: every call site
    must be ``name = f(...)`` (the checkpoint is created next to it), and the decorator must not
    restore a fixed checkpoint."""
    plain = plain_call_sites(model, assigns)
    for fn in model.pipelines.values():
        if not fn.checkpointing:
            continue
        if "checkpoint" in fn.decorator_args:
            yield fn, fn.decorator, "a checkpoint restored in the decorator"
        elif fn not in plain:
            yield fn, fn.node, "checkpointing with a call site that is not `name = f(...)`"


def registrations(reader_call: cst.Call | None, reader: str | None, rngs: list[str]) -> list:
    """``if checkpoint is not None: checkpoint.register(obj, key)`` for the reader and the RNGs."""
    objects = []
    if reader is not None:
        key = cstutil.kwarg(reader_call, "name")
        literal = cstutil.literal_value(key.value) if key is not None else None
        objects.append((reader, literal if isinstance(literal, str) else "reader"))
    objects += [(rng, rng) for rng in rngs]
    if not objects:
        return []
    body = [
        cst.SimpleStatementLine([cst.Expr(cst.Call(
            cst.Attribute(cst.Name("checkpoint"), cst.Name("register")),
            [cst.Arg(cst.Name(obj), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), cst.Arg(cst.SimpleString(f'"{key}"'))],
        ))])
        for obj, key in objects
    ]
    test = cst.Comparison(cst.Name("checkpoint"), [cst.ComparisonTarget(cst.IsNot(), cst.Name("None"))])
    return [cst.If(test=test, body=cst.IndentedBlock(body))]


def creation_args(call: cst.Call) -> tuple[bool, cst.BaseExpression | None]:
    """(checkpointing enabled at this call site, the ``checkpoint=`` state it restores)."""
    enable = cstutil.kwarg(call, "enable_checkpointing")
    restore = cstutil.kwarg(call, "checkpoint")
    enabled = enable is not None and cstutil.literal_value(enable.value) is not False
    return enabled or restore is not None, restore.value if restore is not None else None

