"""Which arguments of a DALI iterator call NDD411 carries over to the migrated loader, and
why the others cannot be (DALI refuses them, or they are not read from the code)."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.model.features import iterators
from ndd_migrate.model.types import Kind
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
    if extra or positional > (1 if iterators.REWRITTEN[dali] else 2):
        return f"arguments {sorted(extra) or 'given by position'} are not handled"
    return None


def drop_in_refused(use, call: cst.Call, dali: str, short: str) -> str | None:
    """Why the support module's iterator for JAX or PaddlePaddle cannot stand in for ``call`` of
    ``dali`` (named ``short``) over the pipelines of ``use``, or None: JAX's takes one pipeline
    (DALI's makes one array of several, over their devices); PaddlePaddle's takes output names
    without LoD levels (``(name, level)``), so the output map must be a list of strings."""
    several = use.kind == Kind.PIPELINES and not isinstance(use.node, cst.List)  # `pipes`
    if dali in iterators.JAX_ITERATORS and (several or len(iterators.listed(use.node)) > 1):
        return f"`{short}` over several pipelines: the support module's JAX iterator takes one"
    names = output_map(call, dali) if dali in iterators.PADDLE_ITERATORS else None
    if names is not None and not (
        isinstance(names, (cst.List, cst.Tuple))
        and all(isinstance(e, cst.Element) and isinstance(e.value, cst.SimpleString) for e in names.elements)
    ):
        return f"`{short}`'s `output_map` is not a list of names: a LoD level (`(name, level)`) is not ported"
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


POLICIES = {"FILL": "fill", "PARTIAL": "partial", "DROP": "drop"}
# The legacy `fill_last_batch` flag, as DALI maps it: it replaces `last_batch_policy` when given.
FILL_LAST_BATCH = {"True": "fill", "False": "partial"}


def policy(call: cst.Call, dali_name) -> str | None:
    """The last-batch policy of the iterator ``call`` (its arguments by name, :func:`iterators.keyworded`):
    ``"fill"``, ``"partial"``, ``"drop"``, or None where it is not read from the code.
    ``dali_name`` resolves an expression to its DALI name."""
    legacy = cstutil.kwarg(call, "fill_last_batch")
    if legacy is not None and not (isinstance(legacy.value, cst.Name) and legacy.value.value == "None"):
        # DALI: True → FILL, False → PARTIAL, whatever `last_batch_policy` says
        return FILL_LAST_BATCH.get(legacy.value.value) if isinstance(legacy.value, cst.Name) else None
    arg = cstutil.kwarg(call, "last_batch_policy")
    if arg is None:
        return "fill"
    name = dali_name(arg.value) or ""
    return POLICIES.get(name.rsplit(".", 1)[-1]) if ".LastBatchPolicy." in name else None


def no_size_beside_source(use) -> str:
    """Why an iterator without ``reader_name`` or ``size=`` over a pipeline with an external source
    is not rewritten: what one generator per epoch asks of the source and the pipeline objects."""
    refused = next((m.restarts_refused for m in use.members if getattr(m, "restarts_refused", None)), None)
    return (
        "without `reader_name` or `size=` each epoch ends where the external source raises "
        "`StopIteration`, and the next one starts after `reset()`; one generator per epoch over the same "
        "source is written only for a source without `cycle=` and with a literal `batch=` "
        "of a pipeline whose every object is bound to a name used only by such iterators and `build()`"
        f"{f' (here {refused})' if refused else ''}: loop over the source per epoch by hand"
    )


def output_map(call: cst.Call, dali: str) -> cst.BaseExpression | None:
    """The output map of the iterator ``call``: the classification iterator's, or the one given."""
    fixed = iterators.REWRITTEN[dali]
    if fixed is not None:
        return cst.List(
            [
                cst.Element(cst.SimpleString(f'"{n}"'), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                for n in fixed[:-1]
            ]
            + [cst.Element(cst.SimpleString(f'"{fixed[-1]}"'))]
        )
    arg = cstutil.kwarg(call, "output_map")
    if arg is not None:
        return arg.value
    return call.args[1].value if len(call.args) > 1 and call.args[1].keyword is None else None


def given_unfollowed(model, use, call: cst.Call, dali: str, short: str) -> str | None:
    """Why the pipelines the iterator ``call`` (named ``short``) is given cannot be followed to
    their migrated form, or None: the first argument, a list of names or attributes, an
    epoch-aware pipeline when the iterator asks for its reader's epochs."""
    if iterators.epoch_aware(call, dali) is not use.node:
        return f"`{short}` is given the pipeline other than as its first argument"
    if isinstance(use.node, cst.Tuple):
        return f"`{short}` takes a list of pipelines, not a tuple"
    items = iterators.listed(use.node)
    given = [item for item in items if iterators.given_directly(model, item) is not None]
    if given and len(given) != len(items):
        return f"`{short}` is given pipelines made in its call beside others bound to names"
    if not given and not all(isinstance(item, cst.Name) or item in model.attributes.reads for item in items):
        return (
            f"`{short}` needs each pipeline of its list bound to a name (`pipe = p(...)`), kept in an "
            "attribute set once by one method, or made in its call"
        )
    reader_name = cstutil.kwarg(iterators.keyworded(call, dali), "reader_name")
    if not iterators.all_epochs(use.pipeline) and reader_name is not None:
        refused = next((m.epochs_refused for m in use.members if getattr(m, "epochs_refused", None)), None)
        if refused is not None:
            return f"`{short}` needs the epoch-aware shape, which is not open here: {refused}"
        return (
            f"`{short}` needs the epoch-aware shape: one plain `pipe = p(...)` per call site, one reader "
            "and the batch size in the module"
        )
    return None
