"""NDD502 batch-len: ``len(batch)`` on an ndd ``Batch`` becomes ``batch.batch_size``."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import QualifiedNameProvider

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.flow_rule import FlowRule
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.values.ndd_flow import Data

RULE = Rule(
    code="NDD502",
    name="batch-len",
    summary="a `Batch` has no `len()`: use `.batch_size`",
    what="Finds the builtin `len(batch)` where `batch` is known to be an ndd `Batch`, and rewrites it to `batch.batch_size`.",
    why="`Batch` has no `__len__`: `len(batch)` raises `TypeError: object of type 'Batch' has no len()` (DALI 2.4.0).",
    fix_safety=FixSafety.SAFE,
    fix="Safe: the original raised; `.batch_size` is the number of samples.",
    examples=(
        Example(
            before=(
                "import nvidia.dali.experimental.dynamic as d\n\n"
                "noise = d.random.normal(batch_size=8)\n"
                "print(len(noise))\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as d\n\n"
                "noise = d.random.normal(batch_size=8)\n"
                "print(noise.batch_size)\n"
            ),
        ),
    ),
    valid=(
        "import nvidia.dali.experimental.dynamic as ndd\n\nb = ndd.random.normal(batch_size=8)\nn = b.batch_size\n",
        "import nvidia.dali.experimental.dynamic as ndd\n\n\ndef f(b):\n    return len(b)\n",
        (
            "import nvidia.dali.experimental.dynamic as ndd\n\nb = ndd.random.normal(batch_size=8)\n\n\n"
            "def len(x):\n    return 1\n\n\nn = len(b)\n"
        ),
    ),
)


class Impl(FlowRule):
    rule = RULE

    def leave_Call(self, original: cst.Call, updated: cst.BaseExpression) -> cst.BaseExpression:
        if not (
            isinstance(original.func, cst.Name)
            and len(original.args) == 1
            and original.args[0].keyword is None
            and not original.args[0].star
        ):
            return updated
        quals = self.ctx.resolver.get_metadata(QualifiedNameProvider, original.func, None) or ()
        if {q.name for q in quals} != {"builtins.len"} or not isinstance(updated, cst.Call):
            return updated
        if self.flow.kind(original.args[0].value) is not Data.BATCH:
            return updated
        fixed = self.ctx.applies(self.code, original)
        self.ctx.report(
            self.code,
            original,
            "`Batch` has no `len()`: `len(batch)` → `batch.batch_size`",
            hint="use `.batch_size`",
            fixed=fixed,
        )
        return cst.Attribute(updated.args[0].value, cst.Name("batch_size")) if fixed else updated
