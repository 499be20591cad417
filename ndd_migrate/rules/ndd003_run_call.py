"""NDD003 run-call: ``pipe.run()`` becomes ``next(pipe)``."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.types import Kind
from ndd_migrate.plan import uses

RULE = Rule(
    code="NDD003",
    name="run-call",
    summary="`pipe.run()` becomes `next(pipe)` on the migrated generator",
    what=(
        "Rewrites `pipe.run()` on objects returned by a migrated pipeline function into `next(pipe)`; so "
        "too `pipe.outputs()` and `pipe.share_outputs()` of the scheduled API (the `schedule_run()` and "
        "`release_outputs()` statements around them go, NDD002)."
    ),
    why=(
        "The migrated function yields one tuple of batches per step, continuing across epochs like "
        "`pipe.run()` did, so `next()` gives exactly what `run()` gave. `outputs()` gives the batches "
        "`schedule_run()` made, in the order they were made (DALI 2.4 `Pipeline.outputs`; `run()` is "
        "`schedule_run()` then `outputs()`): the same stream."
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
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def p(*, batch_size=2):\n"
                "    while True:\n"
                "        yield ndd.random.uniform(batch_size=batch_size).evaluate(),\n\n\n"
                "pipe = p()\n"
                "for _ in range(3):\n"
                "    out = next(pipe)\n"
            ),
        ),
        Example(
            title="the scheduled API: `schedule_run()` for each pipeline, then `outputs()` of each",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    return fn.random.uniform()\n\n\n"
                "pipes = [p(seed=i) for i in range(2)]\n"
                "for pipe in pipes:\n"
                "    pipe.schedule_run()\n"
                "for pipe in pipes:\n"
                "    (x,) = pipe.outputs()\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def p(*, batch_size=2, seed=None):\n"
                "    rng = ndd.random.RNG(seed=seed)\n"
                "    while True:\n"
                "        yield ndd.random.uniform(batch_size=batch_size, rng=rng).evaluate(),\n\n\n"
                "pipes = [p(seed=i) for i in range(2)]\n"
                "for pipe in pipes:\n"
                "    (x,) = next(pipe)\n"
            ),
        ),
    ),
    valid=(
        "import subprocess\n\nsubprocess.run(['ls'])\n",
        "class Job:\n    def schedule_run(self): pass\n    def outputs(self): return 1\n\n\njob = Job()\njob.schedule_run()\njob.outputs()\n",
    ),
)

#: The methods that give the next tuple of batches: `run()`, and `outputs()` / `share_outputs()` of
#: the scheduled API (analysis.expr_kind follows what they give).
NEXT_BATCHES = ("run", "outputs", "share_outputs")
MIXED = "pipeline mode raises where `run()` is mixed with the scheduled API, and `next(pipe)` would not"


class Impl(RuleImpl):
    rule = RULE

    def claims(self, use):
        """``pipe.run()``, ``pipe.outputs()``, ``pipe.share_outputs()`` → ``next(pipe)``."""
        if use.kind is not Kind.PIPELINE or use.context != uses.METHOD or use.detail not in NEXT_BATCHES:
            return None
        if use.holder.args:
            return f"`{use.detail}()` with arguments"
        if use.detail != "run" and self.ctx.model.plan.mixes_run_apis(use.pipeline):
            return MIXED
        return self.ctx.applies(self.code, use.holder) or None

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = original.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in NEXT_BATCHES and not original.args):
            return updated
        if self.ctx.converted_kind(func.value, Kind.PIPELINE) is None or not self.ctx.applies(self.code, original):
            return updated
        hint = self.ctx.migrated_before_hint(func.value)
        self.ctx.report(self.code, original, f"`pipe.{func.attr.value}()` → `next(pipe)`", hint=hint, fixed=True)
        return cst.Call(func=cst.Name("next"), args=[cst.Arg(updated.func.value)])
