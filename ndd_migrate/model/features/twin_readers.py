"""Two calls of one reader whose epochs provably line up (docs/target-shape.md, "Two readers").

In pipeline mode each reader call is an operator instance of its own (a legacy ``ops`` object
called twice in ``define_graph`` makes two). Two instances with the same arguments read the same
files in the same order, batch for batch, and their epochs end together (DALI 2.4.0, checked on the
CPU: no arguments, ``shard_id``/``num_shards``, ``stick_to_shard``, ``pad_last_batch``,
``shuffle_after_epoch``, ``random_shuffle`` with one ``seed=``); readers that differ only in their
``seed=N`` literals read epochs of one length, each in its own order, the same in both modes. The generator then creates
two readers and walks their epochs together, ``zip(..., strict=True)``: ``strict`` runs the second
epoch iterator to its end, where DALI 2.4.0's ``Reader._batches`` moves the reader to its next
shard (``_advance_shard``) and so the length of its next epoch; a plain ``zip`` stops at the first
iterator's end, leaves the second one's shard behind, and the readers part where two shards differ
in size (tests/programs/two_readers_legacy.py).

What DALI showed does *not* line up, or fails, is reported (:func:`mismatch`). Only the decision
lives here; the rules write the loop (codegen.twin_readers).
"""

from __future__ import annotations

import ast

import libcst as cst

from ndd_migrate.model import constructs
from ndd_migrate.model.types import Problem
from ndd_migrate.model.values import build_time
from ndd_migrate.syntax import cstutil, pyparse, tree

THIRD = "more than two reader calls: decide how their epochs line up"


def stream_mismatch(
    first: cst.Call, other: cst.Call, per_call: list[cst.Arg], bound: set[str], seeded_pipeline: bool = True
) -> str | None:
    """Why ``other``, a reader object of its own, may not be read as an endless stream of its
    epochs beside ``first`` (the reader whose epochs the loop walks), or None. In pipeline mode
    each reader runs once per iteration, one batch, and wraps into its next epoch on its own,
    whatever its file count; the concatenation of one dynamic-mode reader's successive
    ``next_epoch(batch_size=B)`` iterators is that stream (DALI 2.4.0, checked on the CPU: with and
    without ``pad_last_batch``, shards, ``shuffle_after_epoch`` with one ``seed=``;
    tests/programs/readers_of_their_own.py). ``first`` and ``other`` carry their constructors'
    arguments; ``per_call``: ``other``'s call's own; ``bound``: the names ``define_graph`` binds
    (the reader is created before the loop, so its call may not read them).

    Only ``random_shuffle`` draws from the seed: ``shuffle_after_epoch`` shuffles in one order
    whatever the reader's or the pipeline's seed, in both modes (DALI 2.4.0, checked on the CPU).
    ``seeded_pipeline``: whether the pipeline itself is given a seed. A reader's ``seed=`` that is
    not a literal then matters only where it holds None or a negative number: pipeline mode derives
    that reader's seed from the pipeline's by graph position, which cannot be read here. In a
    pipeline created without a seed there is no such order to keep: an int >= 0 gives each reader
    that order in both modes, and None draws a new order in every pipeline-mode run, which no
    migrated program reproduces either (said at the reader: ``reader_seed.OPEN_SEED_ORDER``)."""
    if cstutil.has_star(other) or cstutil.has_star(first):
        return "readers given `*args`/`**kwargs`: the migration cannot read how their epochs line up"
    for call in (first, other):
        shuffle = cstutil.kwarg(call, "random_shuffle")
        shuffles = shuffle is not None and cstutil.literal_value(shuffle.value) is not False
        seed = cstutil.kwarg(call, "seed")
        if shuffles and seed is not None and not _fixed_seed(call) and seeded_pipeline:
            return (
                f"several readers, a shuffling one given `seed={cstutil.code(seed.value)}`, not an integer literal: "
                "where it holds an int >= 0 each reader reads that order in both modes, but where it is None or "
                "negative pipeline mode derives each reader's seed from the pipeline's by graph position, which "
                "the migration cannot read; a `seed=N` literal (or a pipeline of one reader) converts"
            )
        if shuffles and seed is None:
            return (
                "several readers, a shuffling one without a `seed=N` literal: pipeline mode seeds each from the "
                "pipeline's seed, in an order the migration cannot read (a `seed=N` literal for each converts)"
            )
        if _on_gpu(call):
            return (
                "several readers, one on the GPU: their epoch iterators, each entering the pipeline's context "
                "while it reads, are not known to work advanced in turn"
            )
    rebound = sorted(_names_read(per_call) & bound)
    if rebound:
        return f"`{rebound[0]}`, read by a reader's arguments, is assigned in `define_graph`: decide how to read it"
    return None


def _on_gpu(call: cst.Call) -> bool:
    """Is the reader ``call`` given a ``device=`` other than the literal ``"cpu"``?"""
    device = cstutil.kwarg(call, "device")
    return device is not None and cstutil.literal_value(device.value) != "cpu"


def mismatch(first: cst.Call, second: cst.Call, between: list, per_call: list[cst.Arg] | None = None) -> str | None:
    """Why ``second`` may not be read batch by batch beside ``first`` (the reason, for a TODO), or
    None when both give the same batches and equal epochs. ``first`` and ``second`` are the calls
    with every argument the reader is created with (a legacy object's constructor's included);
    ``between`` are the statements that run between the two calls; ``per_call`` the arguments
    evaluated at each call (all of ``first``'s unless given: a constructor's ran once)."""
    per_call = list(first.args) if per_call is None else per_call
    seeded = all(_fixed_seed(call) for call in (first, second))  # each its own order, as in pipeline mode
    if _arguments(first, seeded) != _arguments(second, seeded):
        return "more than one reader, with different arguments: decide how their epochs line up"
    if cstutil.has_star(first):
        return "two readers given `*args`/`**kwargs`: the migration cannot show their arguments are the same"
    if any(_has_call(arg.value) for arg in per_call):
        return (
            "two readers with an argument computed by a call, evaluated once per reader: the migration cannot "
            "show both get the same value"
        )
    if cstutil.kwarg(first, "name") is not None:
        return (
            "two readers with the same `name=`: pipeline mode rejects operators named alike (`RuntimeError`), "
            "so this pipeline does not run; give each reader a name of its own first"
        )
    shuffle = cstutil.kwarg(first, "random_shuffle")
    if shuffle is not None and cstutil.literal_value(shuffle.value) is not False and not seeded:
        return (
            "two shuffling readers without a `seed=` literal each: pipeline mode seeds each from the pipeline's "
            "seed, so they read in different orders, while dynamic-mode readers without a seed share one order "
            "(a `seed=N` literal for each reader converts)"
        )
    if _on_gpu(first):
        return (
            "two readers on the GPU: their epoch iterators, each entering the pipeline's context while it "
            "reads, are not known to work advanced in turn"
        )
    read = _names_read(per_call)
    rebound = sorted(read & {name for stmt in between for name in build_time.bound_names(stmt)})
    if rebound:
        return (
            f"`{rebound[0]}`, read by the readers' arguments, is assigned between the two reader calls: "
            "decide how their epochs line up"
        )
    return None


def check_late(model, module: cst.Module) -> None:
    """Report the twin or stream readers whose epochs turn out not to line up once the module is
    read (:func:`late_mismatch`), at the second reader's statement. The module is searched for the
    reader names its consumers give only when a pipeline follows epochs or checkpoints (the
    search walks every node)."""
    if not any(p.epochs or p.checkpointing for p in model.pipelines.values()):
        return
    named = consumer_reader_names(module)
    for pipeline in model.pipelines.values():
        paths = [path for path, *_ in pipeline.streams]  # each stream reader's statement, or the `if` around it
        second = pipeline.twin_index if pipeline.twin_index is not None else next(iter(paths), (None,))[0]
        why = late_mismatch(pipeline, named) if second is not None else None
        if why is not None:
            graph = getattr(pipeline, "graph", None)  # a legacy class: the reader calls are in define_graph
            about = constructs.PIPELINE_SUBCLASS if graph is not None else constructs.PIPELINE_FUNCTION
            pipeline.problems.append(Problem(about, (graph or pipeline.node).body.body[second], why))


def late_mismatch(pipeline, named: frozenset[str] | None) -> str | None:
    """What, known only once the module is read, two readers cannot do: checkpoints follow one
    reader, and so does the epoch-aware shape (``reader.get_metadata()`` of the reader that drives
    the loop). That shape stands for readers of their own read as streams (``pipeline.streams``)
    when every reader the module's consumers name (``named``: ``reader_name=``, ``epoch_size(...)``,
    ``reader_meta(...)``; None when one is not a literal) is that first reader, never another."""
    if pipeline.epochs and not _epochs_follow_first(pipeline, named):
        return (
            "two readers feeding a framework iterator or asked for their epoch size: the epoch-aware shape "
            "follows one reader, the first, by its `name=` literal (`reader_name=` naming another reader, or "
            "not a literal, or a second call of one reader object, cannot be followed)"
        )
    if pipeline.checkpointing:
        return "checkpointing two readers: the migration registers one reader"
    return None


def _epochs_follow_first(pipeline, named: frozenset[str] | None) -> bool:
    """Do the consumers that ask for epochs name only the reader that drives the loop?"""
    names = getattr(pipeline, "reader_names", ())
    if pipeline.twin_index is not None or not pipeline.streams or named is None or not names or names[0] is None:
        return False
    return not named & {name for name in names[1:] if name is not None} and None not in names[1:]


def consumer_reader_names(module: cst.Module) -> frozenset[str] | None:
    """Every reader name the module may hand to a consumer: ``reader_name="X"`` of any call, the
    argument of ``.epoch_size("X")`` and ``.reader_meta("X")``, and, since an iterator takes
    ``reader_name`` by position too, every string literal given by position to any call. None when
    one of them is not known: ``reader_name=`` not a string literal (``None``, DALI's default,
    names no reader), ``epoch_size()``/``reader_meta()`` asking for every reader, or an argument
    past the output map of a call of an ``...Iterator`` that is not a literal."""
    found: set[str] = set()
    for call in (node for node in tree.walk(module) if isinstance(node, cst.Call)):
        names = _names_given(call)
        if names is None:
            return None
        found |= names
    return frozenset(found)


def _names_given(call: cst.Call) -> set[str] | None:
    """The reader names ``call`` may hand to a consumer (:func:`consumer_reader_names`), or None
    when one of them is not known."""
    if isinstance(call.func, cst.Attribute) and call.func.attr.value in ("epoch_size", "reader_meta"):
        if not call.args:
            return None
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    if _iterator_call(call) and any(cstutil.literal_value(v) is cstutil.NOT_LITERAL for v in positional[2:]):
        return None
    named = [arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == "reader_name"]
    literals = [cstutil.literal_value(value) for value in named]
    if any(literal is not None and not isinstance(literal, str) for literal in literals):
        return None
    return {literal for literal in map(cstutil.literal_value, [*named, *positional]) if isinstance(literal, str)}


def _iterator_call(call: cst.Call) -> bool:
    """A call of something named ``...Iterator`` (DALI's framework iterators, a class deriving from one)."""
    func = call.func.attr if isinstance(call.func, cst.Attribute) else call.func
    return isinstance(func, cst.Name) and func.value.endswith("Iterator")


def _fixed_seed(call: cst.Call) -> bool:
    """``seed=N``, an integer literal >= 0: the reader's order, the same in both modes (an unset or
    negative seed is drawn from the pipeline's in pipeline mode, fixed in dynamic mode)."""
    seed = cstutil.kwarg(call, "seed")
    value = cstutil.literal_value(seed.value) if seed is not None else None
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _arguments(call: cst.Call, seeded: bool) -> tuple:
    """The call's callee and arguments as Python sees them (layout and comments aside; keywords in
    any order; ``seed=`` aside when ``seeded``: readers that differ only in their seeds read epochs
    of one length, each in its own order in both modes)."""
    module = cst.Module([])

    def dump(node) -> str:
        return ast.dump(pyparse.ast_parse(f"({module.code_for_node(node)})", mode="eval"))

    positional = [dump(a.value) for a in call.args if a.keyword is None]
    keywords = sorted(
        (a.keyword.value, dump(a.value))
        for a in call.args
        if a.keyword is not None and not (seeded and a.keyword.value == "seed")
    )
    return dump(call.func), tuple(positional), tuple(keywords)


def _has_call(expr: cst.CSTNode) -> bool:
    found = _Finder()
    tree.visit(expr, found)
    return found.call


def _names_read(args: list[cst.Arg]) -> set[str]:
    found = _Finder()
    for arg in args:
        tree.visit(arg.value, found)
    return found.names


class _Finder(cstutil.SkipsTrivia, cst.CSTVisitor):
    def __init__(self) -> None:
        self.call = False
        self.names: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        self.call = True

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)
