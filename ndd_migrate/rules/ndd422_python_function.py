"""NDD422 python-function: ``fn.python_function`` becomes plain Python over the samples.

DALI calls the function per sample with numpy arrays (``batch_processing=False``, the default) or
once per batch with one list of arrays per input (``batch_processing=True``); a multi-output function
returns a tuple (``ops/_operators/python_function.py``, ``function_wrapper_per_sample`` /
``function_wrapper_batch``). Dynamic mode has no such operator: the same calls are written out,
with ``np.asarray(tensor)`` per sample, and the results wrapped with ``ndd.as_batch``.
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate import cstutil, names
from ndd_migrate.catalog import Example, Rule
from ndd_migrate.diagnostics import FixSafety
from ndd_migrate.rules.base import RuleImpl

RULE = Rule(
    code="NDD422",
    name="python-function",
    summary="`fn.python_function` becomes plain Python over the samples",
    what=(
        "In a migrated pipeline function, `fn.python_function(x, ..., function=f)` becomes "
        "`ndd.as_batch([f(np.asarray(s)) for s in x.tensors])` (one call per sample, several inputs zipped); "
        "with `batch_processing=True`, `ndd.as_batch(f([np.asarray(s) for s in x.tensors], ...))` (one call "
        "per batch); with `num_outputs=N`, a list of N batches built from the tuples `f` returns; "
        "`output_layouts=` becomes `layout=`. Reported for a human: `device=\"gpu\"` (the function gets CuPy "
        "arrays), `num_outputs=0` (a function run for its side effects) and `*args`/`**kwargs` calls."
    ),
    why="Dynamic mode has no Python operator: it runs plain Python already, one sample at a time.",
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "The function now runs in the calling thread, in program order, not on DALI's worker thread; "
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
                "    (data,) = fn.readers.numpy(file_root=root)\n"
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
                "            yield ndd.as_batch([mix(np.asarray(s0), np.asarray(s1)) for s0, s1 in "
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
                "    (data,) = fn.readers.numpy(file_root=root)\n"
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
                "            head, tail = [ndd.as_batch(out) for out in split([np.asarray(s) for s in data.tensors])]\n"
                "            yield head.evaluate(), tail.evaluate()\n"
            ),
        ),
    ),
)

_KNOWN = {"function", "num_outputs", "batch_processing", "output_layouts", "device", "name", "preserve",
          "bytes_per_sample_hint"}


def unsupported(call: cst.Call) -> str | None:
    """Why ``call`` cannot be written out as plain Python, or None (read by the analysis)."""
    if cstutil.has_star(call) or any(a.keyword and a.keyword.value not in _KNOWN for a in call.args):
        return "`fn.python_function` with `*args`/`**kwargs` or unknown arguments"
    if cstutil.kwarg(call, "function") is None:
        return "`fn.python_function` without `function=`"
    device = cstutil.kwarg(call, "device")
    if device is not None and cstutil.string_value(device.value) != "cpu":
        return ('`fn.python_function(device="gpu")` hands the function CuPy arrays: convert with '
                "`cupy.asarray(tensor)` per sample (or `batch.torch()`) by hand")
    outputs = _literal(call, "num_outputs", 1)
    if not isinstance(outputs, int) or isinstance(outputs, bool) or outputs < 1:
        return "`num_outputs=` is 0 (a function run for its side effects) or not a literal: call it by hand"
    if not isinstance(_literal(call, "batch_processing", False), bool):
        return "`batch_processing=` is not a literal True/False"
    if not any(a.keyword is None for a in call.args):
        return "`fn.python_function` without inputs"
    return None


def _literal(call: cst.Call, name: str, default):
    arg = cstutil.kwarg(call, name)
    return default if arg is None else cstutil.literal_value(arg.value)


class Impl(RuleImpl):
    rule = RULE

    def blockers(self, fn):
        return [(call, why, "") for call in fn.python_functions if (why := unsupported(call))]

    def leave_Call(self, original: cst.Call, updated: cst.BaseExpression) -> cst.BaseExpression:
        if names.fn_path(self.dali_name(original.func)) != "python_function" or not isinstance(updated, cst.Call):
            return updated
        fn = self.ctx.enclosing_pipeline()
        if fn is None or not fn.convert or unsupported(original):
            return updated  # outside a pipeline NDD901 reports it; inside, the analysis did
        self.ctx.report(self.code, original, "`fn.python_function` → plain Python over the samples", fixed=True)
        return self._plain(original, updated)

    def _plain(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        function = cstutil.kwarg(updated, "function").value
        inputs = [a.value for a in updated.args if a.keyword is None]
        outputs = _literal(original, "num_outputs", 1)
        code = cst.Module([]).code_for_node
        func, asarray = code(function), code(self.ctx.numpy("asarray"))
        as_batch = code(self.ctx.ndd("as_batch"))
        layouts = cstutil.kwarg(updated, "output_layouts")
        layout = f", layout={code(layouts.value)}" if layouts is not None else ""
        per_output_layouts = layouts is not None and isinstance(layouts.value, (cst.List, cst.Tuple)) and outputs > 1
        if _literal(original, "batch_processing", False):
            args = ", ".join(f"[{asarray}(s) for s in {_tensors(code(x))}]" for x in inputs)
            result = f"{func}({args})"
            one = "out"
        else:
            loop_vars = ["s"] if len(inputs) == 1 else [f"s{i}" for i in range(len(inputs))]
            args = ", ".join(f"{asarray}({v})" for v in loop_vars)
            source = _tensors(code(inputs[0])) if len(inputs) == 1 else (
                "zip(" + ", ".join(_tensors(code(x)) for x in inputs) + ")")
            result = f"[{func}({args}) for {', '.join(loop_vars)} in {source}]"
            if outputs > 1:
                result = f"zip(*{result})"
            one = "list(out)"
        if outputs == 1:
            return cst.parse_expression(f"{as_batch}({result}{layout})")
        if per_output_layouts:
            return cst.parse_expression(
                f"[{as_batch}({one}, layout=layout) for out, layout in zip({result}, {code(layouts.value)})]")
        return cst.parse_expression(f"[{as_batch}({one}{layout}) for out in {result}]")


def _tensors(expr: str) -> str:
    return f"({expr}).tensors" if not expr.replace(".", "").replace("_", "").isalnum() else f"{expr}.tensors"
