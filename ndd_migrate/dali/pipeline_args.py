"""Pipeline-level arguments (``@pipeline_def(...)`` and call sites) and what becomes of each.

Kept in one table so the function rewrite (NDD001), the call-site rewrite (NDD004) and the lint agree.
"""

from __future__ import annotations

from ndd_migrate.syntax import cstutil

# Become keyword-only parameters of the migrated generator (see docs/target-shape.md), in this order.
PARAMETERS = ("batch_size", "num_threads", "device_id", "seed")
# Those whose default in DALI 2.4's `Pipeline` is None and means something (`seed`: a random seed;
# `device_id`: the current CUDA device), which the migrated function's keyword gets too.
DEFAULT_NONE = frozenset({"device_id", "seed"})

# Executor tuning and graph checks that have no dynamic-mode counterpart: dropped with a note.
EXECUTOR_ONLY = frozenset(
    {
        "prefetch_queue_depth",
        "exec_async",
        "exec_pipelined",
        "exec_dynamic",
        "experimental_exec_dynamic",
        "set_affinity",
        "bytes_per_sample",
        "max_streams",
        "default_cuda_stream_priority",
        "enable_memory_stats",
        "py_num_workers",
        "py_start_method",
        "py_callback_pickler",
        "output_dtype",
        "output_ndim",
        "output_layout",
        "stream_policy",
        "concurrency",
    }
)

# Change what the pipeline computes or how it is restored: the function is not rewritten, a human
# (or a later rule) must decide. Maps the argument to the reason shown in the TODO.
BLOCKING = {
    "enable_conditionals": "data-dependent `if` needs per-sample selection in dynamic mode",
}

# Checkpointing: the migrated function takes an ``ndd.checkpoint.Checkpoint`` as ``checkpoint=`` and
# registers its reader and RNGs in it (NDD415, ndd_migrate.model.features.checkpoints).
CHECKPOINTING = ("enable_checkpointing", "checkpoint")

#: ``Pipeline.__init__``'s positional parameters (DALI 2.4.0), in order: what a `Pipeline(...)` call
#: or a subclass's `super().__init__(...)` gives by position.
POSITIONAL = (
    "batch_size",
    "num_threads",
    "device_id",
    "seed",
    "exec_pipelined",
    "prefetch_queue_depth",
    "exec_async",
    "bytes_per_sample",
    "set_affinity",
    "max_streams",
    "default_cuda_stream_priority",
)


def unset(expr) -> bool:
    """``None`` or ``-1``: pipeline mode's "not set" values for threads, device and seed."""
    value = cstutil.literal_value(expr)
    return value is None or (value == -1 and not isinstance(value, bool))
