"""NDD101 fn-call: ``fn.*`` operators become ``ndd.*`` calls (readers become their classes)."""

from __future__ import annotations

import libcst as cst

from ndd_migrate import support
from ndd_migrate.codegen import arguments, input_sets, sample_shapes
from ndd_migrate.dali.tables import has_expression_form, op_info
from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.values import build_time, graph_code
from ndd_migrate.syntax import cstutil, names, tree

RULE = Rule(
    code="NDD101",
    name="fn-call",
    summary="`fn.<op>` is a pipeline-mode graph node; dynamic mode calls `ndd.<op>`",
    what=(
        "Rewrites every reference to an operator of `nvidia.dali.fn` (under any import alias, including "
        "`dali.fn.x` and `from nvidia.dali.fn import x`) to its dynamic-mode name from the table generated "
        "from DALI's op schemas: readers become their classes (`fn.readers.file` → `ndd.readers.File`, "
        "`fn.readers.coco` → `ndd.readers.COCO`), deprecated aliases become current names "
        "(`fn.coin_flip` → `ndd.random.coin_flip`). An operator called on an *input set* (a list of inputs, "
        "`fn.cast([a, b], dtype=...)`), which pipeline mode runs as one operator instance per input, becomes one "
        "`ndd` call per input, in a list (`[ndd.cast(x, dtype=...) for x in [a, b]]`; `zip` for several lists; "
        "a one-element list gives one output, as in pipeline mode). It stays blocked, saying why, where the calls "
        "would not give pipeline mode's values: a random operator (its instances are seeded alike, so every input "
        "gets the same draws), an operator with several outputs (grouped by output), an argument that holds a "
        "call (evaluated once for all inputs in pipeline mode). "
        "`fn.shapes(x)`, and the `DataNode` method `x.shape()`, which "
        "dynamic mode has no operator for, become `ndd.as_batch(x.shape, dtype=..., device=...)`: the same 1-D "
        "shape per sample, of the same dtype (INT64 by default), on the input's device (`fn.shapes`) or the CPU "
        "(`x.shape()`); `fn.shapes` of an expression without `device=` blocks the pipeline (the input would be "
        "computed twice). "
        "A graph constant of a numpy array given as an operator's positional input, "
        "`types.Constant(np.array([0], dtype=np.float32))`, becomes the array: a dynamic-mode op broadcasts it to "
        "every sample of its batch input, as the constant node did. Only an array written out with a dtype the "
        "constant node keeps (`float32`, `int32`, `uint8`, ...: not `float64` or `int64`, which it narrows) is "
        "taken, beside an input that is a batch; other graph constants are reported by NDD901. "
        "In a `Pipeline` subclass, `self.size = types.Constant(value, dtype=types.INT64)` (any numeric type but "
        "`FLOAT64`) made in `__init__` and only given to operators (as inputs, beside a batch, or as arguments) "
        "becomes `size = dali_constant(value, dtype=types.INT64)` in the generator: the constant node's data as a "
        "numpy array (the support module), converted as DALI converted them (float data to an integer type round "
        "half away from zero). "
        "It keeps a `@pipeline_def` function in pipeline mode where its data come from a place the generator's "
        "batch loop cannot lift out: a reader called in a helper function the graph runs, or, in a function "
        "without a reader or external source of its own, values made by a function of another module that its "
        "operators (or its graph helpers) take as inputs. The generator creates its reader once, before the "
        "loop, from a statement of the function itself; anything else runs for every batch, and a reader made "
        "there would start its epoch again at each one."
    ),
    why=(
        "`fn.*` calls only declare graph nodes (`DataNode`s, computed when a pipeline that uses them runs); "
        "on dynamic-mode batches they do not compute anything. Reader "
        "class names are not a mechanical PascalCase (`COCO`, `MXNet`, `TFRecord`), so a table is needed."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "Applied by `migrate` together with the pipeline rewrite (NDD001): an `ndd.*` call outside the "
        "rewritten function would run eagerly where the pipeline expected a graph node. Calls inside a "
        "pipeline that cannot be rewritten are left alone."
    ),
    examples=(
        Example(
            before=(
                "import nvidia.dali.fn as fn\n\n\n"
                "def augment(images):\n"
                "    images = fn.flip(images, vertical=1)\n"
                "    return fn.coin_flip(images)\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def augment(images):\n"
                "    images = ndd.flip(images, vertical=1)\n"
                "    return ndd.random.coin_flip(images)\n"
            ),
            title="deprecated names become current names",
        ),
        Example(
            title="an input set: one call per input, in the same order",
            before=(
                "import nvidia.dali.fn as fn\nimport nvidia.dali.types as types\nfrom nvidia.dali import pipeline_def\n\n\n"
                "@pipeline_def(batch_size=4)\n"
                "def views(root):\n"
                "    data = fn.readers.numpy(file_root=root)\n"
                "    a, b = fn.cast([data, data * 2], dtype=types.FLOAT)\n"
                "    return a, b\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n"
                "import nvidia.dali.types as types\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def views(root, *, batch_size=4):\n"
                "    reader = ndd.readers.Numpy(file_root=root)\n"
                "    while True:\n"
                "        for (data,) in reader.next_epoch(batch_size=batch_size):\n"
                "            a, b = [ndd.cast(x, dtype=types.FLOAT) for x in [data, data * 2]]\n"
                "            yield a.evaluate(), b.evaluate()\n"
            ),
        ),
        Example(
            title="a random operator on an input set draws the same values for every input: kept, with the reason",
            before=(
                "import nvidia.dali.fn as fn\nfrom nvidia.dali import pipeline_def\n\n\n"
                "@pipeline_def(batch_size=4)\n"
                "def pair(root):\n"
                "    jpegs, _ = fn.readers.file(file_root=root)\n"
                "    image = fn.decoders.image(jpegs)\n"
                "    mask = image > 128\n"
                "    image, mask = fn.random_resized_crop([image, mask], size=[64, 64])\n"
                "    return image, mask\n"
            ),
            after=(
                "import nvidia.dali.fn as fn\nfrom nvidia.dali import pipeline_def\n\n\n"
                "@pipeline_def(batch_size=4)\n"
                "def pair(root):\n"
                "    jpegs, _ = fn.readers.file(file_root=root)\n"
                "    image = fn.decoders.image(jpegs)\n"
                "    mask = image > 128\n"
                "    # TODO(ndd-migrate): NDD101 not migrated: `fn.random_resized_crop([image, mask], ...)` runs on an "
                "input set: pipeline mode seeds its instances alike (one logical operator), so every input gets the same "
                "random draws (the same crop for an image and its mask), where separate `ndd` calls on one RNG draw anew; "
                "write one call per input, all drawing from one RNG state, as pipeline mode does "
                "(`[ndd.random_resized_crop(image, ..., rng=rng.clone()), ..., ndd.random_resized_crop(mask, ..., rng=rng)]`)\n"
                "    image, mask = fn.random_resized_crop([image, mask], size=[64, 64])\n"
                "    return image, mask\n"
            ),
        ),
        Example(
            title="`fn.shapes`: a batch knows its samples' shapes",
            before=(
                "from nvidia.dali import fn, pipeline_def, types\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p(root):\n"
                "    data = fn.readers.numpy(file_root=root)\n"
                "    size = fn.shapes(data, dtype=types.INT32)\n"
                "    return fn.pad(data, shape=size * 2)\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n"
                "from nvidia.dali import types\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def p(root, *, batch_size=2):\n"
                "    reader = ndd.readers.Numpy(file_root=root)\n"
                "    while True:\n"
                "        for (data,) in reader.next_epoch(batch_size=batch_size):\n"
                "            size = ndd.as_batch(data.shape, dtype=types.INT32, device=data.device)\n"
                "            yield ndd.pad(data, shape=size * 2).evaluate(),\n"
            ),
        ),
        Example(
            title="a graph constant given as an operator input: the array itself",
            before=(
                "import numpy as np\nfrom nvidia.dali import fn, pipeline_def, types\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p(root):\n"
                "    data = fn.readers.numpy(file_root=root)\n"
                "    size = fn.shapes(data, dtype=types.INT32)\n"
                "    return fn.slice(size, types.Constant(np.array([0], dtype=np.float32)), "
                "types.Constant(np.array([1], dtype=np.float32)), axes=[0])\n"
            ),
            after=(
                "import numpy as np\n"
                "import nvidia.dali.experimental.dynamic as ndd\n"
                "from nvidia.dali import types\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def p(root, *, batch_size=2):\n"
                "    reader = ndd.readers.Numpy(file_root=root)\n"
                "    while True:\n"
                "        for (data,) in reader.next_epoch(batch_size=batch_size):\n"
                "            size = ndd.as_batch(data.shape, dtype=types.INT32, device=data.device)\n"
                "            yield ndd.slice(size, np.array([0], dtype=np.float32), np.array([1], dtype=np.float32), axes=[0]).evaluate(),\n"
            ),
        ),
    ),
    valid=(
        "import nvidia.dali.experimental.dynamic as ndd\n\nx = ndd.flip(ndd.zeros(shape=[2]))\n",
        "import fn\n\nfn.readers.file(file_root='x')\n",
    ),
)


class Impl(RuleImpl):
    rule = RULE

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._constants: set[int] | None = None
        self._init_calls: set[int] | None = None
        self._calls: dict[cst.CSTNode, list[cst.Call]] = {}

    def _calls_under(self, node: cst.CSTNode) -> list[cst.Call]:
        """:func:`_calls`, read once per node: a helper is reached by every pipeline that runs it,
        and a pipeline's own graph is among the nodes it reaches."""
        if node not in self._calls:
            self._calls[node] = _calls(node)
        return self._calls[node]

    def blockers(self, pipeline):
        """``fn.op([a, b])``, an input set, in the pipeline's graph or a helper it runs: one ``ndd`` call
        per input when that gives what pipeline mode gives (``codegen.input_sets``), else it blocks,
        saying why; an ``fn.shapes(...)`` the expression cannot write (also in a legacy class's
        ``define_graph``)."""
        graph, _ = graph_code.prepared(self.ctx.resolver, self.ctx.model)
        reached = [
            node for node, owners in graph.reached_by.items() if pipeline in owners
        ]  # its graph and the helpers it runs
        calls = list(
            dict.fromkeys(c for node in dict.fromkeys([pipeline.node, *reached]) for c in self._calls_under(node))
        )
        found = []
        for call in calls:
            path = names.fn_path(self.dali_name(call.func))
            if has_expression_form(path):
                why = sample_shapes.problem(call.args)
                if why is not None:
                    found.append(
                        (
                            call,
                            f"`fn.{path}(...)` cannot be written as `ndd.as_batch(x.shape, ...)`: {why}",
                            "see docs/target-shape.md (`fn.shapes`)",
                        )
                    )
                continue
            if (
                isinstance(pipeline.node, cst.FunctionDef)
                and _is_shape_method(call.func)
                and sample_shapes.method_problem(call) is not None
            ):
                if graph.kind(call.func.value) == graph_code.NODE:
                    found.append(
                        (
                            call,
                            f"`.shape(...)` of a DataNode cannot be written as `ndd.as_batch(x.shape, ...)`: "
                            f"{sample_shapes.method_problem(call)}",
                            "see docs/target-shape.md (`fn.shapes`)",
                        )
                    )
                continue
            arg = cstutil.input_set(call) if path is not None else None
            if arg is None:
                continue
            info = op_info(path)
            if info is None or info.ndd is None:
                continue  # no dynamic-mode form: NDD901 blocks it
            why = input_sets.obstacle(call, info.random, info.num_outputs)
            if why is None:
                continue
            code = cst.Module([]).code_for_node(arg.value)
            found.append(
                (
                    call,
                    f"`fn.{path}({code}, ...)` runs on an input set: {why}",
                    input_sets.hint(info.ndd, arg.value, info.random),
                )
            )
        found += self._sources_out_of_reach(pipeline, reached, graph)
        for constant in [*pipeline.input_constants, *getattr(pipeline, "constant_inputs", ())]:
            why = self._constant_problem(constant, graph)
            if why is not None:
                found.append((constant, why, "give the op the numpy array itself, beside an input that is a batch"))
        return found

    def _sources_out_of_reach(self, pipeline, reached: list, graph) -> list:
        """Where a ``@pipeline_def`` function's data come from a place the batch loop cannot lift out:
        a reader called in a helper the graph runs (defined outside the function: NDD001 reports
        the functions nested in it), or, in a function without a reader or an external
        source of its own, values made by a call of an imported function that its operators take as
        inputs. The generator creates its reader once, before the loop, from a statement of the
        function itself; anything else runs for every batch, and a reader made there would start
        its epoch again at each one (the first batch, forever)."""
        if not isinstance(pipeline.node, cst.FunctionDef):
            return []
        found = []
        nested = {id(n) for n in tree.walk(pipeline.node) if isinstance(n, cst.FunctionDef)}  # NDD001 says those
        for node in reached:
            if id(node) in nested or not isinstance(node, cst.FunctionDef):
                continue
            for call in self._calls_under(node):
                path = names.fn_path(self.dali_name(call.func))
                info = op_info(path) if path is not None else None
                if info is not None and info.reader:
                    found.append(
                        (
                            call,
                            f"`fn.{path}(...)` is called in `{node.name.value}()`, which the graph of "
                            f"`{pipeline.display}` runs: the generator creates its reader once, before its batch "
                            "loop, only from a statement of the pipeline function itself; in a helper it would be "
                            "created again for every batch",
                            f"call the reader in `{pipeline.display}` and pass its outputs to `{node.name.value}()`",
                        )
                    )
        if pipeline.reader_index is None and not pipeline.external_sources:
            found += self._imported_sources(pipeline, graph)
        return found

    def _imported_sources(self, pipeline, graph) -> list:
        """Top-level ``x, y = imported(...)`` whose values (or names unpacked from them) the
        pipeline's operators, or the graph helpers it calls, take as inputs."""
        inputs = {
            arg.value.value
            for call in self._calls_under(pipeline.node)
            if names.fn_path(self.dali_name(call.func)) is not None or call in graph.callee
            for arg in call.args
            if arg.keyword is None and isinstance(arg.value, cst.Name)
        }
        made = self._imported_values(pipeline.node.body)
        found = []
        for call in dict.fromkeys(made.values()):
            bound = sorted(name for name, source in made.items() if source is call and name in inputs)
            if bound:
                found.append(
                    (
                        call,
                        f"{_listed(bound)} {'comes' if len(bound) == 1 else 'come'} from "
                        f"`{cstutil.snippet(call.func)}(...)`, a function of another module, and "
                        f"`{pipeline.display}` has no reader or external source of its own: if it makes the "
                        "graph's source (a reader), the generator would make it again for every batch",
                        f"call the reader (or `fn.external_source`) in `{pipeline.display}` itself",
                    )
                )
        return found

    def _imported_values(self, block: cst.BaseSuite) -> dict[str, cst.Call]:
        """Each name a top-level statement of ``block`` binds to what a call of an imported name
        gave (``x = imported(...)``, then ``a, b = x``) → that call."""
        made: dict[str, cst.Call] = {}
        for stmt in block.body if isinstance(block, cst.IndentedBlock) else ():
            assign = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
            if not isinstance(assign, cst.Assign):
                continue
            value = assign.value
            if (
                isinstance(value, cst.Call)
                and value in self.ctx.model.call_qualnames
                and not self.dali_name(value.func)
            ):
                source = value
            elif isinstance(value, cst.Name) and value.value in made:
                source = made[value.value]
            else:
                continue
            made.update((name, source) for name in build_time.bound_names(stmt))
        return made

    def _constant_problem(self, constant: cst.CSTNode, graph) -> str | None:
        """Why the array ``constant`` wraps cannot be given to its operator instead: ``# noqa`` (the
        op would be given a graph node), or no other input of the op is a batch (an ndd op on arrays
        alone gives one tensor, not a batch of copies) or an input set of batches (one call per
        batch, :meth:`_input_set`)."""
        if not self.ctx.applies(self.code, constant):
            return "`types.Constant(...)` left as it is: dynamic-mode ops reject a graph constant"
        call = self.ctx.model.parents.get(self.ctx.model.parents.get(constant))
        others = [a.value for a in getattr(call, "args", ()) if a.keyword is None and a.value is not constant]
        if not any(_batch_input(graph, value) for value in others):
            what = "`types.Constant(...)`"
            if not isinstance(constant, cst.Call):  # `self.<attr>`, made in `__init__` (LegacyPipeline.init_constants)
                what = f"`{cst.Module([]).code_for_node(constant)}` (a graph constant)"
            return (
                f"{what} is an input of an operator none of whose other inputs is known to be a "
                "batch: given the array alone, a dynamic-mode op gives one tensor, not a batch"
            )
        return None

    def leave_Call(self, original: cst.Call, updated: cst.BaseExpression) -> cst.BaseExpression:
        """``fn.shapes(x, dtype=D)`` → ``ndd.as_batch(x.shape, dtype=D, device=x.device)``: dynamic
        mode has no ``shapes`` operator, but a batch knows its samples' shapes
        (ndd_migrate/codegen/sample_shapes.py). ``fn.op([a, b], ...)`` → ``[ndd.op(x, ...) for x in
        [a, b]]``: pipeline mode runs one operator instance per input (``blockers`` let only the calls
        through where that is the same)."""
        if isinstance(updated, cst.Call) and self._input_constant(original):
            return self._constant(original, updated)
        if isinstance(updated, cst.Call) and id(original) in self._init_constants():
            return self._init_constant(original, updated)
        if isinstance(updated, cst.Call):
            self._report_reader_kept(original)
        if not isinstance(updated, cst.Call) or not self.ctx.may_rewrite_dali_calls():
            return updated
        if _is_shape_method(original.func):
            return self._shape_method(original, updated)
        path = names.fn_path(self.dali_name(original.func))
        if input_sets.lists(updated) and not has_expression_form(path):
            return self._input_set(original, updated, path)
        if not has_expression_form(path):
            return updated
        if sample_shapes.problem(updated.args) is not None:
            return updated  # a blocker inside a pipeline; NDD901 reports it elsewhere
        message = f"`fn.{path}(x)` → `ndd.as_batch(x.shape, ...)` (dynamic mode has no `{path}` operator)"
        if not self.ctx.applies(self.code, original):
            self.ctx.report(
                self.code,
                original,
                message,
                fixed=False,
                hint="use `ndd.as_batch(x.shape, dtype=..., device=x.device)`",
            )
            return updated
        self.ctx.report(self.code, original, message, fixed=True)
        return sample_shapes.build(self.ctx.ndd, updated.args)

    def _report_reader_kept(self, call: cst.Call) -> None:
        """A reader called in a function that no pipeline here runs (Context.outside_readers): the
        module's code outside its pipelines stays in pipeline mode, said at the reader."""
        function = self.ctx.kept_for_its_reader(self.ctx.walk.functions)
        if function is None or call not in self.ctx.model.outside_readers[function]:
            return
        name = function.name.value
        self.ctx.report(
            self.code,
            call,
            (
                f"`{cstutil.code(call.func)}(...)` is called in `{name}`, which is not a pipeline function here: a "
                "dynamic-mode reader is an object made once and read with `next_epoch()`, which only the pipeline "
                f"that runs `{name}` can do; `{name}` stays in pipeline mode, and so does this module's code outside "
                "its pipelines, which it may call"
            ),
            fixed=False,
            hint=f"call the reader in the pipeline function that runs `{name}` and migrate them together",
        )

    def _input_constant(self, call: cst.Call) -> bool:
        """Is ``call`` a ``types.Constant(np.array(...))`` input of an operator of a converted
        pipeline (``PipelineFunction.input_constants``, ndd_migrate/model/values/graph_constants.py)?"""
        if self._constants is None:  # asked at every call; decided before the traversal
            pipelines = self.ctx.model.pipelines.values()
            self._constants = {
                id(c) for pipeline in pipelines if pipeline.convert for c in getattr(pipeline, "input_constants", ())
            }
        return id(call) in self._constants

    def _init_constants(self) -> set[int]:
        """``types.Constant(value, dtype=...)`` made in ``__init__`` of a converted ``Pipeline``
        subclass (``LegacyPipeline.init_constants``)."""
        if self._init_calls is None:  # asked at every call; decided before the traversal
            self._init_calls = {
                id(call)
                for pipeline in self.ctx.model.pipelines.values()
                if pipeline.convert
                for call in getattr(pipeline, "init_constants", {}).values()
            }
        return self._init_calls

    def _init_constant(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """``types.Constant(value, dtype=D)`` → ``dali_constant(value, D)``: the array of the constant
        node's data, made in the generator's prologue (ndd_migrate/model/values/graph_constants.py)."""
        self.ctx.report(
            self.code,
            original,
            "`types.Constant(...)` made in `__init__` → `dali_constant(...)`, its array",
            fixed=True,
        )
        return updated.with_changes(func=self.ctx.support(support.CONSTANT))

    def _constant(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """``types.Constant(np.array(v, dtype=np.T))`` → ``np.array(v, dtype=np.T)``: an ndd operator
        broadcasts an array input to every sample, as the constant node gave it."""
        self.ctx.report(
            self.code, original, "`types.Constant(array)` as an operator input → the array itself", fixed=True
        )
        return updated.args[0].value.with_changes(lpar=original.lpar, rpar=original.rpar)

    def _input_set(self, original: cst.Call, updated: cst.Call, path: str | None) -> cst.BaseExpression:
        info = op_info(path) if path is not None else None
        if info is None or info.ndd is None or not self.ctx.applies(self.code, original.func):
            return updated  # `fn.<op>` is not rewritten here (kept in pipeline mode, suppressed, ...)
        if input_sets.obstacle(original, info.random, info.num_outputs) is not None:
            return updated  # code no pipeline's graph runs: left to fail where it is, not made to draw differently
        self.ctx.report(
            self.code,
            original,
            f"`fn.{path}([...])` on an input set → one `ndd.{info.ndd}(...)` call per input",
            fixed=True,
        )
        # NDD106 does not see the calls made here (the call is a list by then): its changes go in now
        return input_sets.per_element(arguments.applied(updated, info, *arguments.changes(original, info)))

    def _shape_method(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """``node.shape(dtype=D)`` of a ``DataNode`` (the method that replaces ``fn.shapes``) →
        ``ndd.as_batch(node.shape, dtype=D, device="cpu")``: on a ``Batch``, ``shape`` is a list,
        and calling it would fail."""
        graph, _ = graph_code.prepared(self.ctx.resolver, self.ctx.model)
        if graph.kind(original.func.value) != graph_code.NODE or sample_shapes.method_problem(original) is not None:
            return updated  # not a DataNode (a blocker when it is, see blockers())
        message = "`node.shape()` of a DataNode → `ndd.as_batch(node.shape, ...)` (on a Batch, `shape` is a list)"
        if not self.ctx.applies(self.code, original):
            self.ctx.report(
                self.code,
                original,
                message,
                fixed=False,
                hint='use `ndd.as_batch(node.shape, dtype=ndd.int64, device="cpu")`',
            )
            return updated
        self.ctx.report(self.code, original, message, fixed=True)
        return sample_shapes.build_method(self.ctx.ndd, updated.func.value, updated)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.BaseExpression) -> cst.BaseExpression:
        return self._rewrite(original, updated)

    def leave_Name(self, original: cst.Name, updated: cst.BaseExpression) -> cst.BaseExpression:
        return self._rewrite(original, updated) if not self.ctx.walk.in_import else updated

    def _rewrite(self, original, updated):
        path = names.fn_path(self.dali_name(original))
        if path is None:
            return updated
        info = op_info(path)
        if info is None or info.ndd is None:
            return updated  # no dynamic-mode form: NDD901 reports it
        if not self.ctx.may_rewrite_dali_calls():
            return updated
        target = f"ndd.{info.ndd}"
        message = f"`fn.{path}` → `{target}`" + (
            f" (`fn.{path}` is deprecated, current name `fn.{info.deprecated_for}`)" if info.deprecated_for else ""
        )
        if not self.ctx.applies(self.code, original):
            self.ctx.report(self.code, original, message, fixed=False, hint=f"use `{target}`")
            return updated
        self.ctx.report(self.code, original, message, fixed=True)
        return self.ctx.ndd(info.ndd)


def _is_shape_method(func: cst.BaseExpression) -> bool:
    return isinstance(func, cst.Attribute) and func.attr.value == "shape"


def _calls(node: cst.CSTNode) -> list[cst.Call]:
    """Every call under ``node``."""
    return [n for n in tree.walk(node) if isinstance(n, cst.Call)]


def _listed(found: list[str]) -> str:
    shown = [f"`{name}`" for name in found]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def _batch_input(graph, value: cst.BaseExpression) -> bool:
    """Is ``value``, an operator's input, a batch, or an input set (``[img, label]``) of batches?"""
    if isinstance(value, (cst.List, cst.Tuple)) and value.elements:
        return all(isinstance(el, cst.Element) and graph.kind(el.value) == graph_code.NODE for el in value.elements)
    return graph.kind(value) == graph_code.NODE
