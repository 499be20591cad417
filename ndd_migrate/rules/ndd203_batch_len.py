"""NDD203 batch-len: ``len(out)`` on a pipeline output becomes ``out.batch_size``."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import QualifiedNameProvider

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.types import Kind
from ndd_migrate.plan import uses

RULE = Rule(
    code="NDD203",
    name="batch-len",
    summary="a `Batch` has no `len()`: use `.batch_size`",
    what="On outputs of a migrated pipeline, rewrites `len(out)` to `out.batch_size`.",
    why="`Batch` does not implement `__len__`; `len(batch)` raises `TypeError`.",
    fix_safety=FixSafety.UNSAFE,
    fix="Same number.",
    examples=(
        Example(
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    return fn.random.uniform()\n\n\n"
                "pipe = p()\n"
                "(x,) = pipe.run()\n"
                "n = len(x)\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def p(*, batch_size=2):\n"
                "    while True:\n"
                "        yield ndd.random.uniform(batch_size=batch_size).evaluate(),\n\n\n"
                "pipe = p()\n"
                "(x,) = next(pipe)\n"
                "n = x.batch_size\n"
            ),
        ),
    ),
)


class Impl(RuleImpl):
    rule = RULE

    def claims(self, use):
        """``len(out)`` → ``out.batch_size``."""
        if use.kind is not Kind.BATCH or use.context != uses.LEN:
            return None
        return self.ctx.applies(self.code, use.holder) or None

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if not (isinstance(original.func, cst.Name) and len(original.args) == 1 and original.args[0].keyword is None):
            return updated
        quals = self.ctx.resolver.get_metadata(QualifiedNameProvider, original.func, None) or ()
        if {q.name for q in quals} != {"builtins.len"}:
            return updated
        if self.ctx.converted_kind(original.args[0].value, Kind.BATCH) is None or not isinstance(updated, cst.Call):
            return updated
        fixed = self.ctx.applies(self.code, original)
        # The user's expression, not a made-up `out`: `len(images)` → `images.batch_size`.
        arg = " ".join(cst.Module([]).code_for_node(original.args[0].value).split())
        arg = arg if len(arg) <= 40 else arg[:37].rstrip() + "..."
        self.ctx.report(
            self.code, original, f"`len({arg})` → `{arg}.batch_size`", fixed=fixed, hint=f"use `{arg}.batch_size`"
        )
        return cst.Attribute(updated.args[0].value, cst.Name("batch_size")) if fixed else updated
