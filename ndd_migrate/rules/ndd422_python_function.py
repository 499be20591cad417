"""NDD422 python-function: ``fn.python_function`` becomes plain Python over the samples.

DALI calls the function per sample with numpy arrays (``batch_processing=False``, the default) or
once per batch with one list of arrays per input (``batch_processing=True``); a multi-output function
returns a tuple (``ops/_operators/python_function.py``, ``function_wrapper_per_sample`` /
``function_wrapper_batch``). Dynamic mode has no such operator: the same calls are written out,
with ``np.asarray(tensor)`` per sample, and the results wrapped with ``ndd.as_batch``. The code is
built by ``codegen/python_function.py``, which NDD402 uses for legacy ``ops.PythonFunction`` objects.
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate.codegen import python_function
from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.features import python_operators
from ndd_migrate.model.values import build_time
from ndd_migrate.syntax import cstutil, names

RULE = Rule(
    code="NDD422",
    name="python-function",
    summary="`fn.python_function` becomes plain Python over the samples",
    what=(
        "In a migrated pipeline function, `fn.python_function(x, ..., function=f)` becomes "
        '`ndd.as_batch([np.asarray(f(np.asarray(s)), order="C") for s in x.tensors])` (one call per sample, '
        "several inputs zipped; each result made C-contiguous, as DALI copied a strided one into its buffer); "
        'with `batch_processing=True`, `ndd.as_batch([np.asarray(o, order="C") for o in f([np.asarray(s) for s '
        "in x.tensors], ...)])` (one call per batch); with `num_outputs=N`, a list of N batches built from the "
        "tuples `f` returns; "
        "`output_layouts=` becomes `layout=`; without inputs, `f` is called once per sample "
        "(`[f() for _ in range(batch_size)]`), or once per batch with `batch_processing=True`. DALI hands `f` "
        "writable views of its inputs: a function that may change its argument (anything but a lambda or a `def` "
        "of the module only reading it) gets `np.array(s)`, a copy, so no other use of the batch sees the change. "
        "A sink (`num_outputs=0`, run for its side effects) called as a statement of the graph becomes a statement "
        "calling `f` as DALI does at every batch: `for s in x.tensors: f(np.asarray(s))`, or `f([np.asarray(s) for s in "
        "x.tensors])` per batch. `batch_processing=` may be a parameter of the pipeline function that its body does not "
        "bind again: both forms are written, chosen by it (`... if per_batch else ...`). "
        'Reported for a human: `device="gpu"` (the function gets CuPy '
        "arrays), `*args`/`**kwargs` calls, a "
        "`function=` computed by a call (the pipeline made it once; the generator's body runs per batch), any other "
        "non-literal `batch_processing=`, and a sink whose result is used, that stands in a block, that a Python "
        "operator with outputs follows (DALI calls that one first), or that runs per sample without inputs (DALI never "
        "calls it)."
    ),
    why="Dynamic mode has no Python operator: it runs plain Python already, one sample at a time.",
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "The function now runs in the calling thread, in program order, not on DALI's worker thread (a "
        "function that changed its input in place let DALI's later operators see the change, in DALI's "
        "order; with the copy, none do: nor, for a sink, an output that shares its input's buffer, which DALI's "
        "sink, run after the outputs were computed, could change); "
        "`exec_async=False, exec_pipelined=False` (which `fn.python_function` required) are dropped (NDD004)."
    ),
    examples=(
        Example(
            title="per sample, two inputs",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "def mix(a, b):\n"
                "    return a + b\n\n\n"
                "@pipeline_def(batch_size=4, exec_async=False, exec_pipelined=False)\n"
                "def pipe(root):\n"
                "    data = fn.readers.numpy(file_root=root)\n"
                "    return fn.python_function(data, data, function=mix)\n"
            ),
            after=(
                "import numpy as np\n"
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def mix(a, b):\n"
                "    return a + b\n\n\n"
                "def pipe(root, *, batch_size=4):\n"
                "    reader = ndd.readers.Numpy(file_root=root)\n"
                "    while True:\n"
                "        for (data,) in reader.next_epoch(batch_size=batch_size):\n"
                '            yield ndd.as_batch([np.asarray(mix(np.asarray(s0), np.asarray(s1)), order="C") for s0, s1 in '
                "zip(data.tensors, data.tensors)]).evaluate(),\n"
            ),
        ),
        Example(
            title="per batch, two outputs",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "def split(batch):\n"
                "    return [x[:2] for x in batch], [x[2:] for x in batch]\n\n\n"
                "@pipeline_def(batch_size=4, exec_async=False, exec_pipelined=False)\n"
                "def pipe(root):\n"
                "    data = fn.readers.numpy(file_root=root)\n"
                "    head, tail = fn.python_function(data, function=split, num_outputs=2, batch_processing=True)\n"
                "    return head, tail\n"
            ),
            after=(
                "import numpy as np\n"
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def split(batch):\n"
                "    return [x[:2] for x in batch], [x[2:] for x in batch]\n\n\n"
                "def pipe(root, *, batch_size=4):\n"
                "    reader = ndd.readers.Numpy(file_root=root)\n"
                "    while True:\n"
                "        for (data,) in reader.next_epoch(batch_size=batch_size):\n"
                '            head, tail = [ndd.as_batch([np.asarray(o, order="C") for o in out]) for out in '
                "split([np.asarray(s) for s in data.tensors])]\n"
                "            yield head.evaluate(), tail.evaluate()\n"
            ),
        ),
        Example(
            title="a sink, after a function whose `batch_processing=` is a parameter",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "def same(x):\n"
                "    return x\n\n\n"
                "def save(x):\n"
                "    print(x.shape)\n\n\n"
                "@pipeline_def(batch_size=4, exec_async=False, exec_pipelined=False)\n"
                "def pipe(root, per_batch=False):\n"
                "    data = fn.readers.numpy(file_root=root)\n"
                "    out = fn.python_function(data, function=same, batch_processing=per_batch)\n"
                "    fn.python_function(out, function=save, num_outputs=0)\n"
                "    return out\n"
            ),
            after=(
                "import numpy as np\n"
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def same(x):\n"
                "    return x\n\n\n"
                "def save(x):\n"
                "    print(x.shape)\n\n\n"
                "def pipe(root, per_batch=False, *, batch_size=4):\n"
                "    reader = ndd.readers.Numpy(file_root=root)\n"
                "    while True:\n"
                "        for (data,) in reader.next_epoch(batch_size=batch_size):\n"
                '            out = (ndd.as_batch([np.asarray(o, order="C") for o in same([np.asarray(s) for s in data.tensors])]) '
                'if per_batch else ndd.as_batch([np.asarray(same(np.asarray(s)), order="C") for s in data.tensors]))\n'
                "            for s in out.tensors:\n"
                "                save(np.asarray(s))\n"
                "            yield out.evaluate(),\n"
            ),
        ),
    ),
)


def unsupported(call: cst.Call, pipeline) -> str | None:
    """Why ``call`` (in the pipeline function ``fn``) cannot be written out as plain Python, or None."""
    why = python_operators.unsupported(list(call.args), "`fn.python_function`", _fixed(pipeline))
    spec = python_operators.read(list(call.args)) if why is None else None
    if spec is not None and not (python_function.is_reference(spec.function) or isinstance(spec.function, cst.Lambda)):
        return (
            "`function=` is computed (`make(...)`, `fns[i]`): the pipeline computed it once, when it was "
            "built, the generator's body computes it at every batch: bind it to a name outside the "
            "pipeline function and pass that"
        )
    if spec is not None and spec.outputs == 0:
        others = [c for c in pipeline.python_functions if not python_operators.is_sink(list(c.args))]
        return python_operators.sink_obstacle(
            pipeline.node.body.body, call, list(call.args), others, "`fn.python_function(...)`"
        )
    return why


def _fixed(pipeline) -> frozenset[str]:
    """The pipeline function's parameters its body does not bind again: the generator has them, with
    the value the pipeline was built with."""
    bound = {name for stmt in pipeline.node.body.body for name in build_time.bound_names(stmt)}
    return frozenset(p.name.value for p in cstutil.all_params(pipeline.node.params)) - bound


class Impl(RuleImpl):
    rule = RULE

    def blockers(self, pipeline):
        return [(call, why, "") for call in pipeline.python_functions if (why := unsupported(call, pipeline))]

    def leave_Call(self, original: cst.Call, updated: cst.BaseExpression) -> cst.BaseExpression:
        pipeline = self._converted(original, updated)
        if pipeline is None or python_operators.is_sink(list(original.args)):
            return updated  # a sink: its statement is rewritten (leave_SimpleStatementLine)
        self.ctx.report(self.code, original, "`fn.python_function` → plain Python over the samples", fixed=True)
        spec = python_operators.read(list(updated.args))
        return python_function.plain(
            spec,
            python_function.callable_code(spec.function),
            asarray=self._asarray(original),
            contiguous=cst.Module([]).code_for_node(self.ctx.numpy("asarray")),
            as_batch=cst.Module([]).code_for_node(self.ctx.ndd("as_batch")),
        )

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        """``fn.python_function(x, function=f, num_outputs=0)`` as a statement: ``f`` called over the samples."""
        if not (
            len(original.body) == 1
            and isinstance(original.body[0], cst.Expr)
            and isinstance(original.body[0].value, cst.Call)
            and isinstance(updated.body[0], cst.Expr)
        ):
            return updated
        call, rewritten = original.body[0].value, updated.body[0].value
        if self._converted(call, rewritten) is None or not python_operators.is_sink(list(call.args)):
            return updated
        self.ctx.report(
            self.code,
            call,
            "`fn.python_function(..., num_outputs=0)` → the function called over the samples",
            fixed=True,
        )
        spec = python_operators.read(list(rewritten.args))
        return python_function.sink(
            spec, python_function.callable_code(spec.function), asarray=self._asarray(call), line=updated
        )

    def _converted(self, original: cst.Call, updated: cst.BaseExpression):
        """The converted pipeline whose ``fn.python_function`` call ``original`` is, or None."""
        if names.fn_path(self.dali_name(original.func)) != "python_function" or not isinstance(updated, cst.Call):
            return None
        pipeline = self.ctx.enclosing_pipeline()
        if pipeline is None or not pipeline.convert or unsupported(original, pipeline):
            return None  # outside a pipeline NDD901 reports it; inside, the analysis did
        return pipeline

    def _asarray(self, original: cst.Call) -> str:
        """``np.asarray``, or ``np.array`` (a copy) for a function that may change its argument."""
        copy = python_operators.may_modify(
            cstutil.kwarg(original, "function").value, self.ctx.resolver, {self.ctx.model.names.numpy or "np"}
        )
        return cst.Module([]).code_for_node(self.ctx.numpy("array" if copy else "asarray"))
