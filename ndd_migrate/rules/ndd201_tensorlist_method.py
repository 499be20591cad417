"""NDD201 tensorlist-method: ``TensorList`` methods on pipeline outputs become ``Batch`` equivalents."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.analysis import Kind
from ndd_migrate.catalog import Example, Rule
from ndd_migrate.diagnostics import FixSafety
from ndd_migrate.rules.base import RuleImpl

RULE = Rule(
    code="NDD201",
    name="tensorlist-method",
    summary="`TensorList` methods on `pipe.run()` outputs have `Batch` counterparts",
    what=(
        "On outputs of a migrated pipeline: `out.at(i)` → `np.asarray(out.tensors[i])`, "
        "`out.as_array()` / `out.as_tensor()` → `np.asarray(ndd.as_tensor(out))`, `out.as_cpu()` → "
        "`out.cpu()`, `out.layout()` / `out.shape()` → the properties `out.layout` / `out.shape`. "
        "Other `TensorList` methods are reported."
    ),
    why="A dynamic-mode `Batch` has none of these methods; the calls would raise `AttributeError`.",
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "Equivalent values. `ndd.as_tensor` of a ragged batch raises, as `as_array()` did; "
        "`ndd.as_tensor(out, pad=True)` pads instead."
    ),
    examples=(
        Example(
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    return fn.random.uniform(shape=[3])\n\n\n"
                "pipe = p()\n"
                "pipe.build()\n"
                "(x,) = pipe.run()\n"
                "print(x.at(0), x.as_array().mean(), x.layout(), x.shape())\n"
            ),
            after=(
                "import numpy as np\n"
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def p(*, batch_size=2):\n"
                "    while True:\n"
                "        yield ndd.random.uniform(shape=[3], batch_size=batch_size).evaluate(),\n\n\n"
                "pipe = p()\n"
                "(x,) = next(pipe)\n"
                "print(np.asarray(x.tensors[0]), np.asarray(ndd.as_tensor(x)).mean(), x.layout, x.shape)\n"
            ),
        ),
    ),
)

_PROPERTIES = {"layout", "shape"}


class Impl(RuleImpl):
    rule = RULE

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = original.func
        if not isinstance(func, cst.Attribute) or not isinstance(updated, cst.Call):
            return updated
        if self.ctx.converted_kind(func.value, Kind.BATCH) is None:
            return updated
        method = func.attr.value
        receiver = updated.func.value
        new = self._replacement(method, receiver, updated)
        if new is None:
            if method not in ("cpu", "gpu"):
                self.ctx.report(self.code, original, f"`TensorList.{method}()` has no `Batch` counterpart here",
                                hint=f"rewrite `.{method}()` for an ndd Batch (see docs/target-shape.md)", fixed=False)
            return updated
        fixed = self.ctx.applies(self.code, original)
        self.ctx.report(self.code, original, f"`.{method}()` on a pipeline output rewritten for `Batch`", fixed=fixed)
        return new if fixed else updated

    def _replacement(self, method: str, receiver: cst.BaseExpression, call: cst.Call) -> cst.BaseExpression | None:
        if method == "at" and len(call.args) == 1 and call.args[0].keyword is None:
            item = cst.Subscript(
                value=cst.Attribute(receiver, cst.Name("tensors")),
                slice=[cst.SubscriptElement(cst.Index(call.args[0].value))],
            )
            return cst.Call(self.ctx.numpy("asarray"), [cst.Arg(item)])
        if method in ("as_array", "as_tensor") and not call.args:
            return cst.Call(self.ctx.numpy("asarray"), [cst.Arg(cst.Call(self.ctx.ndd("as_tensor"), [cst.Arg(receiver)]))])
        if method == "as_cpu" and not call.args:
            return call.with_changes(func=cst.Attribute(receiver, cst.Name("cpu")))
        if method in _PROPERTIES and not call.args:
            return cst.Attribute(receiver, cst.Name(method))
        return None
