"""Where a migrated pipeline computes its next batches ahead (docs/target-shape.md, "Prefetching").

Pipeline mode computed ``prefetch_queue_depth`` (default 2) batches ahead of ``run()`` on its own
threads, so loading overlapped with training. A dynamic-mode generator computes a batch only when
asked: a training step that waits for the GPU left the CPU idle, and the migrated loop ran at half
the speed (issue 27's measurements, docs/benchmarks.md). The generator function is decorated with
the support module's ``prefetching``, which runs it in a worker thread, ``depth - 1`` batches ahead.

Not where it would change what the program sees: a checkpointing pipeline (the reader's state must
be the state of the last batch given, not of one computed ahead) and a pipeline that asked pipeline
mode not to run ahead (``exec_pipelined=False``, ``prefetch_queue_depth=1``).

A function giving one generator per epoch over a source that ends each epoch (``pipeline.restarts``)
is decorated whatever its depth: ``prefetching`` then gives the support module's ``_EpochFeed``,
which draws the source as far ahead as pipeline mode did (``prefetch_queue_depth``; 1 without the
pipelined executor), since that decides where an epoch the consumer leaves early goes on.
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate.syntax import cstutil

DEFAULT_DEPTH = 2  # pipeline mode's ``prefetch_queue_depth``


def settings_of(pipeline) -> dict[str, cst.BaseExpression]:
    """The pipeline-level settings (name → value) of a ``@pipeline_def`` function (its decorator's)
    or of a legacy subclass (those its ``super().__init__`` gives that dynamic mode drops)."""
    legacy = getattr(pipeline, "dropped_settings", None)
    if legacy is not None:
        return {name: arg.value for name, arg in legacy}
    return {name: arg.value for name, arg in getattr(pipeline, "decorator_args", {}).items()}


def on_call(pipeline) -> bool:
    """Does a call of the migrated function give the prefetching iterator itself (the function
    decorated, not a nested generator of the epoch-aware shape)? Then a ``prefetch_queue_depth=``
    given at the call is that call's depth, and the call keeps it. False for what is not one
    function of this module (imported, a group of pipelines)."""
    if not hasattr(pipeline, "decorator_args"):
        return False
    if feeds_epochs(pipeline):
        return True
    prefetches = applies(settings_of(pipeline), pipeline.checkpointing)
    return prefetches and not pipeline.restarts and not pipeline.epochs


def feeds_epochs(pipeline) -> bool:
    """Is ``pipeline`` a function giving one generator per epoch over a source that ends each
    epoch, decorated for its depth whatever the depth is?"""
    return getattr(pipeline, "restarts", False) and not pipeline.checkpointing


def applies(settings: dict[str, cst.BaseExpression], checkpointing: bool) -> bool:
    """Does a pipeline with these pipeline-level ``settings`` (name → value) prefetch?"""
    if checkpointing:
        return False
    pipelined = settings.get("exec_pipelined")
    if pipelined is not None and cstutil.literal_value(pipelined) is False:
        return False
    depth = settings.get("prefetch_queue_depth")
    return depth is None or cstutil.literal_value(depth) != 1


def kept(settings: dict[str, cst.BaseExpression]) -> frozenset[str]:
    """The settings the decorator carries (so not reported as dropped): a literal depth."""
    depth = settings.get("prefetch_queue_depth")
    return frozenset({"prefetch_queue_depth"}) if depth is not None and _literal_int(depth) else frozenset()


def decorator(name: cst.Name, settings: dict[str, cst.BaseExpression]) -> cst.Decorator:
    """``@prefetching``, or ``@prefetching(depth=N)`` for a literal ``prefetch_queue_depth=N``
    other than the default. Another expression (a parameter of a legacy ``__init__``) may not be
    defined where the decorator is evaluated: the default is kept, and NDD004 says so."""
    depth = settings.get("prefetch_queue_depth")
    pipelined = settings.get("exec_pipelined")
    if pipelined is not None and cstutil.literal_value(pipelined) is False:
        depth = cst.Integer("1")  # without the pipelined executor nothing runs ahead
    if depth is None or not _literal_int(depth) or cstutil.literal_value(depth) == DEFAULT_DEPTH:
        return cst.Decorator(name)
    arg = cst.Arg(
        keyword=cst.Name("depth"),
        value=depth,
        equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
    )
    return cst.Decorator(cst.Call(name, [arg]))


def _literal_int(value: cst.BaseExpression) -> bool:
    literal = cstutil.literal_value(value)
    return isinstance(literal, int) and not isinstance(literal, bool)
