"""Which arguments of a DALI PyTorch iterator call NDD411 carries over to the migrated loader, and
why the others cannot be (DALI refuses them, or they are not read from the code)."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.model.features import iterators
from ndd_migrate.syntax import cstutil

# Iterator arguments that change nothing in the batches of one pipeline with `reader_name`
# (`last_batch_padded=False` is DALI's default; with `reader_name` the reader's metadata decides).
IGNORED = {
    "pipelines",
    "reader_name",
    "auto_reset",
    "dynamic_shape",
    "prepare_first_batch",
    "output_map",
    "last_batch_policy",
    "fill_last_batch",
    "last_batch_padded",
    "size",
}


def unhandled(call: cst.Call, dali: str, given: set[str]) -> str | None:
    """The iterator's arguments the rewrite does not carry over, or None; by position it takes the
    pipelines and, where the iterator has no fixed output map, the output map."""
    positional = sum(a.keyword is None for a in call.args)
    extra = given - IGNORED
    if extra or positional > (1 if iterators.TORCH_ITERATORS[dali] else 2):
        return f"arguments {sorted(extra) or 'given by position'} are not handled"
    return None


def epoch_size_unsupported(call: cst.Call, given: set[str]) -> str | None:
    """Why the epoch size (``size=``, or ``reader_name`` alone) cannot be used, or None."""
    if "reader_name" not in given:
        value = cstutil.literal_value(cstutil.kwarg(call, "size").value)
        if isinstance(value, (int, float)) and value <= 0:
            return "`size` is not a number of samples"
    elif "size" in given:
        return "`size` next to `reader_name` (DALI refuses it)"
    return None


def padding_unsupported(call: cst.Call, given: set[str]) -> str | None:
    """Why ``last_batch_padded`` cannot be carried over, or None."""
    padded = cstutil.kwarg(call, "last_batch_padded")
    if (
        padded is not None
        and "size" in given
        and not (_is_name(padded.value, "True") or _is_name(padded.value, "False"))
    ):
        return "`last_batch_padded` is not `True` or `False`"
    if padded is not None and "size" not in given and not _is_name(padded.value, "False"):
        return "`last_batch_padded` other than `False` next to `reader_name` (DALI refuses it)"
    return None


def _is_name(node: cst.BaseExpression, value: str) -> bool:
    return isinstance(node, cst.Name) and node.value == value
