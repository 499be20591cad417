"""NDD001 pipeline-function: a ``@pipeline_def`` function becomes a dynamic-mode generator function."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from ndd_migrate import support
from ndd_migrate.codegen import epoch_shape, external_source_loop, prefetch, shape, twin_readers
from ndd_migrate.dali import pipeline_args
from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model import constructs
from ndd_migrate.model.features import checkpoints
from ndd_migrate.model.types import PipelineFunction, own_context, reader_on_gpu
from ndd_migrate.syntax import cstutil, names, tree
from ndd_migrate.syntax.cstutil import SkipsTrivia

RULE = Rule(
    code="NDD001",
    name="pipeline-function",
    summary="a `@pipeline_def` function declares a graph; dynamic mode runs plain Python",
    what=(
        "Rewrites a `@pipeline_def` function (bare, called, with arguments; any import alias) into the "
        "generator function of docs/target-shape.md: same name and parameters, pipeline-level settings as "
        "keyword-only parameters, the reader, RNG and context created once, and one batch of outputs per "
        "`next()`, continuing across epochs exactly as `pipe.run()` did. A function that cannot be rewritten "
        "faithfully (several readers whose epochs may not line up, a reader inside an expression, a `return` "
        "inside a loop or before the "
        "reader, a data-dependent "
        "`if` that is not simple (NDD423), an op without dynamic-mode form, a returned value whose number of "
        "outputs cannot be read from the code) is left as it is, with a TODO saying why. Each `next()` gives "
        "the tuple `pipe.run()` gave: the number of outputs of a returned name or call comes from the op "
        "table and the call's arguments (`fn.readers.coco(..., polygon_masks=True)` has 5), or from the "
        "returns of the module's helper function it calls. A `return` ending an `if` branch (`if not "
        "training: return images, labels`) becomes `yield` then `continue`. An external source takes the "
        "reader's place (NDD421). Pipelines that feed a "
        "framework iterator get the epoch-aware shape (NDD411); checkpointing ones take `checkpoint=` (NDD415). "
        "Two reader statements with the same arguments (no shuffling without a `seed=` literal, no `name=`) are "
        "two readers reading the same batches: both are created once and walked together, "
        "`zip(reader.next_epoch(...), reader_2.next_epoch(...), strict=True)`."
    ),
    why=(
        "Dynamic mode has no graph object: there is nothing to build or run. A reader created per call "
        "would restart its shuffle and shard position every batch, so it must be created once."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "Changes the function's type (pipeline factory → generator); its call sites are rewritten in the "
        "same run (NDD002, NDD003, NDD004). Uses of the pipeline object that have no counterpart are "
        "reported (NDD005). Verify the result with `ndd-migrate verify`."
    ),
    examples=(
        Example(
            title="reader hoisted, batches across epochs",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=4, num_threads=2, device_id=0)\n"
                "def features(root):\n"
                "    data = fn.readers.numpy(file_root=root)\n"
                "    return data * 2\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def features(root, *, batch_size=4, num_threads=2, device_id=0):\n"
                "    ndd.set_num_threads(num_threads)\n"
                "    reader = ndd.readers.Numpy(file_root=root)\n"
                "    while True:\n"
                "        for (data,) in reader.next_epoch(batch_size=batch_size):\n"
                "            yield (data * 2).evaluate(),\n"
            ),
        ),
        Example(
            title="a helper of the module returns two outputs: yielded as the tuple it is",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "def decode(jpegs, labels):\n"
                "    return fn.decoders.image(jpegs), labels\n\n\n"
                "@pipeline_def(batch_size=4)\n"
                "def train(root):\n"
                "    jpegs, labels = fn.readers.file(file_root=root)\n"
                "    return decode(jpegs, labels)\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "def decode(jpegs, labels):\n"
                "    return ndd.decoders.image(jpegs), labels\n\n\n"
                "@prefetching\n"
                "def train(root, *, batch_size=4):\n"
                "    reader = ndd.readers.File(file_root=root)\n"
                "    while True:\n"
                "        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
                "            yield tuple(batch.evaluate() for batch in decode(jpegs, labels))\n"
            ),
        ),
        Example(
            title="a `return` ending an `if` branch: `yield`, then the next batch",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=4)\n"
                "def images(root, training):\n"
                "    jpegs, labels = fn.readers.file(file_root=root)\n"
                "    images = fn.decoders.image(jpegs)\n"
                "    if not training:\n"
                "        return images, labels\n"
                "    return fn.flip(images, vertical=1), labels\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def images(root, training, *, batch_size=4):\n"
                "    reader = ndd.readers.File(file_root=root)\n"
                "    while True:\n"
                "        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
                "            images = ndd.decoders.image(jpegs)\n"
                "            if not training:\n"
                "                yield images.evaluate(), labels.evaluate()\n"
                "                continue\n"
                "            yield ndd.flip(images, vertical=1).evaluate(), labels.evaluate()\n"
            ),
        ),
        Example(
            title="a seed no random op draws from: no RNG (a reader shuffles with its own seed)",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=8, seed=7)\n"
                "def files(root):\n"
                "    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=3)\n"
                "    return fn.flip(fn.decoders.image(jpegs)), labels\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def files(root, *, batch_size=8, seed=7):\n"
                "    reader = ndd.readers.File(file_root=root, random_shuffle=True, seed=3)\n"
                "    while True:\n"
                "        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
                "            yield ndd.flip(ndd.decoders.image(jpegs)).evaluate(), labels.evaluate()\n"
            ),
        ),
        Example(
            title="two readers with the same arguments: walked together, epoch by epoch",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=4)\n"
                "def twice(root):\n"
                "    x = fn.readers.numpy(file_root=root)\n"
                "    y = fn.readers.numpy(file_root=root)\n"
                "    return x, y * 2\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def twice(root, *, batch_size=4):\n"
                "    reader = ndd.readers.Numpy(file_root=root)\n"
                "    reader_2 = ndd.readers.Numpy(file_root=root)\n"
                "    while True:\n"
                "        for (x,), (y,) in zip(\n"
                "            reader.next_epoch(batch_size=batch_size),\n"
                "            reader_2.next_epoch(batch_size=batch_size),\n"
                "            strict=True,\n"
                "        ):\n"
                "            yield x.evaluate(), (y * 2).evaluate()\n"
            ),
        ),
        Example(
            title="several readers with different arguments: left for a human",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=4)\n"
                "def two(a, b):\n"
                "    x = fn.readers.numpy(file_root=a)\n"
                "    y = fn.readers.numpy(file_root=b)\n"
                "    return x, y\n"
            ),
            after=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=4)\n"
                "def two(a, b):\n"
                "    x = fn.readers.numpy(file_root=a)\n"
                "    # TODO(ndd-migrate): NDD001 not migrated: more than one reader, with different arguments: "
                "decide how their epochs line up; rewrite `two` by hand (see docs/target-shape.md)\n"
                "    y = fn.readers.numpy(file_root=b)\n"
                "    return x, y\n"
            ),
        ),
    ),
    valid=(
        "def pipeline_def(f):\n    return f\n\n\n@pipeline_def\ndef p():\n    return 1\n",
        "# a comment about @pipeline_def and fn.readers.file\nx = 'pipe.build(); pipe.run()'\n",
    ),
)


class Impl(RuleImpl):
    rule = RULE
    reports = (constructs.PIPELINE_FUNCTION,)

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # an external source beside a reader, per pipeline: (iterator name, held-source name, names taken)
        self._beside: dict[str, tuple] = {}
        # the generator's name → the statements written after its `def`, before its one call
        self._lifted: dict[str, list] = {}

    def blockers(self, pipeline):
        """Every pipeline of a module that calls ``pipeline_def`` on a function (:meth:`visit_Call`):
        the helpers that function runs stay pipeline-mode code, and a converted pipeline would call
        them on dynamic-mode batches."""
        if not self.ctx.model.called_pipeline_defs:
            return []
        return [
            (
                pipeline.node,
                "the module calls `pipeline_def` on a function rather than decorating it, and that graph "
                "stays pipeline-mode code with the helpers it runs",
                "decorate that function with `@pipeline_def(...)` instead, then run ndd-migrate again",
            )
        ]

    def converts(self, pipeline) -> bool:
        return not isinstance(pipeline.node, cst.ClassDef) and self.ctx.applies(self.code, pipeline.node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        pipeline = self.ctx.model.by_node.get(node)
        if pipeline is None or not pipeline.convert or pipeline.node is not node:  # not: a legacy class's define_graph
            return
        used = pipeline.local_names | {p.name.value for p in cstutil.all_params(node.params)}
        if pipeline.given("seed") and any(cstutil.kwarg(call, "seed") is None for call in pipeline.random_calls):
            # only when some random op draws from it (readers shuffle with their own seed)
            self.ctx.model.plan.pipeline_rng[pipeline.qualname] = cstutil.fresh_rng(used)
        for call in pipeline.random_calls:
            if cstutil.kwarg(call, "seed") is not None:
                self.ctx.model.plan.op_rngs[call] = cstutil.fresh_rng(used, cstutil.callee_name(call))
        if pipeline.source is not None and pipeline.source.beside_reader:  # NDD421: drawn once per batch
            used = used | set(self.ctx.model.plan.op_rngs.values()) | set(self.ctx.model.plan.pipeline_rng.values())
            feed, held = external_source_loop.names_beside_reader(pipeline.source, used, cstutil.fresh)
            self._beside[pipeline.qualname] = (feed, held, used | {feed, held} - {None})

    def visit_Call(self, node: cst.Call) -> None:
        """``pipeline_def`` called rather than written as a decorator (``make = pipeline_def(body,
        batch_size=4)``): the function it wraps is not read as a pipeline, and converting the ``fn.*``
        calls in it would hand dynamic-mode operators to a pipeline-mode graph, so the module stays as
        it is (``ModuleModel.by_hand``)."""
        if any(node is call for call in self.ctx.model.called_pipeline_defs):
            self.ctx.report(
                self.code,
                node,
                "`pipeline_def` is called, not used as a decorator: the function it wraps is not migrated, "
                "and this module stays in pipeline mode",
                hint="not migrated: write `@pipeline_def(...)` above the graph function (settings as its "
                "arguments), call that function to create the pipeline, then run ndd-migrate again",
                fixed=False,
            )

    def _draw(self, pipeline: PipelineFunction, stmt: cst.SimpleStatementLine) -> external_source_loop.Draw:
        feed, held, used = self._beside[pipeline.qualname]
        return external_source_loop.beside_reader(self.ctx, pipeline.source, stmt, feed, held, used, cstutil.fresh)

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        """An external source beside a reader, in an ``if`` on the parameters: drawn there (NDD421)."""
        pipeline = self.ctx.model.by_node.get(self.ctx.walk.functions[-1]) if self.ctx.walk.functions else None
        if (
            pipeline is None
            or not pipeline.convert
            or pipeline.source is None
            or not pipeline.source.nested
            or pipeline.source.statement is not original
        ):
            return updated
        return cst.FlattenSentinel(self._draw(pipeline, updated).statements)

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        pipeline = self.ctx.model.by_node.get(original)
        if pipeline is None or not pipeline.convert or pipeline.node is not original:
            return updated
        if not pipeline.label:  # a graph built by hand is reported as such (NDD403)
            self.ctx.report(
                self.code,
                original.name,
                f"`@pipeline_def` function `{original.name.value}` → dynamic-mode generator",
                fixed=True,
            )
        settings = prefetch.settings_of(pipeline)
        prefetches = prefetch.applies(settings, pipeline.checkpointing) or prefetch.feeds_epochs(pipeline)
        kept = prefetch.kept(settings) if prefetches else frozenset()
        for name, arg in pipeline.decorator_args.items():
            if name in pipeline_args.EXECUTOR_ONLY and name not in kept:
                self.ctx.report("NDD004", arg, f"`{name}` has no dynamic-mode counterpart: dropped", fixed=True)
        parts = _Parts(used=self._names_taken(pipeline, original))
        if prefetches:
            parts.prefetch = settings
        body = self._body(pipeline, original, updated, parts)
        if parts.lifted:
            self._lifted[original.name.value] = parts.lifted
        removed = next(d for d, o in zip(updated.decorators, original.decorators) if o is pipeline.decorator)
        own = self._prefetching(parts)  # None when a nested generator took it, or none prefetches
        decorators = [own if o is pipeline.decorator else d for d, o in zip(updated.decorators, original.decorators)]
        return updated.with_changes(
            decorators=[d for d in decorators if d is not None],
            leading_lines=[*updated.leading_lines, *_comments(removed)],
            params=self._params(pipeline, updated.params),
            body=updated.body.with_changes(body=body),
        )

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        """The statements that store on an outside object, first in a graph built in a function
        (``self.length = ...``): written after the generator's ``def``, before its one call, where
        pipeline mode ran them (``pipeline.lifted``)."""
        if not self._lifted:
            return updated
        body = []
        for stmt in updated.body:
            body.append(stmt)
            lifted = self._lifted.pop(stmt.name.value, None) if isinstance(stmt, cst.FunctionDef) else None
            if lifted:
                body.extend(
                    [
                        lifted[0].with_changes(leading_lines=[cst.EmptyLine(indent=False), *lifted[0].leading_lines]),
                        *lifted[1:],
                    ]
                )
        return updated.with_changes(body=body)

    # -- signature -----------------------------------------------------------------------------
    def _params(self, pipeline: PipelineFunction, params: cst.Parameters) -> cst.Parameters:
        existing = {p.name.value for p in cstutil.all_params(params)}
        new = [
            cst.Param(
                name=cst.Name(name),
                default=default,
                equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
                if default
                else cst.MaybeSentinel.DEFAULT,
            )
            for name, default in pipeline.parameters()
            if name not in existing
        ]
        return shape.with_kwonly(params, new) if new else params

    # -- body ----------------------------------------------------------------------------------
    def _body(
        self, pipeline: PipelineFunction, original: cst.FunctionDef, updated: cst.FunctionDef, parts: _Parts
    ) -> list:
        """The generator's body: the statements sorted by when they run (once, or per batch), the
        batch ending in its ``yield``, then the loops around it (the reader's epochs; the external
        source's loop or ``while True:``)."""
        orig_body = list(original.body.body)
        body = list(updated.body.body)
        head: list = []
        if body and cstutil.is_docstring(body[0]):
            head.append(body.pop(0))
            orig_body.pop(0)
        ret = body.pop() if pipeline.returns.final is not None else None  # else: the body ends with an `if`
        self._setup(pipeline, parts)
        self._sort(pipeline, parts, orig_body, body, len(head), ret is not None)
        inner = self._batch(pipeline, parts, ret)
        reader_name = None
        if parts.reader is not None:
            reader_name = cstutil.fresh("reader", parts.used)
            inner = self._reader_loop(pipeline, parts, reader_name, inner)
        if pipeline.checkpointing:  # NDD415: registered (and so restored) before the first next_epoch
            rngs = [r for r in [parts.rng, *(self.ctx.model.plan.op_rngs.get(c) for c in pipeline.random_calls)] if r]
            reader = parts.reader.body[0].value if parts.reader is not None else None
            parts.prologue += checkpoints.registrations(reader, reader_name, rngs)
        return [*head, *self._loops(pipeline, parts, reader_name, inner)]

    def _names_taken(self, pipeline: PipelineFunction, original: cst.FunctionDef) -> set[str]:
        """The names a name the rewrite adds must differ from: the function's own, the RNGs planned for
        the module, and those of an external source drawn beside the reader."""
        used = pipeline.local_names | {p.name.value for p in cstutil.all_params(original.params)}
        used |= set(self.ctx.model.plan.op_rngs.values()) | set(self.ctx.model.plan.pipeline_rng.values())
        if pipeline.source is not None and pipeline.source.beside_reader:
            used |= self._beside[pipeline.qualname][2]
        return used

    def _setup(self, pipeline: PipelineFunction, parts: _Parts) -> None:
        """What the generator does first, once: the thread count, its own evaluation context, its RNGs."""
        if pipeline.given("num_threads"):
            parts.prologue.append(
                shape.expr_stmt(cst.Call(self.ctx.ndd("set_num_threads"), [cst.Arg(cst.Name("num_threads"))]))
            )
        if own_context(pipeline):
            parts.ctx_name = cstutil.fresh("ctx", parts.used)
            parts.ctx_stmt = shape.assign(
                parts.ctx_name, cst.Call(self.ctx.ndd("EvalContext"), [shape.kw("device_id", cst.Name("device_id"))])
            )
            parts.prologue.append(parts.ctx_stmt)
        parts.rng = self.ctx.model.plan.pipeline_rng.get(pipeline.qualname)
        if parts.rng:
            parts.prologue.append(shape.assign(parts.rng, self._rng_call(cst.Name("seed"))))
        for call in pipeline.random_calls:
            if call in self.ctx.model.plan.op_rngs:
                parts.prologue.append(
                    shape.assign(self.ctx.model.plan.op_rngs[call], self._rng_call(cstutil.kwarg(call, "seed").value))
                )

    def _sort(
        self, pipeline: PipelineFunction, parts: _Parts, orig_body: list, body: list, shift: int, returns: bool
    ) -> None:
        """Each statement of the body to where the generator runs it: once (before or after the
        reader), as the reader or its twin, as the external source, or per batch.

        ``orig_body`` and ``body`` are the statements before and after the other rules' changes,
        without the docstring (``shift``: 1 when there was one; the model's indices count it);
        ``body`` is also without the final ``return`` (``returns``: there is one, the last of
        ``orig_body``)."""
        reader_index, twin_index = _shifted(pipeline.reader_index, shift), _shifted(pipeline.twin_index, shift)
        source_index = _shifted(pipeline.source.index if pipeline.source is not None else None, shift)  # NDD421
        beside = pipeline.source is not None and pipeline.source.beside_reader  # drawn in the reader's loop
        if beside and pipeline.source.nested:
            source_index = None  # the `if` that holds it stays; its statement is drawn there
            # beside a reader (NDD421): the iterator made once, after the reader (`feed = None` in an `if`)
            parts.source_prologue = self._draw(pipeline, pipeline.source.statement).prologue
        anchor = reader_index if reader_index is not None else source_index
        # Statements another rule removed (`pipe = Pipeline.current()`, NDD109) are not in `body`:
        # the others pair up in order, each keeping its index in the original body.
        kept = [
            (index, orig_stmt) for index, orig_stmt in enumerate(orig_body) if orig_stmt not in self.ctx.walk.removed
        ]
        if returns:
            kept = kept[:-1]  # the final `return`, popped by the caller
        for (index, orig_stmt), stmt in self._not_dropped(pipeline, kept, body, shift):
            if index + shift < pipeline.lifted:  # no docstring then (build_time.lift_refusal)
                parts.lifted.append(stmt)
            elif index + shift in pipeline.hoisted:
                (parts.after_reader if reader_index is not None and index > reader_index else parts.prologue).append(
                    stmt
                )
            elif index == reader_index:
                parts.reader = stmt
                parts.loop_target = shape.loop_target(stmt.body[0].targets[0].target, pipeline.reader_outputs)
            elif index == twin_index:  # a second reader whose epochs line up (ndd_migrate.model.features.twin_readers)
                parts.twin = stmt
                parts.twin_target = shape.loop_target(stmt.body[0].targets[0].target, pipeline.twin_outputs)
            elif index == source_index:
                self._take_source(pipeline, parts, stmt, beside)
            elif anchor is not None and index < anchor and not self._has_dali_call(orig_stmt):
                parts.prologue.append(stmt)  # plain Python the reader may need (paths, lists)
            else:
                parts.per_batch.append(stmt)

    def _not_dropped(self, pipeline: PipelineFunction, kept: list, body: list, shift: int) -> list:
        """``kept`` paired with ``body``, but for the statements the generator drops (a ``print`` of
        graph nodes, build_time), each reported with the note that says why; the comments above a
        dropped statement go to the next one (they may say what the code below does)."""
        pairs, comments = [], []
        for (index, orig_stmt), stmt in zip(kept, body):
            why = pipeline.dropped.get(index + shift)
            if why is None:
                if comments:
                    stmt = stmt.with_changes(leading_lines=[*comments, *stmt.leading_lines])
                    comments = []
                pairs.append(((index, orig_stmt), stmt))
            else:
                self.ctx.report(self.code, orig_stmt, why, fixed=True)
                comments += [line for line in stmt.leading_lines if line.comment is not None]
        return pairs

    def _take_source(
        self, pipeline: PipelineFunction, parts: _Parts, stmt: cst.SimpleStatementLine, beside: bool
    ) -> None:
        """The external source's statement (NDD421): drawn per batch beside the reader, else the loop
        that replaces ``while True:``."""
        if beside:
            draw = self._draw(pipeline, stmt)
            parts.source_prologue.extend(draw.prologue)
            parts.per_batch.extend(draw.statements)
        else:
            parts.source = external_source_loop.plan(self.ctx, pipeline, stmt, parts.used, cstutil.fresh)

    def _batch(self, pipeline: PipelineFunction, parts: _Parts, ret: cst.SimpleStatementLine | None) -> list:
        """The statements run per batch, in the pipeline's context where anything runs in it, then the
        ``yield`` of the outputs (in the ``if`` branches that return, when some do)."""
        form = pipeline.outputs.form if pipeline.outputs else None
        outputs = shape.yield_value(ret.body[0].value, form) if ret is not None else None
        per_batch = parts.per_batch
        if parts.source is not None:
            per_batch = [*parts.source.convert, *per_batch]
        per_batch = shape.unused_results_evaluated(shape.strip_blank_head(per_batch), self.ctx.model.names.ndd or "ndd")
        if parts.ctx_name and ret is not None and not pipeline.branch_forms and shape.has_call(ret.body[0].value):
            # Ops in the returned expression run inside the context too; the yield stays outside.
            outputs_name = cstutil.fresh("outputs", parts.used)
            per_batch.append(shape.assign(outputs_name, outputs))
            outputs = cst.Name(outputs_name)
        reads_in_ctx = parts.reader is not None and reader_on_gpu(parts.reader.body[0].value)
        if parts.ctx_stmt is not None and not per_batch and not pipeline.branch_forms and not reads_in_ctx:
            parts.prologue.remove(parts.ctx_stmt)  # nothing runs in it: the reader reads in the default context
            parts.ctx_name = None
        if pipeline.branch_forms:  # returns in `if` branches: `yield` + `continue` (docs/target-shape.md)
            per_batch = shape.Branches(parts.ctx_name, pipeline.branch_forms).block(per_batch, tail=ret is None)
        elif parts.ctx_name and per_batch:
            per_batch = [cst.With(items=[cst.WithItem(cst.Name(parts.ctx_name))], body=cst.IndentedBlock(per_batch))]
        if ret is None:
            return per_batch
        return [
            *per_batch,
            cst.SimpleStatementLine(body=[cst.Expr(cst.Yield(value=outputs))], leading_lines=ret.leading_lines),
        ]

    def _reader_loop(self, pipeline: PipelineFunction, parts: _Parts, reader_name: str, inner: list) -> list:
        """The reader (and its twin) created once, in the prologue; ``inner``, the batch, in the loop
        over their epochs."""
        reader_stmt = parts.reader
        parts.prologue.append(
            reader_stmt.with_changes(
                body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(reader_name))], value=reader_stmt.body[0].value)]
            )
        )
        readers = [(reader_name, parts.loop_target, shape.epoch_args(reader_stmt.body[0].value, parts.ctx_name))]
        if parts.twin is not None:
            twin_name = cstutil.fresh("reader_2", parts.used | {reader_name})
            parts.prologue.append(
                shape.assign(twin_name, parts.twin.body[0].value).with_changes(leading_lines=parts.twin.leading_lines)
            )
            readers.append((twin_name, parts.twin_target, shape.epoch_args(parts.twin.body[0].value, parts.ctx_name)))
        parts.prologue.extend(parts.after_reader)
        if not pipeline.epochs:
            parts.prologue.extend(parts.source_prologue)
        target, epochs = twin_readers.header(readers)
        return [cst.For(target=target, iter=epochs, body=cst.IndentedBlock(inner))]

    def _loops(self, pipeline: PipelineFunction, parts: _Parts, reader_name: str | None, inner: list) -> list:
        """The prologue, then the loop that gives batch after batch: the external source's, or
        ``while True:``; for a framework iterator, the epoch-aware shape around it."""
        source = parts.source
        if source is not None and pipeline.restarts:  # one generator per epoch (docs/target-shape.md)
            # the function itself takes `@prefetching`: its depth says where an epoch left early goes on
            return [
                *parts.prologue,
                *source.prologue,
                *epoch_shape.per_epoch(source.loop(inner), cstutil.fresh("batches", parts.used)),
            ]
        if source is not None:  # the external source's loop replaces `while True:`
            return [*parts.prologue, *source.prologue, *source.loop(inner)]
        loop = cst.While(test=cst.Name("True"), body=cst.IndentedBlock(inner))
        if pipeline.epochs:  # docs/target-shape.md, "Framework iterators"
            # an external source's iterator made in the nested generator, which assigns it
            nested = self._prefetching(parts)  # the nested generator prefetches
            return epoch_shape.body(
                parts.prologue, loop, reader_name, cstutil.fresh("batches", parts.used), parts.source_prologue, nested
            )
        return [*parts.prologue, loop]

    def _prefetching(self, parts: _Parts) -> cst.Decorator | None:
        """``@prefetching`` for the function that yields the batches (taken once), importing it."""
        settings, parts.prefetch = parts.prefetch, None
        if settings is None:
            return None
        return prefetch.decorator(self.ctx.support(support.PREFETCHING), settings)

    def _rng_call(self, seed: cst.BaseExpression) -> cst.Call:
        return cst.Call(self.ctx.ndd("random.RNG"), [shape.kw("seed", seed)])

    def _has_dali_call(self, stmt: cst.CSTNode) -> bool:
        finder = _DaliCallFinder(self.ctx)
        tree.visit(stmt, finder)
        return finder.found


@dataclass
class _Parts:
    """A pipeline function's statements, sorted by where the generator runs them (``Impl._sort``),
    and the names the rewrite adds."""

    used: set[str]  # names taken; each name the rewrite adds joins them (cstutil.fresh)
    lifted: list = field(default_factory=list)  # run where the graph was built, outside the generator
    prologue: list = field(default_factory=list)  # run once, before the reader is created
    after_reader: list = field(default_factory=list)  # run once, after the reader is created (build_time)
    per_batch: list = field(default_factory=list)
    # beside a reader (NDD421): the iterator made once, after the reader (`feed = None` in an `if`)
    source_prologue: list = field(default_factory=list)
    ctx_name: str | None = None  # the pipeline's own evaluation context, while something runs in it
    ctx_stmt: cst.SimpleStatementLine | None = None
    rng: str | None = None  # the pipeline's RNG, when a random op draws from its seed
    reader: cst.SimpleStatementLine | None = None
    loop_target: cst.BaseAssignTargetExpression | None = None
    twin: cst.SimpleStatementLine | None = None  # a second reader whose epochs line up with the first
    twin_target: cst.BaseAssignTargetExpression | None = None
    source: external_source_loop.Plan | None = None  # an external source in the reader's place
    # the pipeline-level settings while some function is still to get `@prefetching` (prefetch.py)
    prefetch: dict | None = None


class _DaliCallFinder(SkipsTrivia, cst.CSTVisitor):
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        dali = self.ctx.dali_name(node.func)
        if dali and (names.fn_path(dali) or names.math_function(dali)):
            self.found = True


def _shifted(index: int | None, shift: int) -> int | None:
    """A statement's index in the model (which counts the docstring) in the body without it."""
    return index - shift if index is not None else None


def _comments(decorator: cst.Decorator) -> list[cst.EmptyLine]:
    """The comments of a removed decorator (above it, after it on its line), kept above the function."""
    lines = [line for line in decorator.leading_lines if line.comment is not None]
    comment = decorator.trailing_whitespace.comment
    return [*lines, cst.EmptyLine(comment=comment)] if comment is not None else lines
