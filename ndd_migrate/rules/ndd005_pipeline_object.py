"""NDD005 pipeline-object: the reader metadata a pipeline object gave, on the migrated pipeline."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ScopeProvider

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.features import iterators
from ndd_migrate.model.types import Kind, PipelineFunction, migrated_before, reader_name, reads_padded
from ndd_migrate.plan import uses
from ndd_migrate.syntax import cstutil

RULE = Rule(
    code="NDD005",
    name="pipeline-object",
    summary="`pipe.epoch_size(name)` / `pipe.reader_meta(name)` become the reader's metadata; `pipe.reset()` is rewritten",
    what=(
        'For a pipeline migrated in the epoch-aware shape (docs/target-shape.md, "Framework iterators"), '
        '`pipe.epoch_size(name)` becomes `pipe_meta["epoch_size"]` (`"epoch_size_padded"`, which DALI\'s '
        "`epoch_size()` returns, when the reader may pad its shards: `pad_last_batch`) and `pipe.reader_meta(name)` becomes "
        "`pipe_meta`, the reader's `get_metadata()`; so does `len(pipe)` of a `Pipeline` subclass whose `__len__` "
        'returns `self.epoch_size("Reader")` for its reader (DALI 2.4 cannot build such a class: it takes the '
        "pipeline's truth value while building, which calls `__len__`). For pipelines made in a list (`pipes = [p(shard_id=n) for n in ...]`, "
        "also through a name holding pipeline functions or classes) the creation gives the metadata beside them, "
        '`pipes_meta, pipes = zip(*[...])`: `pipes[i].epoch_size(name)` becomes `pipes_meta[i]["epoch_size"]` and, '
        "in a comprehension `... for pipe in pipes`, `pipe.epoch_size(name)` reads the paired metadata "
        "(`for pipe_meta, pipe in zip(pipes_meta, pipes)`); a plain `for` statement over the list keeps the block. `pipe.reset()` (DALI acts on it only after `iter_setup` or "
        "an external source raised `StopIteration`) is dropped on a pipeline that never ends, and becomes "
        "`pipe = <the call that made it>` on a legacy pipeline fed by `iter_setup` that holds nothing else "
        "(no reader, random operator, state kept by `iter_setup` or `__init__` code; arguments that are literals "
        "or names no statement can bind again between the creation and the reset). It is dropped too on a pipeline "
        "that becomes one generator per epoch for PyTorch iterators (an external source that ends its epochs, the "
        "pipeline kept in `self.pipe` by a method that makes it: `self.pipe = self._create_pipeline()`): the next generator starts the next "
        "epoch after the source's end and goes on with the epoch before it, as DALI did. "
        "Any other use of a pipeline object that no rule "
        "rewrites (`pipe.schedule_run()`, `self.pipe = ...`, passing it to a helper) keeps the pipeline "
        "unconverted: NDD008 says which and why."
    ),
    why=(
        "After migration the object is a generator of batches, which has no `epoch_size()`; the reader "
        "it was asked about is inside the migrated function, and its metadata has the same keys."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "Applied together with NDD001 and NDD411: the call site becomes `pipe_meta, pipe = p(...)`. "
        "`.epoch_size()` without exactly one reader name is marked for a human, unless it is subscripted by its one "
        "reader's literal name (`pipe.epoch_size()[\"Reader\"]`, the item of DALI's dict by reader name)."
    ),
    examples=(
        Example(
            title="reader metadata of a pipeline with a reader: epoch-aware shape",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p(root):\n"
                "    data = fn.readers.numpy(file_root=root, name='Reader')\n"
                "    return data\n\n\n"
                "pipe = p('/data')\n"
                "n = pipe.epoch_size('Reader')\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "def p(root, *, batch_size=2):\n"
                "    reader = ndd.readers.Numpy(file_root=root, name='Reader', max_batch_size=batch_size)\n\n"
                "    @prefetching\n"
                "    def batches():\n"
                "        while True:\n"
                "            for (data,) in reader.next_epoch(batch_size=batch_size):\n"
                "                yield data.evaluate(),\n\n"
                "    return reader.get_metadata(), batches()\n\n\n"
                "pipe_meta, pipe = p('/data')\n"
                "n = pipe_meta['epoch_size']\n"
            ),
        ),
        Example(
            title="reader metadata of pipelines made in a list: read of the paired metadata",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p(root, shard):\n"
                "    data = fn.readers.numpy(file_root=root, shard_id=shard, num_shards=2, name='Reader')\n"
                "    return data\n\n\n"
                "pipes = [p('/data', n) for n in range(2)]\n"
                "n = pipes[0].epoch_size('Reader')\n"
                "assert all(pipe.epoch_size('Reader') == n for pipe in pipes)\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "def p(root, shard, *, batch_size=2):\n"
                "    reader = ndd.readers.Numpy(file_root=root, shard_id=shard, num_shards=2, name='Reader', max_batch_size=batch_size)\n\n"
                "    @prefetching\n"
                "    def batches():\n"
                "        while True:\n"
                "            for (data,) in reader.next_epoch(batch_size=batch_size):\n"
                "                yield data.evaluate(),\n\n"
                "    return reader.get_metadata(), batches()\n\n\n"
                "pipes_meta, pipes = zip(*[p('/data', n) for n in range(2)])\n"
                "n = pipes_meta[0]['epoch_size']\n"
                "assert all(pipe_meta['epoch_size'] == n for pipe_meta, pipe in zip(pipes_meta, pipes))\n"
            ),
        ),
        Example(
            title="`reset()` of a pipeline that never ends (a reader wraps into its next epoch) did nothing",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p(root):\n"
                "    data = fn.readers.numpy(file_root=root)\n"
                "    return data\n\n\n"
                "pipe = p('/data')\n"
                "(first,) = pipe.run()\n"
                "pipe.reset()\n"
                "(second,) = pipe.run()\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def p(root, *, batch_size=2):\n"
                "    reader = ndd.readers.Numpy(file_root=root)\n"
                "    while True:\n"
                "        for (data,) in reader.next_epoch(batch_size=batch_size):\n"
                "            yield data.evaluate(),\n\n\n"
                "pipe = p('/data')\n"
                "(first,) = next(pipe)\n"
                "(second,) = next(pipe)\n"
            ),
        ),
    ),
)


#: Attributes a generator has: on a pipeline migrated before this run (its call sites may use the
#: generator already) they are no findings.
_GENERATOR_ATTRIBUTES = frozenset(
    {"close", "send", "throw", "__next__", "__iter__", "gi_frame", "gi_running", "gi_code", "gi_yieldfrom"}
)


class Impl(RuleImpl):
    rule = RULE

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._resets: dict[cst.SimpleStatementLine, tuple[str, cst.Name, cst.Call | None]] = {}
        self._made: dict[cst.Call, cst.Call] = {}  # the creation call a reset repeats → rewritten
        self._paired_loops: set[cst.CompFor] = set()  # `for pipe in pipes` whose metadata is read
        self._lengths: set[cst.Call] = set()  # `len(pipe)` of a class whose `__len__` asks `epoch_size`

    def claims(self, use):
        """``pipe.reset()`` (see :meth:`_reset`); ``pipe.epoch_size(name)`` / ``pipe.reader_meta(name)`` of an epoch-aware pipeline; and
        every generator use of a pipeline that another file migrated before this run (``next(pipe)``,
        passing it on, ``pipe.close()``): that code already uses the generator."""
        if use.kind is Kind.PIPELINE and migrated_before(use.pipeline):
            if use.context not in (uses.METHOD, uses.ATTRIBUTE) or use.detail in _GENERATOR_ATTRIBUTES:
                return True
        if use.kind is Kind.PIPELINE and use.context == uses.METHOD and use.detail == "reset":
            found = self._reset(use)
            if isinstance(found, str):
                return found
            self._resets[use.statement] = found
            return self.ctx.applies(self.code, use.holder) or None
        if (
            use.kind is Kind.PIPELINE
            and use.context == uses.LEN
            and iterators.sized_by_reader(getattr(use.pipeline, "members", (use.pipeline,)))
        ):
            self._lengths.add(use.holder)  # `len(pipe)`, its class's `__len__` asking `epoch_size`
            return self._length_claim(use)
        if use.kind is not Kind.PIPELINE or use.context != uses.METHOD or use.detail not in iterators.METADATA_METHODS:
            return None
        return self._metadata_claim(use)

    def _metadata_claim(self, use):
        """``pipe.epoch_size(name)`` / ``pipe.reader_meta(name)`` (or the item of their dict for the
        one reader): claimed for an epoch-aware pipeline, else why not."""
        pipeline = use.pipeline
        if not (iterators.all_epochs(pipeline) and self._named(use.node)):
            members = getattr(pipeline, "members", (pipeline,))
            why = next((m.epochs_refused for m in members if getattr(m, "epochs_refused", None)), None)
            factory = next((q for q, made in self.ctx.model.factories.items() if made in members), None)
            if why is None and factory is not None:
                why = f"it is made by `{factory}()`, a function that returns it (a factory)"
            return (
                "the reader's metadata is given only by the epoch-aware shape (one plain `pipe = p(...)` per call site)"
                + (f": {why}" if why else "")
            )
        if (
            use.context == uses.METHOD
            and isinstance(use.holder, cst.Call)
            and not _one_reader_name(use.holder)
            and not self._reader_item(use.holder, pipeline)
        ):
            return f"`.{use.detail}()` without one reader name gives a dict by reader name"
        return self.ctx.applies(self.code, use.holder) or None

    def _length_claim(self, use):
        """``len(pipe)``, whose class's ``__len__`` returns ``self.epoch_size(name)``: claimed as that
        call is (:meth:`_metadata_claim`) where ``name`` is the pipeline's one reader's."""
        for pipeline in getattr(use.pipeline, "members", (use.pipeline,)):
            name = reader_name(pipeline)
            if name != pipeline.length_reader:
                return (
                    f"`__len__` of `{pipeline.qualname}` asks the epoch size of `{pipeline.length_reader}`, "
                    "not of its reader" + (f" (`{name}`)" if name else " (named by a literal)")
                )
        return self._metadata_claim(use)

    def _reset(self, use) -> str | tuple[str, cst.Name, cst.Call | None]:
        """What ``pipe.reset()`` becomes, or why it cannot be rewritten.

        ``Pipeline.reset()`` (DALI 2.4 ``pipeline.py``) acts only after the pipeline reached its end:
        a ``StopIteration`` from ``iter_setup`` or an external source's callback. Then the next
        ``run()`` calls ``iter_setup`` again, on the same object; readers and the random state go on
        (readers never end: they wrap into the next epoch). So:

        * a pipeline without ``iter_setup`` or an external source never ends: ``reset()`` does
          nothing, and the statement is dropped (``("drop", pipe, None)``);
        * a legacy pipeline fed by ``iter_setup``, with no reader, no random operator, no value
          ``iter_setup`` keeps between calls and no ``__init__`` statement that runs in the
          generator, holds nothing but what its creation call gave it: calling it again, with the
          same names, continues exactly where the pipeline's next ``run()`` would
          (``("again", pipe, creation call)``). The call's arguments must be literals or names
          that no binding can change between the creation and the reset, and ``pipe`` bound once,
          by that call, in the scope of the reset."""
        pipeline, pipe = use.pipeline, use.node
        if getattr(pipeline, "restarts", False) and _statement_of_its_own(use):
            return ("epoch", pipe, None)  # one generator per epoch: the next goes on where DALI's run did
        why = _reset_unfollowed(use)
        refused = getattr(pipeline, "restarts_refused", None)
        if why is not None and refused:  # the per-epoch shape, which drops the reset, says why it is not written
            return f"{why}; one generator per epoch, which needs no reset, is not written: {refused}"
        if why is not None:
            return why
        setup = getattr(pipeline, "setup", None)
        if setup is None and not pipeline.external_sources and pipeline.source is None:
            return ("drop", pipe, None)
        if setup is None:
            return (
                "`reset()` starts the external source's next epoch, which the migrated generator cannot do: "
                "call the migrated function again by hand"
            )
        why = _kept_across_reset(pipeline)
        if why is not None:
            return why
        creation = self._creation(pipe, pipeline)
        if isinstance(creation, str):
            return creation
        return ("again", pipe, creation)

    def _creation(self, pipe: cst.Name, pipeline) -> cst.Call | str:
        """The call ``pipe = Pipe(...)`` that a reset may repeat, or why it may not."""
        scope = self.ctx.resolver.get_metadata(ScopeProvider, pipe, None)
        assignments = list(scope.assignments[pipe.value]) if scope is not None else []
        again = "call the migrated function again by hand"
        if len(assignments) != 1 or not isinstance(assignments[0].node, cst.Name):
            return f"`{pipe.value}` is not bound once, in the scope of its `reset()`: {again}"
        assign = self.ctx.model.parents.get(self.ctx.model.parents.get(assignments[0].node))
        call = assign.value if isinstance(assign, cst.Assign) and len(assign.targets) == 1 else None
        if not isinstance(call, cst.Call) or self.ctx.model.call_sites.get(call) is not pipeline:
            return (
                f"`{pipe.value}` is not bound by a call of `{pipeline.qualname}` in the scope of its `reset()`: {again}"
            )
        if self.ctx.line_of(assign)[0] >= self.ctx.line_of(pipe)[0]:
            return f"`{pipe.value}.reset()` comes before the pipeline is made: {again}"
        for arg in call.args:
            if arg.star or not self._same_each_time(arg.value, assign, pipe):
                code = cst.Module([]).code_for_node(arg.value)
                if isinstance(arg.value, cst.Name):
                    return (
                        f"`reset()`: `{code}`, an argument of `{pipe.value}`'s creation, may be bound again between "
                        f"the creation and the reset, so the same call may not get the object the pipeline kept: "
                        f"{again}"
                    )
                return (
                    f"`reset()`: the argument `{code}` of `{pipe.value}`'s creation would be computed again "
                    f"(the pipeline kept the first value): bind it to a name first, or {again}"
                )
        return call

    def _same_each_time(self, expr: cst.BaseExpression, creation: cst.Assign, reset: cst.Name) -> bool:
        """A literal, or a name that holds the same object at the reset as at the creation: bound
        once where it is read from, or bound only before the creation (:meth:`_bound_before`)."""
        if cstutil.literal_value(expr) is not cstutil.NOT_LITERAL:
            return True
        if not isinstance(expr, cst.Name):
            return False
        scope = self.ctx.resolver.get_metadata(ScopeProvider, expr, None)
        while scope is not None:
            if scope.assignments[expr.value]:
                bindings = list(scope.assignments[expr.value])
                return len(bindings) == 1 or self._bound_before(bindings, creation, reset)
            if scope.parent is scope:
                return False
            scope = scope.parent
        return False

    def _bound_before(self, bindings: list, creation: cst.Assign, reset: cst.Name) -> bool:
        """``iterator = iter(a)`` ... ``iterator = iter(b)``, ``pipe = Pipe(iterator)``, then
        ``pipe.reset()``: no binding of the name can run between the creation and the reset, so the
        call made again at the reset reads the object the pipeline kept. So: every binding is a
        statement of the creation's own function (not a nested one, which could run at any time),
        and starts before the creation's statement; the reset is in the block that holds that
        statement, after it (statements of that block, and what they hold, are all that run in
        between; a binding before it runs again only when the creation runs again too)."""
        parents = self.ctx.model.parents
        statement = parents.get(creation)
        block = parents.get(statement)
        if not isinstance(statement, cst.SimpleStatementLine) or block is None:
            return False
        start = self.ctx.line_of(statement)[:2]
        own = _enclosing_function(creation, parents)
        for binding in bindings:
            node = getattr(binding, "node", None)
            if not isinstance(node, cst.CSTNode) or _enclosing_function(node, parents) is not own:
                return False
            if not self.ctx.line_of(node)[:2] < start:
                return False
        current = parents.get(reset)
        while current is not None and current is not block:
            current = parents.get(current)
        return current is block

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated):
        """``pipe.reset()`` → dropped (it did nothing) or ``pipe = Pipe(...)`` (the call that made it)."""
        found = self._resets.get(original)
        if found is None or self.ctx.converted_kind(found[1], Kind.PIPELINE) is None:
            return updated
        how, pipe, creation = found
        if how in ("drop", "epoch"):
            why = (
                "the pipeline never ends, so it did nothing"
                if how == "drop"
                else "each epoch is a new generator of the migrated function, which goes on to the next epoch "
                "after the source's end (as the reset did) and on with the epoch before it (as DALI ignored the reset)"
            )
            self.ctx.report(self.code, original, f"`{cstutil.code(pipe)}.reset()` removed: {why}", fixed=True)
            parent = self.ctx.model.parents.get(original)
            body = getattr(parent, "body", ())
            if isinstance(body, (list, tuple)) and len(body) == 1:
                return updated.with_changes(body=[cst.Pass()])
            return cst.RemovalSentinel.REMOVE
        made = self._made.get(creation)
        if made is None:
            return updated  # not reached: the creation comes first (checked in _reset)
        self.ctx.report(
            self.code,
            original,
            f"`{pipe.value}.reset()` → `{pipe.value} = ...` (a new generator, made by the same call)",
            fixed=True,
        )
        return updated.with_changes(body=[cst.Assign([cst.AssignTarget(cst.Name(pipe.value))], made.deep_clone())])

    def leave_Call(self, original: cst.Call, updated):
        """``pipe.epoch_size(name)`` / ``pipe.reader_meta(name)`` of an epoch-aware pipeline."""
        if any(found[2] is original for found in self._resets.values()):
            self._made[original] = updated
        length = iterators.length_receiver(original)
        if length is not None and original in self._lengths:
            pipeline = self._epoch_aware(length)
            return self._metadata(original, updated, pipeline, '"') if pipeline is not None else updated
        pipe = iterators.metadata_receiver(original)
        pipeline = self._epoch_aware(pipe)
        if pipeline is None:
            return updated
        if self._reader_item(original) is not None:
            return updated  # `pipe.epoch_size()["Reader"]`: the item is rewritten (leave_Subscript)
        method = original.func.attr.value
        if not _one_reader_name(original):
            self.ctx.report(
                self.code,
                original,
                f"`.{method}()` without one reader name gives a dict by reader name",
                hint=f"use `{cst.Module([]).code_for_node(iterators.meta_of(pipe))}`, the metadata of the pipeline's one reader",
                fixed=False,
            )
            return updated
        return self._metadata(original, updated, pipeline, _quote(original.args[0].value)) or updated

    def leave_Subscript(self, original: cst.Subscript, updated):
        """``pipe.epoch_size()["Reader"]`` / ``pipe.reader_meta()["Reader"]``: the item of the dict by
        reader name for the pipeline's one reader, named so (:meth:`_reader_item`)."""
        key = self._reader_item(original.value) if isinstance(original.value, cst.Call) else None
        if key is None:
            return updated
        pipeline = self._epoch_aware(iterators.metadata_receiver(original.value))
        return self._metadata(original.value, updated.value, pipeline, _quote(key)) or updated

    def _reader_item(self, call: cst.Call, pipeline=None) -> cst.SimpleString | None:
        """The key of ``pipe.epoch_size()[key]`` (``reader_meta``), when ``call`` is the call of an
        epoch-aware pipeline (``pipeline``, else the one ``pipe`` holds) without arguments and the key
        is its one reader's literal name: the item DALI's dict by reader name gives. Else None."""
        item = self.ctx.model.parents.get(call)
        pipeline = pipeline or self._epoch_aware(iterators.metadata_receiver(call))
        if pipeline is None or call.args or not isinstance(item, cst.Subscript) or item.value is not call:
            return None
        if len(item.slice) != 1 or not isinstance(item.slice[0].slice, cst.Index):
            return None
        key = item.slice[0].slice.value
        name = reader_name(pipeline)
        return key if isinstance(key, cst.SimpleString) and name is not None and key.evaluated_value == name else None

    def _metadata(self, original: cst.Call, updated, pipeline, quote: str):
        """What the call ``original`` (``updated`` after the other rules) of ``pipeline`` asking its one
        reader's metadata becomes: ``pipe_meta`` (``reader_meta``), or its ``"epoch_size"`` item; None
        where the rule does not apply there."""
        pipe = iterators.metadata_receiver(original) or iterators.length_receiver(original)
        if not self.ctx.applies(self.code, original):
            return None
        how = self.ctx.model.metadata_reads.get(pipe)
        if how == "item":  # `pipes[i]` → `pipes_meta[i]`
            received = updated.func.value if isinstance(updated.func.value, cst.Subscript) else pipe
            meta = received.with_changes(value=cst.Name(iterators.meta_name(pipe.value.value)))
        else:
            meta = iterators.meta_of(pipe)
        if isinstance(how, cst.CompFor):
            self._paired_loops.add(how)
        if isinstance(original.func, cst.Attribute):
            method = original.func.attr.value
            self.ctx.report(self.code, original, f"`.{method}(...)` → the reader's `get_metadata()`", fixed=True)
        else:  # `len(pipe)`: what its class's `__len__` returned, `self.epoch_size(name)`
            method = "epoch_size"
            self.ctx.report(
                self.code,
                original,
                "`len()` (`__len__`: `.epoch_size(...)`) → the reader's `get_metadata()`",
                fixed=True,
            )
        if method == "reader_meta":
            return meta
        # `Pipeline.epoch_size(name)` is the reader's `epoch_size_padded` (DALI 2.4 `pipeline.py`):
        # the whole data set, every shard padded to the largest with `pad_last_batch`.
        key = "epoch_size_padded" if reads_padded(pipeline) else "epoch_size"
        return cst.Subscript(meta, [cst.SubscriptElement(cst.Index(cst.SimpleString(f"{quote}{key}{quote}")))])

    def leave_CompFor(self, original: cst.CompFor, updated):
        """``for pipe in pipes`` of a comprehension that reads each pipeline's metadata →
        ``for pipe_meta, pipe in zip(pipes_meta, pipes)``."""
        if original not in self._paired_loops:
            return updated
        sep = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        name = original.target.value
        target = cst.Tuple(
            [cst.Element(cst.Name(iterators.meta_name(name)), comma=sep), cst.Element(updated.target)], lpar=[], rpar=[]
        )
        lists = cst.Call(
            cst.Name("zip"),
            [cst.Arg(cst.Name(iterators.meta_name(original.iter.value)), comma=sep), cst.Arg(updated.iter)],
        )
        return updated.with_changes(target=target, iter=lists)

    def _epoch_aware(self, pipe):
        if pipe is None:
            return None
        pipeline = self.ctx.converted_kind(pipe, Kind.PIPELINE)
        return pipeline if pipeline is not None and iterators.all_epochs(pipeline) and self._named(pipe) else None

    def _named(self, pipe) -> bool:
        """A name bound by the pipeline's creation (or an item of a list of them, or the target of
        a comprehension over such a list: ``ndd_migrate.model.features.iterators.mark``), or an attribute of
        ``self`` followed like one (``self.pipe``), with room for the metadata beside it."""
        if iterators.followed_attribute(self.ctx.model, pipe) is not None:
            return True
        return isinstance(pipe, (cst.Name, cst.Subscript)) and pipe in self.ctx.model.metadata_reads


def _reset_unfollowed(use) -> str | None:
    """Why ``pipe.reset()`` cannot be followed as written, or None: ``reset()`` of a pipeline
    function's pipeline bound to a plain name, a statement of its own."""
    pipeline, pipe = use.pipeline, use.node
    if not isinstance(pipeline, PipelineFunction) or not isinstance(pipe, cst.Name):
        return "`reset()` of a pipeline not bound to a plain name: call the migrated function again by hand"
    if not _statement_of_its_own(use):
        return "`reset()` inside an expression: a generator cannot be reset; call the migrated function again by hand"
    return None


def _statement_of_its_own(use) -> bool:
    """Is the ``reset()`` call of ``use`` a statement of its own, without arguments?"""
    stmt, call = use.statement, use.holder
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and stmt.body[0].value is call
        and not call.args
    )


def _kept_across_reset(pipeline) -> str | None:
    """Why a new generator, made by the same call, would not go on where the pipeline's next ``run()``
    after ``reset()`` would, or None: the pipeline keeps a reader, a random state, values
    ``iter_setup`` keeps between calls, or ``__init__`` statements that the generator runs."""
    if getattr(pipeline, "reader_call", None) is not None or any(op.info.reader for op in pipeline.ops.values()):
        return (
            "`reset()` restarts `iter_setup` while the reader goes on: calling the migrated function again "
            "would also restart the reader; rewrite this by hand"
        )
    if pipeline.random_calls or any(op.info.random for op in pipeline.ops.values()):
        return (
            "`reset()` restarts `iter_setup` while the random state goes on: calling the migrated function "
            "again would draw the same numbers again; rewrite this by hand"
        )
    if pipeline.setup_nonlocal:
        kept = ", ".join(f"`self.{a}`" for a in pipeline.setup_nonlocal)
        return (
            f"`iter_setup` keeps {kept} between batches, which a new generator would set again: "
            "rewrite this `reset()` by hand"
        )
    init = (
        pipeline.init.body.body
        if pipeline.init is not None and isinstance(pipeline.init.body, cst.IndentedBlock)
        else ()
    )
    if any(
        i not in pipeline.init_dropped and i != pipeline.super_index and not cstutil.is_docstring(s)
        for i, s in enumerate(init)
    ):
        return (
            "`__init__` runs statements that a new generator would run again: rewrite this `reset()` by hand "
            "(call the migrated function again)"
        )
    return None


def _quote(node: cst.BaseExpression) -> str:
    return node.quote if isinstance(node, cst.SimpleString) and node.quote in ("'", '"') else '"'


def _enclosing_function(node: cst.CSTNode, parents: dict) -> cst.CSTNode | None:
    """The function, lambda or class whose body holds ``node`` (None: the module's own code)."""
    current = parents.get(node)
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
        current = parents.get(current)
    return current


def _one_reader_name(call: cst.Call) -> bool:
    """``pipe.epoch_size("Reader")`` or ``pipe.epoch_size(name="Reader")``: one reader, by name."""
    if len(call.args) != 1 or call.args[0].star:
        return False
    keyword = call.args[0].keyword
    return keyword is None or keyword.value == "name"
