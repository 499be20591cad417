"""NDD104 batch-size: operators without a batch input get ``batch_size=batch_size``."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.codegen import shape
from ndd_migrate.dali.tables import op_info
from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.values import graph_helpers
from ndd_migrate.syntax import cstutil, names

RULE = Rule(
    code="NDD104",
    name="batch-size",
    summary="an operator without a batch input needs `batch_size=` in dynamic mode",
    what=(
        "Inside a migrated pipeline function, adds `batch_size=batch_size` to every operator called "
        "without a positional input that is not a reader: random ops (`random.uniform`, `random.coin_flip`, "
        "...) above all. A helper building part of the graph, called only from converted pipelines, "
        'takes `batch_size` as a keyword parameter its callers pass (docs/target-shape.md, "Graph helpers"). '
        "Elsewhere in dynamic-mode code, where the batch size is unknown, it reports the call."
    ),
    why=(
        "In a pipeline every op produces a whole batch. In dynamic mode an op with no batch input and no "
        "`batch_size=` returns ONE `Tensor`, which later ops broadcast to every sample: every image gets the "
        "same random flip. Nothing fails; the meaning silently changes."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix="Applied by `migrate` as part of the pipeline rewrite (NDD001), which defines `batch_size`.",
    examples=(
        Example(
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=8)\n"
                "def noise():\n"
                "    return fn.random.uniform(range=[0.0, 1.0])\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def noise(*, batch_size=8):\n"
                "    while True:\n"
                "        yield ndd.random.uniform(range=[0.0, 1.0], batch_size=batch_size).evaluate(),\n"
            ),
        ),
    ),
    valid=("import nvidia.dali.experimental.dynamic as ndd\n\nx = ndd.random.uniform(range=[0, 1], batch_size=4)\n",),
)


class Impl(RuleImpl):
    rule = RULE

    def _helpers(self) -> dict:
        return graph_helpers.threaded_helpers(self.ctx.resolver, self.ctx.model)

    def _in_helper(self, call: cst.Call) -> bool:
        return any(call in helper.sizes for helper in self._helpers().values())

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        """A helper building part of the graph (graph_helpers.threaded_helpers) takes ``batch_size``."""
        if original not in self._helpers() or not self.ctx.applies(self.code, original):
            return updated
        return updated.with_changes(params=shape.add_kwonly(updated.params, "batch_size"))

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if isinstance(updated, cst.Call) and any(
            original in helper.callers and self.ctx.applies(self.code, node) for node, helper in self._helpers().items()
        ):  # `processing(images)` → `processing(images, batch_size=batch_size)`
            return cstutil.add_kwarg(updated, "batch_size", cst.Name("batch_size"))
        path = names.fn_path(self.dali_name(original.func))
        info = op_info(path) if path else None
        if not _needs_batch_size(original, info):
            return updated
        pipeline = self.ctx.enclosing_pipeline()
        if pipeline is None:
            return self._outside_pipeline(original, updated, path, info)
        if not pipeline.convert or not isinstance(updated, cst.Call):
            return updated
        self.ctx.report(self.code, original, f"`batch_size=batch_size` added to `fn.{path}`", fixed=True)
        return cstutil.add_kwarg(updated, "batch_size", cst.Name("batch_size"))

    def _outside_pipeline(self, original: cst.Call, updated: cst.Call, path: str, info) -> cst.BaseExpression:
        """The op called outside a pipeline function: in a helper of a migrated pipeline, given the
        helper's ``batch_size`` parameter; else reported, where the code is migrated."""
        if self.ctx.model.by_hand():
            return updated  # a graph built by hand stays pipeline-mode code (NDD403)
        if not self.ctx.may_rewrite_dali_calls():
            return updated  # a helper of a pipeline that stays: pipeline-mode code, as it is
        if self._in_helper(original) and self.ctx.applies(self.code, original):
            self.ctx.report(
                self.code,
                original,
                f"`batch_size=batch_size` added to `fn.{path}` (a parameter of the helper)",
                fixed=True,
            )
            return cstutil.add_kwarg(updated, "batch_size", cst.Name("batch_size"))
        self.ctx.report(
            self.code,
            original,
            f"`fn.{path}` has no batch input: in dynamic mode it returns one sample unless given `batch_size=`",
            hint=f"pass `batch_size=` (the pipeline's batch size) to `ndd.{info.ndd}(...)`",
            fixed=False,
        )
        return updated


def _needs_batch_size(call: cst.Call, info) -> bool:
    """Is ``call`` an op (not a reader) that takes ``batch_size=`` and is given no input (nothing by
    position or with a star) and no ``batch_size=``?"""
    if info is None or info.ndd is None or info.reader or not info.batch_size_arg:
        return False
    return not (cstutil.positional_count(call) or cstutil.has_star(call) or cstutil.kwarg(call, "batch_size"))
