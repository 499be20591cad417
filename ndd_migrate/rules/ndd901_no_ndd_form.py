"""NDD901 no-ndd-form: an operator with no dynamic-mode counterpart."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.codegen import sample_shapes
from ndd_migrate.dali.tables import has_expression_form, op_info
from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model import constructs
from ndd_migrate.syntax import names

RULE = Rule(
    code="NDD901",
    name="no-ndd-form",
    summary="this operator has no dynamic-mode form",
    what=(
        "Reports `fn.*` operators that dynamic mode does not provide (`fn.ssd_random_crop`, "
        "`fn.python_function`, `fn.external_source` outside the cases NDD4xx rewrites, ...) and names the "
        "table generated from DALI's schemas cannot find, and graph constants (`types.Constant(...)`, which "
        "dynamic-mode ops and batches reject) in a pipeline, except a numpy array given as an operator's input, "
        "which NDD101 writes as the array. A pipeline that uses one is not rewritten."
    ),
    why="There is nothing to call: the logic must be rewritten (plain Python on the samples, another op).",
    fix_safety=FixSafety.MANUAL,
    fix="None: a human decides the replacement.",
    examples=(
        Example(
            before=(
                "import nvidia.dali.fn as fn\n\n\n"
                "def crop(images, boxes, labels):\n"
                "    return fn.ssd_random_crop(images, boxes, labels)\n"
            ),
            after=(
                "import nvidia.dali.fn as fn\n\n\n"
                "def crop(images, boxes, labels):\n"
                "    # TODO(ndd-migrate): NDD901 `fn.ssd_random_crop` has no dynamic-mode form: rewrite it "
                "(e.g. `ndd.random_bbox_crop` + `ndd.slice`)\n"
                "    return fn.ssd_random_crop(images, boxes, labels)\n"
            ),
        ),
    ),
)

_ADVICE = {
    "ssd_random_crop": "e.g. `ndd.random_bbox_crop` + `ndd.slice`",
    "python_function": "plain Python on `np.asarray(tensor)` per sample, then `ndd.as_batch(...)`",
    "external_source": "call the source in the loop and wrap with `ndd.as_batch(...)`",
}


class Impl(RuleImpl):
    rule = RULE
    reports = (constructs.NO_DYNAMIC_FORM,)

    def leave_Call(self, original: cst.Call, updated):
        path = names.fn_path(self.dali_name(original.func))
        if path is None or self.ctx.enclosing_pipeline() is not None:
            return updated  # inside a pipeline function the analysis reports it (and blocks the rewrite)
        info = op_info(path)
        if info is not None and info.ndd is not None:
            return updated
        if has_expression_form(path):  # NDD101 writes it as an expression where it may and can
            if self.ctx.may_rewrite_dali_calls() and sample_shapes.problem(original.args) is None:
                return updated
            self.ctx.report(
                self.code,
                original,
                f"`fn.{path}` has no dynamic-mode operator",
                hint="in dynamic mode write `ndd.as_batch(x.shape, dtype=ndd.int64, device=x.device)`",
                fixed=False,
            )
            return updated
        base = path.rsplit(".", 1)[-1]
        self.ctx.report(
            self.code,
            original,
            f"`fn.{path}` has no dynamic-mode form",
            hint=f"`fn.{path}` has no dynamic-mode form: rewrite it ({_ADVICE.get(base, 'see docs/rules.md')})",
            fixed=False,
        )
        return updated
