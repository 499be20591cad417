"""NDD003 run-call: ``pipe.run()`` becomes ``next(pipe)``."""

from __future__ import annotations

import libcst as cst

from ndd_migrate import plan
from ndd_migrate.analysis import Kind
from ndd_migrate.catalog import Example, Rule
from ndd_migrate.diagnostics import FixSafety
from ndd_migrate.rules.base import RuleImpl

RULE = Rule(
    code="NDD003",
    name="run-call",
    summary="`pipe.run()` becomes `next(pipe)` on the migrated generator",
    what="Rewrites `pipe.run()` on objects returned by a migrated pipeline function into `next(pipe)`.",
    why=(
        "The migrated function yields one tuple of batches per step, continuing across epochs like "
        "`pipe.run()` did, so `next()` gives exactly what `run()` gave."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix="Applied together with NDD001.",
    examples=(
        Example(
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    return fn.random.uniform()\n\n\n"
                "pipe = p()\n"
                "for _ in range(3):\n"
                "    out = pipe.run()\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def p(*, batch_size=2):\n"
                "    while True:\n"
                "        yield ndd.random.uniform(batch_size=batch_size).evaluate(),\n\n\n"
                "pipe = p()\n"
                "for _ in range(3):\n"
                "    out = next(pipe)\n"
            ),
        ),
    ),
    valid=("import subprocess\n\nsubprocess.run(['ls'])\n",),
)


class Impl(RuleImpl):
    rule = RULE

    def claims(self, use):
        """``pipe.run()`` → ``next(pipe)``."""
        if use.kind is not Kind.PIPELINE or use.context != plan.METHOD or use.detail != "run":
            return None
        if use.holder.args:
            return "`run()` with arguments"
        return self.ctx.applies(self.code, use.holder) or None

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = original.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "run" and not original.args):
            return updated
        if self.ctx.converted_kind(func.value, Kind.PIPELINE) is None or not self.ctx.applies(self.code, original):
            return updated
        hint = self.ctx.migrated_before_hint(func.value)
        self.ctx.report(self.code, original, "`pipe.run()` → `next(pipe)`", hint=hint, fixed=True)
        return cst.Call(func=cst.Name("next"), args=[cst.Arg(updated.func.value)])
