"""NDD402 ops-object: a call of a legacy ``ops.*`` object becomes the ``ndd`` call with the same arguments."""

from __future__ import annotations

import libcst as cst

from ndd_migrate import support
from ndd_migrate.codegen import devices, input_sets, python_function, reader_seed, sample_shapes
from ndd_migrate.dali.tables import has_expression_form
from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model import constructs
from ndd_migrate.model.features import python_operators
from ndd_migrate.model.sources import legacy
from ndd_migrate.syntax import cstutil, names, tree

RULE = Rule(
    code="NDD402",
    name="ops-object",
    summary="an `ops.*` object called in `define_graph` becomes one `ndd.*` call",
    what=(
        "In a legacy `Pipeline` subclass that NDD401 rewrites, each call of an operator object created in "
        "`__init__` (`self.resize = ops.Resize(resize_x=224)` + `self.resize(images)`) becomes the `ndd` call "
        "with the constructor's arguments followed by the call's (`ndd.resize(images, resize_x=224)`). Pre-1.0 "
        "names (`ops.FileReader`, `ops.ImageDecoder`, `ops.CaffeReader`, `ops.MXNetReader`, `ops.COCOReader`, "
        '`ops.TFRecordReader`, ...) map to their current `ndd` form; `device="mixed"` becomes `"gpu"`; '
        "arguments dynamic mode rejects are dropped. Random ops get `batch_size=` (without a batch input) and "
        "`rng=`: the pipeline's RNG, or their own `ndd.random.RNG(seed=...)` when the object was created with "
        "`seed=`. `ops.Shapes(dtype=D)` + `self.shapes(x)` becomes `ndd.as_batch(x.shape, dtype=D, device=x.device)` "
        "(dynamic mode has no `shapes` operator). The reader object becomes the reader created once; shuffling "
        "without a `seed=` of its own in a pipeline created with one, it gets the seed DALI derived for it, "
        "`seed=dali_op_seed(seed, 0)`, when it is the first operator of the graph walk (the same sample order), "
        "else the pipeline's `seed`, reported at the reader (another order). An operator chosen by an `if` of `__init__` "
        '(`if dali_cpu: self.decode = ops.ImageDecoder(device="cpu") else: ...`) keeps the `if`, each '
        "constructor becoming `decode_args = dict(...)`, and its calls take `**decode_args`; a different operator in each "
        "branch also binds its function (`resize_op, resize_args = ndd.resize, dict(...)`; readers only when they "
        "give as many outputs, counted from their arguments: `ops.CaffeReader` gives images and labels unless "
        "`image_available=`/`label_available=` say otherwise), and `ops.X(...) if c else None` "
        "becomes `x_args = dict(...) if c else None`, tested as `x_args is not None` where `define_graph` tests "
        '`self.x`. A device name of `__init__` set to `"mixed"` (or to `"cpu" if cpu else "mixed"`) and only given as '
        '`device=` gets `"gpu"`; read for more (`padding = ... if decoder_device == "mixed" else 0`), it keeps its '
        'value and the operators get `"gpu" if decoder_device == "mixed" else decoder_device`. '
        "An `ops.PythonFunction(function=f, ...)` object's calls become plain Python over the samples, as NDD422 "
        'writes `fn.python_function` (`ndd.as_batch([np.asarray(f(np.asarray(s)), order="C") for s in x.tensors])`; '
        "`np.array`, a copy, "
        "for a function that may change its argument); a function given other than by name (a lambda, "
        "`make_fn(...)`, a callable object) is evaluated once, where the object was created: `f_function = ...`; "
        "a sink (`num_outputs=0`) called as a statement of `define_graph` (`self.sink(images)`) becomes a statement "
        "calling the function as DALI does (`for s in images.tensors: save(np.asarray(s))`), and `batch_processing=` "
        "may be a parameter of `__init__` that it does not bind again (both forms written, chosen by it). "
        "Operator objects with no dynamic-mode "
        'form (`ops.PythonFunction` with `device="gpu"`, a sink whose result is used or that a Python operator '
        "with outputs follows, or created in an `if`, ...) keep "
        "the class as it is, with a TODO; `ops.ExternalSource` fed by "
        "`feed_input` in `iter_setup` is NDD421's. A call on an *input set* (`self.norm([a, b])`: one operator "
        "instance per input in pipeline mode) becomes one `ndd` call per input, in a list, with the constructor's "
        "and the call's arguments each time; a random operator (its instances are seeded alike: the same draws for "
        "every input), one with several outputs, or an argument that holds a call keep the class, saying why."
    ),
    why=(
        "Dynamic mode has no operator objects: an op is a function called on data. Each call of an `ops` "
        "object in `define_graph` is one operator instance, so one `ndd` call per call keeps the random-state "
        "order."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix="Applied together with NDD401.",
    examples=(
        Example(
            title="constructor arguments move to the call",
            before=(
                "from nvidia.dali import ops, Pipeline\n\n\n"
                "class Noise(Pipeline):\n"
                "    def __init__(self, batch_size):\n"
                "        super().__init__(batch_size, 1, None)\n"
                "        self.uniform = ops.Uniform(range=[0.0, 1.0], seed=3)\n"
                "        self.scale = 2.0\n\n"
                "    def define_graph(self):\n"
                "        return self.uniform(shape=[2]) * self.scale\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def Noise(batch_size):\n"
                "    ndd.set_num_threads(1)\n"
                "    scale = 2.0\n"
                "    uniform_rng = ndd.random.RNG(seed=3)\n"
                "    while True:\n"
                "        yield (ndd.random.uniform(range=[0.0, 1.0], shape=[2], batch_size=batch_size, rng=uniform_rng) * scale).evaluate(),\n"
            ),
        ),
        Example(
            title="an operator chosen by a condition of `__init__`: its arguments chosen once",
            before=(
                "from nvidia.dali import ops, Pipeline\n\n\n"
                "class Decode(Pipeline):\n"
                "    def __init__(self, batch_size, root, dali_cpu=False):\n"
                "        super().__init__(batch_size, 1, None)\n"
                "        self.input = ops.FileReader(file_root=root)\n"
                "        if dali_cpu:\n"
                '            self.decode = ops.ImageDecoder(device="cpu")\n'
                "        else:\n"
                '            self.decode = ops.ImageDecoder(device="mixed")\n\n'
                "    def define_graph(self):\n"
                "        jpegs, labels = self.input()\n"
                "        return self.decode(jpegs), labels\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def Decode(batch_size, root, dali_cpu=False):\n"
                "    ndd.set_num_threads(1)\n"
                "    if dali_cpu:\n"
                '        decode_args = dict(device="cpu")\n'
                "    else:\n"
                '        decode_args = dict(device="gpu")\n'
                "    reader = ndd.readers.File(file_root=root)\n"
                "    while True:\n"
                "        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
                "            yield ndd.decoders.image(jpegs, **decode_args).evaluate(), labels.evaluate()\n"
            ),
        ),
        Example(
            title="an operator called on an input set: one call per input, in the same order",
            before=(
                "from nvidia.dali import ops, types, Pipeline\n\n\n"
                "class TwoViews(Pipeline):\n"
                "    def __init__(self, batch_size, root):\n"
                "        super().__init__(batch_size, 1, None)\n"
                "        self.files = ops.readers.File(file_root=root)\n"
                '        self.decode = ops.decoders.Image(device="cpu")\n'
                "        self.flip = ops.Flip(horizontal=1)\n"
                "        self.norm = ops.CropMirrorNormalize(crop=(32, 32), dtype=types.FLOAT)\n\n"
                "    def define_graph(self):\n"
                "        jpegs, labels = self.files()\n"
                "        image = self.decode(jpegs)\n"
                "        plain, flipped = self.norm([image, self.flip(image)])\n"
                "        return plain, flipped, labels\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n"
                "from nvidia.dali import types\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def TwoViews(batch_size, root):\n"
                "    ndd.set_num_threads(1)\n"
                "    reader = ndd.readers.File(file_root=root)\n"
                "    while True:\n"
                "        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
                '            image = ndd.decoders.image(jpegs, device="cpu")\n'
                "            plain, flipped = [ndd.crop_mirror_normalize(x, crop=(32, 32), dtype=types.FLOAT) for x in [image, ndd.flip(image, horizontal=1)]]\n"
                "            yield plain.evaluate(), flipped.evaluate(), labels.evaluate()\n"
            ),
        ),
        Example(
            title="`ops.PythonFunction` objects: plain Python over the samples",
            before=(
                "import numpy as np\n"
                "from nvidia.dali import ops, Pipeline\n\n\n"
                "def centered(x):\n"
                "    return x - x.mean()\n\n\n"
                "class Features(Pipeline):\n"
                "    def __init__(self, batch_size, root):\n"
                "        super().__init__(batch_size, 1, None, exec_async=False, exec_pipelined=False)\n"
                "        self.input = ops.readers.Numpy(file_root=root)\n"
                "        self.center = ops.PythonFunction(function=centered)\n"
                "        self.ones = ops.PythonFunction(function=lambda: np.ones(4, dtype=np.float32))\n\n"
                "    def define_graph(self):\n"
                "        data = self.input()\n"
                "        return self.center(data), self.ones()\n"
            ),
            after=(
                "import numpy as np\n"
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def centered(x):\n"
                "    return x - x.mean()\n\n\n"
                "def Features(batch_size, root):\n"
                "    ndd.set_num_threads(1)\n"
                "    ones_function = lambda: np.ones(4, dtype=np.float32)\n"
                "    reader = ndd.readers.Numpy(file_root=root)\n"
                "    while True:\n"
                "        for (data,) in reader.next_epoch(batch_size=batch_size):\n"
                '            yield ndd.as_batch([np.asarray(centered(np.asarray(s)), order="C") for s in data.tensors]).evaluate(), '
                'ndd.as_batch([np.asarray(ones_function(), order="C") for _ in range(batch_size)]).evaluate()\n'
            ),
        ),
    ),
    valid=("import nvidia.dali.ops as ops\n\nresize = ops.Resize(resize_x=224)\n",),
)


class Impl(RuleImpl):
    rule = RULE
    reports = (constructs.OPS_OBJECT,)

    def blockers(self, pipeline):
        """``self.op([a, b])``, an input set: one ``ndd`` call per input when that gives what pipeline
        mode gives (``codegen.input_sets``), else it blocks, saying why. An operator object created
        in ``define_graph`` itself (``rng = ops.Uniform(...)``) blocks too: only ``__init__``'s are
        rewritten, and one left as it is gives a pipeline-mode ``DataNode`` to the ``ndd`` calls."""
        found = self._made_in_graph(pipeline)
        for call, op in getattr(pipeline, "op_calls", {}).items():
            if has_expression_form(op.info.fn_path):
                why = sample_shapes.problem([*call.args, *op.ctor.args])
                if why is not None:
                    found.append(
                        (
                            call,
                            f"`self.{op.attr}(...)` (`ops.{op.ops_path}`) cannot be written as "
                            f"`ndd.as_batch(x.shape, ...)`: {why}",
                            "see docs/target-shape.md (`fn.shapes`)",
                        )
                    )
                continue
            arg = cstutil.input_set(call)
            if arg is None or not op.info.ndd:
                continue
            infos = list(op.infos.values()) or [op.info]
            outputs = {i.num_outputs for i in infos}
            extra = [] if op.conditional else list(op.ctor.args)  # `**x_args` is evaluated once, in __init__
            why = input_sets.obstacle(
                call, any(i.random for i in infos), outputs.pop() if len(outputs) == 1 else None, extra
            )
            if why is None:
                continue
            code = cst.Module([]).code_for_node(arg.value)
            found.append(
                (
                    call,
                    f"`self.{op.attr}({code})` runs on an input set: {why}",
                    input_sets.hint(op.info.ndd, arg.value, op.info.random),
                )
            )
        return found

    def _made_in_graph(self, pipeline) -> list[tuple]:
        """``ops.X(...)`` constructors called in the body of a legacy class's ``define_graph``."""
        graph = getattr(pipeline, "graph", None)
        if not isinstance(graph, cst.FunctionDef):
            return []
        calls: list[cst.Call] = []
        tree.visit(graph.body, _CallCollector(calls))
        found = []
        for call in calls:
            name = self.dali_name(call.func) or ""
            if name.startswith(names.OPS + ".") and name.rsplit(".", 1)[-1][:1].isupper():
                spelled = cst.Module([]).code_for_node(call.func)
                found.append(
                    (
                        call,
                        f"`{spelled}` is created in `define_graph`, not in `__init__`: only `__init__`'s operator "
                        "objects are rewritten",
                        "create it in `__init__` (`self.x = ops.X(...)`) and call `self.x(...)` in `define_graph`",
                    )
                )
        return found

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._ctors: dict[cst.Call, cst.Call] = {}  # original op constructor → rewritten (self.x localized, ...)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        pipeline = legacy.owner(self.ctx.model, self.ctx.walk.functions)
        if pipeline is None or not pipeline.convert:
            return updated
        if original in pipeline.conditional_ops.ctors:
            return self._conditional_ctor(pipeline, original, updated)
        if any(original is op.ctor for op in pipeline.ops.values()):
            self._ctors[original] = updated
        if original not in pipeline.op_calls:
            return updated
        op = pipeline.op_calls[original]
        if op.python and python_operators.is_sink([*op.ctor.args, *original.args]):
            return updated  # its statement is rewritten (leave_SimpleStatementLine)
        if op.python:
            return self._python_function(pipeline, op, original, updated)
        if has_expression_form(op.info.fn_path):
            return self._expression(original, updated, op, pipeline)
        return self._ndd_call(pipeline, op, original, updated)

    def _conditional_ctor(self, pipeline, original: cst.Call, updated: cst.Call) -> cst.Call:
        """``ops.X(...)`` created in an ``if`` of ``__init__``: the ``dict(...)`` of its arguments."""
        op = pipeline.conditional_ops.ctors[original]
        info = op.infos[original]
        args = _arguments(updated, info, _mapped_names(pipeline, info))
        rng = self.ctx.model.plan.pipeline_rng.get(pipeline.qualname)
        if op.several and info.random and rng:  # the call cannot tell which operator it is
            args = cstutil.add_kwarg(args, "rng", cst.Name(rng))
        return args

    def _ndd_call(self, pipeline, op, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """``self.<attr>(inputs, ...)`` → ``ndd.<op>(inputs, <the constructor's arguments>, ...)``, one
        call per input on an input set, with ``batch_size=`` and ``rng=`` where the operator takes them."""
        info = op.info
        target = op.op_name if op.several else f"ndd.{info.ndd}"
        self.ctx.report(
            self.code, original, f"`self.{op.attr}(...)` (`ops.{op.ops_path}`) → `{target}(...)`", fixed=True
        )
        inputs = [a for a in updated.args if a.keyword is None]
        args = self._ndd_args(pipeline, op, updated, inputs)
        func = cst.Name(op.op_name) if op.several else self.ctx.ndd(info.ndd)
        multiline = not op.conditional and _is_multiline(op.ctor)
        call = _layout(cst.Call(func, args), multiline=multiline, unit=self.ctx.indent)
        if input_sets.lists(
            call
        ):  # `self.cmn([a, b])`: one call per input, as pipeline mode runs one instance per input
            self.ctx.report(
                self.code,
                original,
                f"`self.{op.attr}([...])` on an input set → one `{target}(...)` call per input",
                fixed=True,
            )
            several = any(len(a.value.elements) > 1 for a in call.args if isinstance(a.value, cst.List))
            call = input_sets.per_element(
                _layout(cst.Call(func, args), multiline, depth=2, unit=self.ctx.indent)
                if multiline and several
                else call,
                layout=multiline,
            )
            if not isinstance(call, cst.Call):
                return call
        if info.reader:
            return self._reader_seed(pipeline, original, call)
        if op.several:  # several: `rng=` is in the arguments; `batch_size=` checked (legacy)
            return call
        return self._with_batch_size_and_rng(pipeline, op, call, inputs)

    def _reader_seed(self, pipeline, original: cst.Call, call: cst.Call) -> cst.Call:
        """A shuffling reader without a seed of its own in a pipeline created with ``seed=``: pipeline
        mode gave it a seed derived from the pipeline's; a dynamic-mode reader without one shuffles
        in one fixed order, the same on every rank. It gets the very seed DALI derived
        (``dali_op_seed(seed, 0)``) when it is the first operator of the graph walk; otherwise the
        pipeline's seed, and the changed order is reported at the reader
        (ndd_migrate.codegen.reader_seed). A ``seed=`` that is not a literal is kept, and what it
        keeps only where it holds an int >= 0 is said at the reader."""
        seed = pipeline.seed()
        seed = legacy.localize(seed, pipeline) if seed is not None else None
        if reader_seed.shuffles_with_open_seed(call):  # said where the user reads
            self.ctx.report(self.code, original, reader_seed.OPEN_SEED_ORDER, fixed=True)
            return call
        if not reader_seed.shuffles_unseeded(call):
            return call
        if seed is None:  # said where the user reads: at the reader, and in the summary
            self.ctx.report(self.code, original, reader_seed.UNSEEDED_ORDER, fixed=True)
            return call
        if reader_seed.legacy_reader_comes_first(pipeline, self.dali_name):
            self.ctx.report(
                self.code,
                original,
                "the reader shuffles with the seed the pipeline gave it: `dali_op_seed(seed, 0)`, the same order",
                fixed=True,
            )
            return cstutil.add_kwarg(call, "seed", reader_seed.seeded(seed, self.ctx.support(support.OP_SEED)))
        self.ctx.report(self.code, original, reader_seed.OTHER_ORDER, hint=reader_seed.OTHER_ORDER_HINT, fixed=False)
        return cstutil.add_kwarg(call, "seed", seed)

    def _ndd_args(self, pipeline, op, updated: cst.Call, inputs: list[cst.Arg]) -> list[cst.Arg]:
        """The inputs, the constructor's arguments, then the call's own, in ``ndd`` spelling."""
        if op.conditional:  # created in an `if` of __init__: its arguments are in `<op>_args`
            kwargs = [cst.Arg(value=cst.Name(op.args_name), star="**")]
        else:
            kwargs = self._ctor_args(pipeline, op)
        kwargs += [a for a in updated.args if a.keyword is not None]
        dropped = set(op.info.dropped_args) | ({"seed"} if op.info.random else set())
        return [
            _arg(a, op.info, _mapped_names(pipeline, op.info))
            for a in [*inputs, *kwargs]
            if a.keyword is None or a.keyword.value not in dropped
        ]

    def _ctor_args(self, pipeline, op) -> list[cst.Arg]:
        """The constructor's arguments as rewritten (``self.x`` read from the local ``x``)."""
        ctor = self._ctors.get(op.ctor)  # None when define_graph comes before __init__
        return (
            list(ctor.args)
            if ctor
            else [a.with_changes(value=legacy.localize(a.value, pipeline)) for a in op.ctor.args]
        )

    def _with_batch_size_and_rng(self, pipeline, op, call: cst.Call, inputs: list[cst.Arg]) -> cst.Call:
        """``batch_size=`` for an operator without inputs that takes one, ``rng=`` for a random one."""
        if op.info.batch_size_arg and not inputs and cstutil.kwarg(call, "batch_size") is None:
            call = cstutil.add_kwarg(call, "batch_size", cst.Name("batch_size"))
        rng = pipeline.generator.op_rngs.get(op.attr) or self.ctx.model.plan.pipeline_rng.get(pipeline.qualname)
        if op.info.random and rng:
            call = cstutil.add_kwarg(call, "rng", cst.Name(rng))
        return call

    def _python_function(self, pipeline, op, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """``self.f(x)`` of ``self.f = ops.PythonFunction(function=g, ...)``: plain Python over the samples,
        as NDD422 writes ``fn.python_function`` (codegen/python_function.py)."""
        self.ctx.report(
            self.code,
            original,
            f"`self.{op.attr}(...)` (`ops.PythonFunction`) → plain Python over the samples",
            fixed=True,
        )
        spec, function, asarray = self._python_spec(pipeline, op, updated)
        code = cst.Module([]).code_for_node
        return python_function.plain(
            spec,
            function,
            asarray=asarray,
            contiguous=code(self.ctx.numpy("asarray")),
            as_batch=code(self.ctx.ndd("as_batch")),
        )

    def _python_spec(self, pipeline, op, updated: cst.Call):
        """The rewritten call's and constructor's arguments read, the callee's code, and how each sample
        is handed over (``np.array``, a copy, for a function that may change its argument)."""
        spec = python_operators.read([*self._ctor_args(pipeline, op), *updated.args])
        function = op.function_name or python_function.callable_code(spec.function)
        copy = python_operators.may_modify(
            cstutil.kwarg(op.ctor, "function").value, self.ctx.resolver, {self.ctx.model.names.numpy or "np"}
        )
        return spec, function, cst.Module([]).code_for_node(self.ctx.numpy("array" if copy else "asarray"))

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        """``self.sink(x)`` of ``ops.PythonFunction(function=f, num_outputs=0)`` as a statement of
        ``define_graph``: ``f`` called over the samples (codegen/python_function.py)."""
        pipeline = legacy.owner(self.ctx.model, self.ctx.walk.functions)
        if pipeline is None or not pipeline.convert or not isinstance(updated.body[0], cst.Expr):
            return updated
        call = original.body[0].value if isinstance(original.body[0], cst.Expr) else None
        op = pipeline.op_calls.get(call)
        if op is None or not op.python or not python_operators.is_sink([*op.ctor.args, *call.args]):
            return updated
        self.ctx.report(
            self.code,
            call,
            f"`self.{op.attr}(...)` (`ops.PythonFunction`, `num_outputs=0`) → the function called over the samples",
            fixed=True,
        )
        spec, function, asarray = self._python_spec(pipeline, op, updated.body[0].value)
        return python_function.sink(spec, function, asarray=asarray, line=updated)

    def _expression(self, original: cst.Call, updated: cst.Call, op, pipeline) -> cst.BaseExpression:
        """``self.shapes(x)`` of ``ops.Shapes(dtype=D)``: ``ndd.as_batch(x.shape, dtype=D, device=x.device)``
        (no ``shapes`` operator in dynamic mode; ndd_migrate/codegen/sample_shapes.py)."""
        ctor_args = self._ctor_args(pipeline, op)
        self.ctx.report(
            self.code, original, f"`self.{op.attr}(x)` (`ops.{op.ops_path}`) → `ndd.as_batch(x.shape, ...)`", fixed=True
        )
        return sample_shapes.build(self.ctx.ndd, [*updated.args, *ctor_args])

    def leave_Attribute(self, original: cst.Attribute, updated: cst.BaseExpression) -> cst.BaseExpression:
        """``if self.resize:`` of an operator created ``... if cond else None``: ``if resize_args is not None:``."""
        pipeline = legacy.owner(self.ctx.model, self.ctx.walk.functions)
        if pipeline is None or not pipeline.convert or original not in pipeline.conditional_ops.tests:
            return updated
        name = cst.Name(pipeline.ops[legacy.self_attr(original)].args_name)
        if pipeline.conditional_ops.tests[original] == "none":
            return name
        return cst.Comparison(name, [cst.ComparisonTarget(cst.IsNot(), cst.Name("None"))])

    def leave_SimpleString(self, original: cst.SimpleString, updated: cst.SimpleString) -> cst.BaseExpression:
        """``dev = "mixed"`` in ``__init__``, where ``dev`` only gives operators their device."""
        pipeline = legacy.owner(self.ctx.model, self.ctx.walk.functions)
        if pipeline is None or not pipeline.convert or original not in pipeline.mixed_literals:
            return updated
        self.ctx.report(self.code, original, 'a device name\'s "mixed" → "gpu"', fixed=True)
        return cstutil.replace_string(updated, "gpu")

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
        """``self.decode = ops.X(...)`` in an ``if`` of ``__init__`` → ``decode_args = dict(...)``."""
        pipeline = legacy.owner(self.ctx.model, self.ctx.walk.functions)
        if pipeline is None or not pipeline.convert:
            return updated
        bound = next((op for op in pipeline.ops.values() if op.bind_function and op.ctor is original.value), None)
        if bound is not None:  # `self.f = ops.PythonFunction(function=make())` → `f_function = make()`
            self.ctx.report(
                self.code,
                original.value,
                f"`self.{bound.attr} = ops.PythonFunction(function=...)` → "
                f"`{bound.function_name} = ...`, evaluated once",
                fixed=True,
            )
            return updated.with_changes(
                targets=[cst.AssignTarget(cst.Name(bound.function_name))],
                value=cstutil.kwarg(updated.value, "function").value,
            )
        if original.value not in pipeline.conditional_ops.assigns:
            return updated
        op = pipeline.conditional_ops.assigns[original.value]
        if not isinstance(original.value, cst.Call):  # `self.cast = None` beside `self.cast = ops.Cast(...)`
            self.ctx.report(self.code, original.value, f"`self.{op.attr} = None` → `{op.args_name} = None`", fixed=True)
            return updated.with_changes(targets=[cst.AssignTarget(cst.Name(op.args_name))])
        if op.several:
            info = op.infos[original.value]
            self.ctx.report(
                self.code,
                original.value,
                f"`self.{op.attr} = ops.{op.paths[original.value]}(...)` → `{op.op_name}, {op.args_name} = ndd.{info.ndd}, dict(...)`",
                fixed=True,
            )
            return updated.with_changes(
                targets=[
                    cst.AssignTarget(
                        cst.Tuple(
                            [cst.Element(cst.Name(op.op_name)), cst.Element(cst.Name(op.args_name))], lpar=[], rpar=[]
                        )
                    )
                ],
                value=cst.Tuple([cst.Element(self.ctx.ndd(info.ndd)), cst.Element(updated.value)], lpar=[], rpar=[]),
            )
        self.ctx.report(
            self.code,
            original.value,
            f"`self.{op.attr} = ops.{op.ops_path}(...)` → `{op.args_name} = dict(...)`",
            fixed=True,
        )
        return updated.with_changes(targets=[cst.AssignTarget(cst.Name(op.args_name))])


def _mapped_names(pipeline, info) -> set[str]:
    """The device names an operator gets as ``"gpu" if name == "mixed" else name``: those that may
    hold "mixed" (``pipeline.mixed_names``), and for an operator with a mixed backend the parameters
    of ``__init__`` given as ``device=``, which a caller may give "mixed"."""
    if "mixed" in getattr(info, "backends", ()):
        return pipeline.mixed_names | pipeline.mixed_params
    return pipeline.mixed_names


def _arguments(ctor: cst.Call, info, mixed_names: set[str]) -> cst.Call:
    """An operator's constructor as the ``dict(...)`` of its arguments in ``ndd`` spelling, laid out
    as written."""
    dropped = set(info.dropped_args) | ({"seed"} if info.random else set())
    args = [_arg(a, info, mixed_names) for a in ctor.args if a.keyword is None or a.keyword.value not in dropped]
    return ctor.with_changes(func=cst.Name("dict"), args=args)


def _arg(arg: cst.Arg, info, mixed_names: set[str]) -> cst.Arg:
    """One argument in ``ndd`` spelling: current keyword names, ``"mixed"`` → ``"gpu"``; a device
    name of ``mixed_names`` as ``"gpu" if name == "mixed" else name``."""
    if arg.keyword is None:
        return arg
    if arg.keyword.value in info.renamed_args:
        arg = arg.with_changes(keyword=cst.Name(info.renamed_args[arg.keyword.value]))
    if arg.keyword.value == "device" and devices.has_mixed(arg.value):  # also `"cpu" if cpu else "mixed"`
        arg = arg.with_changes(value=devices.to_gpu(arg.value))
    elif arg.keyword.value == "device" and isinstance(arg.value, cst.Name) and arg.value.value in mixed_names:
        arg = arg.with_changes(value=devices.mapped(arg.value))
    return arg


def _is_multiline(call: cst.Call) -> bool:
    return "\n" in cst.Module([]).code_for_node(call)


def _layout(call: cst.Call, multiline: bool, depth: int = 1, unit: str = "    ") -> cst.Call:
    """Arguments from two places (constructor and call) laid out afresh: on one line, or one per line
    with a trailing comma when the constructor was written that way (``depth`` levels of ``unit``,
    the module's indentation, in: 2 inside an input set's comprehension)."""
    args = list(call.args)
    if not args:
        return call
    if not multiline:
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        args = [a.with_changes(comma=comma, whitespace_after_arg=cst.SimpleWhitespace("")) for a in args]
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return call.with_changes(args=args)
    inner = cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(unit * depth))
    outer = cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(unit * (depth - 1)))
    args = [
        a.with_changes(comma=cst.Comma(whitespace_after=inner), whitespace_after_arg=cst.SimpleWhitespace(""))
        for a in args
    ]
    args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=outer))
    return call.with_changes(args=args, whitespace_before_args=inner)


class _CallCollector(cst.CSTVisitor):
    """Every call below the node visited, in source order."""

    def __init__(self, calls: list) -> None:
        super().__init__()
        self.calls = calls

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)
