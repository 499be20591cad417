"""NDD202 batch-index: ``out[i]`` on a pipeline output becomes ``out.tensors[i]``."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.types import Kind
from ndd_migrate.plan import uses

RULE = Rule(
    code="NDD202",
    name="batch-index",
    summary="a `Batch` is not subscriptable: pick samples with `.tensors[i]`",
    what="On outputs of a migrated pipeline, rewrites `out[i]` to `out.tensors[i]`.",
    why=(
        "`TensorList[i]` gave sample i; `Batch` has no `__getitem__` (a `TypeError`). Per-sample slicing "
        "inside every sample is `batch.slice[...]`, a different operation."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix="Same sample. `out.tensors[i]` is an ndd `Tensor`; use `np.asarray(...)` where numpy was expected.",
    examples=(
        Example(
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    return fn.random.uniform(shape=[3])\n\n\n"
                "pipe = p()\n"
                "out = pipe.run()\n"
                "first = out[0][1]\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def p(*, batch_size=2):\n"
                "    while True:\n"
                "        yield ndd.random.uniform(shape=[3], batch_size=batch_size).evaluate(),\n\n\n"
                "pipe = p()\n"
                "out = next(pipe)\n"
                "first = out[0].tensors[1]\n"
            ),
        ),
    ),
)


class Impl(RuleImpl):
    rule = RULE

    def claims(self, use):
        """``out[i]`` → ``out.tensors[i]``."""
        if use.kind is not Kind.BATCH or use.context != uses.SUBSCRIPT:
            return None
        return self.ctx.applies(self.code, use.holder) or None

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        if self.ctx.converted_kind(original.value, Kind.BATCH) is None or not isinstance(updated, cst.Subscript):
            return updated
        fixed = self.ctx.applies(self.code, original)
        self.ctx.report(self.code, original, "`out[i]` → `out.tensors[i]`", fixed=fixed, hint="use `.tensors[i]`")
        if not fixed:
            return updated
        return updated.with_changes(value=cst.Attribute(updated.value, cst.Name("tensors")))
