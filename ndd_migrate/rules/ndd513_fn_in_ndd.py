"""NDD513 fn-in-ndd: pipeline-mode operators called from dynamic-mode code.

Who reports what, so that no ``fn.*`` call is reported twice: NDD101 owns every ``fn.*`` call it may
rewrite (a converted pipeline, or a module whose pipelines are all converted — including hand-written
ndd code with no pipeline at all); NDD901 owns ``fn.*`` operators with no ndd form. NDD513 owns the
rest: ``ndd.fn.*`` (a name dynamic mode does not have), and ``fn.*`` calls on ndd data in a module
whose pipelines stay, where NDD101 must leave ``fn.*`` alone for the pipelines' helpers.
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate.dali.tables import op_info
from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.flow_rule import FlowRule
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.values.ndd_flow import is_data, ndd_path
from ndd_migrate.syntax import names

RULE = Rule(
    code="NDD513",
    name="fn-in-ndd",
    summary="a pipeline-mode `fn.*` operator called in dynamic-mode code",
    what=(
        "Finds `ndd.fn.<op>(...)` (any ndd alias) and rewrites it to the op's dynamic-mode name; finds "
        "`fn.<op>(...)` given ndd data (a `Batch` or `Tensor`) outside any pipeline function in a module "
        "whose pipelines are not all migrated, and reports it. Other `fn.*` calls are NDD101's (rewritten "
        "or reported there) or NDD901's (no ndd form)."
    ),
    why=(
        "Dynamic mode has no `fn` module: `ndd.fn.flip` is an `AttributeError`. An `fn.*` call outside a "
        "pipeline does not fail where it is written: in DALI 2.4.0 `fn.random.uniform(shape=[2])` quietly "
        "returns a graph `DataNode`, and `fn.flip(batch)` on an ndd batch fails deep inside DALI with "
        "`AttributeError: 'str' object has no attribute 'device_type'`."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "Unsafe: `ndd.fn.<op>` becomes `ndd.<op>` under its current name, but pipeline-only arguments "
        "(`seed=`, `preserve=`) are not translated. `fn.*` calls on ndd data are reported only: the module "
        "still has pipelines that need `fn`, so only a human can tell which calls are dynamic-mode code."
    ),
    examples=(
        Example(
            before=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def augment(images):\n"
                "    return ndd.fn.flip(images, vertical=1)\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def augment(images):\n"
                "    return ndd.flip(images, vertical=1)\n"
            ),
        ),
        Example(
            before=(
                "from nvidia.dali import fn, pipeline_def\n"
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "@pipeline_def\n"
                "def legacy():  # noqa: NDD001 (kept for the old trainer)\n"
                "    return fn.random.uniform(shape=[2])\n\n\n"
                "def fresh():\n"
                "    b = ndd.random.uniform(batch_size=4, shape=[2])\n"
                "    return fn.flip(b)\n"
            ),
            after=(
                "from nvidia.dali import fn, pipeline_def\n"
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "@pipeline_def\n"
                "def legacy():  # noqa: NDD001 (kept for the old trainer)\n"
                "    return fn.random.uniform(shape=[2])\n\n\n"
                "def fresh():\n"
                "    b = ndd.random.uniform(batch_size=4, shape=[2])\n"
                "    # TODO(ndd-migrate): NDD513 use `ndd.flip` on ndd data\n"
                "    return fn.flip(b)\n"
            ),
            title="next to a pipeline that stays",
        ),
    ),
    valid=(
        "import nvidia.dali.experimental.dynamic as ndd\n\nx = ndd.flip(ndd.random.uniform(batch_size=2, shape=[2, 2, 3]))\n",
        # `fn` here is not DALI's
        (
            "import nvidia.dali.experimental.dynamic as ndd\nimport mylib as fn\n\n"
            "b = ndd.random.uniform(batch_size=2, shape=[2])\ny = fn.flip(b)\n"
        ),
    ),
)


class Impl(FlowRule):
    rule = RULE

    def leave_Call(self, original: cst.Call, updated: cst.BaseExpression) -> cst.BaseExpression:
        path = ndd_path(self.ctx, original.func)
        if path is not None and path.startswith("fn."):
            return self._ndd_fn(original, updated, path[3:])
        path = names.fn_path(self.dali_name(original.func))
        info = op_info(path) if path else None
        if info is None or info.ndd is None or self.ctx.may_rewrite_dali_calls():
            return updated  # NDD901's (no ndd form) or NDD101's (rewritten)
        if self.ctx.enclosing_pipeline() is not None or not self._takes_ndd_data(original):
            return updated
        self.ctx.report(
            self.code,
            original,
            f"`fn.{path}` called on ndd data",
            hint=f"use `ndd.{info.ndd}` on ndd data",
            fixed=False,
        )
        return updated

    def _ndd_fn(self, original: cst.Call, updated: cst.BaseExpression, path: str) -> cst.BaseExpression:
        info = op_info(path)
        target = f"ndd.{info.ndd}" if info is not None and info.ndd else None
        fixed = target is not None and self.ctx.applies(self.code, original) and isinstance(updated, cst.Call)
        self.ctx.report(
            self.code,
            original,
            f"dynamic mode has no `fn` module: `ndd.fn.{path}` does not exist",
            hint=f"use `{target}`" if target else f"`fn.{path}` has no dynamic-mode form",
            fixed=fixed,
        )
        return updated.with_changes(func=self.ctx.ndd(info.ndd)) if fixed else updated

    def _takes_ndd_data(self, call: cst.Call) -> bool:
        return any(not a.star and is_data(self.flow.kind(a.value)) for a in call.args)
