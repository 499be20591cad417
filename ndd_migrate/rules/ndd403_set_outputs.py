"""NDD403 set-outputs: a ``Pipeline(...)`` built by hand (``with pipe:`` + ``pipe.set_outputs(...)``)."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.catalog import Example, Rule
from ndd_migrate.diagnostics import FixSafety
from ndd_migrate.rules.base import RuleImpl

HINT = (
    "move the statements of `with pipe:` into a `@pipeline_def` function that returns what `set_outputs` "
    "gets (the `Pipeline(...)` arguments go to its decorator), create the pipeline by calling it, then run "
    "ndd-migrate again"
)

RULE = Rule(
    code="NDD403",
    name="set-outputs",
    summary="a `Pipeline(...)` built by hand with `with pipe:` and `set_outputs` is not rewritten",
    what=(
        "Reports `Pipeline(...)` constructed directly, the form whose graph is defined in a `with pipe:` "
        "block ending in `pipe.set_outputs(...)`. The module stays pipeline-mode code: `fn.*` calls outside "
        "`@pipeline_def` functions are not rewritten either, since the graph may call them."
    ),
    why=(
        "The graph is spread over module-level statements that may share names with the code around them; "
        "turning it into a generator means choosing a function boundary, which the `@pipeline_def` form makes "
        "explicit. Once it is a `@pipeline_def` function, NDD001 migrates it."
    ),
    fix_safety=FixSafety.MANUAL,
    fix="None: wrap the graph in a `@pipeline_def` function (see the hint) and migrate again.",
    examples=(
        Example(
            before=(
                "from nvidia.dali import Pipeline, fn\n\n"
                "pipe = Pipeline(batch_size=8, num_threads=2, device_id=0)\n"
                "with pipe:\n"
                "    pipe.set_outputs(fn.random.uniform(range=[0, 1]))\n"
                "pipe.build()\n"
            ),
            after=(
                "from nvidia.dali import Pipeline, fn\n\n"
                f"# TODO(ndd-migrate): NDD403 {HINT}\n"
                "pipe = Pipeline(batch_size=8, num_threads=2, device_id=0)\n"
                "with pipe:\n"
                "    pipe.set_outputs(fn.random.uniform(range=[0, 1]))\n"
                "pipe.build()\n"
            ),
        ),
    ),
    valid=("class Pipeline:\n    pass\n\n\npipe = Pipeline()\n",),
)


class Impl(RuleImpl):
    rule = RULE

    def visit_Call(self, node: cst.Call) -> None:
        if any(node is call for call in self.ctx.model.explicit_pipelines):
            self.ctx.report(
                self.code, node, "`Pipeline(...)` built by hand (`with pipe:` + `set_outputs`) stays in pipeline mode",
                hint=HINT, fixed=False,
            )
