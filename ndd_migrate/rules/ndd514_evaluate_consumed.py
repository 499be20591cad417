"""NDD514 evaluate-consumed: ``.evaluate()`` on a value that the next call evaluates anyway."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.flow_rule import FlowRule
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.values.ndd_flow import is_data, ndd_op_info, ndd_path

_CONVERSIONS = ("torch", "cpu", "gpu")

RULE = Rule(
    code="NDD514",
    name="evaluate-consumed",
    summary="`.evaluate()` on data that is passed straight on only makes Python wait",
    what=(
        "Finds `x.evaluate()` on ndd data (a `Batch`, a `Tensor`, an op's result) used directly as an input "
        "of an ndd operator or as the receiver of `.torch()`, `.cpu()` or `.gpu()`, and removes the "
        "`.evaluate()`."
    ),
    why=(
        "`.evaluate()` blocks the Python thread until the value is computed (DALI 2.4.0: it waits on the "
        "invocation's result). An ndd op takes unevaluated inputs and schedules after them, and the "
        "conversions evaluate what they need, so the wait only removes the overlap between Python and the "
        "operators."
    ),
    fix_safety=FixSafety.SAFE,
    fix="Safe: the same statement evaluates the value anyway, so values and the line an error points to stay the same.",
    examples=(
        Example(
            before=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def prepare(images):\n"
                "    small = ndd.resize(images, size=[64, 64]).evaluate()\n"
                "    return ndd.crop(ndd.resize(images, size=[96, 96]).evaluate(), crop=[64, 64]), small\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def prepare(images):\n"
                "    small = ndd.resize(images, size=[64, 64]).evaluate()\n"
                "    return ndd.crop(ndd.resize(images, size=[96, 96]), crop=[64, 64]), small\n"
            ),
        ),
    ),
    valid=(
        # evaluated on purpose, e.g. to time it or to surface errors here
        "import nvidia.dali.experimental.dynamic as ndd\n\nb = ndd.random.uniform(batch_size=2, shape=[2]).evaluate()\n",
        # not known to be ndd data
        "import nvidia.dali.experimental.dynamic as ndd\n\n\ndef f(model, x):\n    return ndd.flip(model.evaluate())\n",
    ),
)


class Impl(FlowRule):
    rule = RULE

    def visit_Module(self, node: cst.Module) -> None:
        super().visit_Module(node)
        self._consumed: set[cst.Call] = set()

    def visit_Call(self, node: cst.Call) -> None:
        """Remember the ``x.evaluate()`` calls this call consumes."""
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in _CONVERSIONS and _evaluated(func.value):
            self._consumed.add(func.value)
        path = ndd_path(self.ctx, func)
        if path is not None and (ndd_op_info(path) is not None or path.startswith("math.")):
            self._consumed.update(a.value for a in node.args if not a.star and _evaluated(a.value))

    def leave_Call(self, original: cst.Call, updated: cst.BaseExpression) -> cst.BaseExpression:
        if original not in self._consumed or not is_data(self.flow.kind(original.func.value)):
            return updated
        fixed = self.ctx.applies(self.code, original) and _evaluated(updated) is not None
        self.ctx.report(
            self.code,
            original,
            "`.evaluate()` on a value that is consumed right away",
            hint="drop `.evaluate()`: the consumer evaluates it anyway",
            fixed=fixed,
        )
        return updated.func.value if fixed else updated


def _evaluated(expr: cst.BaseExpression) -> cst.Call | None:
    """``expr`` when it is ``x.evaluate()``, else None."""
    if (
        isinstance(expr, cst.Call)
        and not expr.args
        and isinstance(expr.func, cst.Attribute)
        and expr.func.attr.value == "evaluate"
    ):
        return expr
    return None
