"""NDD509 bool-of-batch: ``if batch:`` / ``not tensor`` on ndd data is always true / false."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.flow_rule import FlowRule
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.values.ndd_flow import Flow, is_data

RULE = Rule(
    code="NDD509",
    name="bool-of-batch",
    summary="the truth value of an ndd `Batch` or `Tensor` is always `True`",
    what=(
        "Finds an ndd `Batch` or `Tensor` used as a condition: `if x:`, `while x:`, `assert x`, "
        "`a if x else b`, `not x`, and operands of `and`/`or`."
    ),
    why=(
        "`bool(Batch)` and `bool(Tensor)` are always `True`, whatever the data (DALI 2.4.0: a batch of "
        "negative numbers, a zero tensor): the condition never tests the data. This is the trap of copying a "
        "pipeline written with `enable_conditionals=True`."
    ),
    fix_safety=FixSafety.MANUAL,
    fix=(
        "Manual: for a scalar, test its value (`x.item()` on a `Tensor`, `np.asarray(...)`); for per-sample "
        "conditions, select the samples (see the dynamic-mode notes on conditionals)."
    ),
    examples=(
        Example(
            before=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "flip = ndd.random.coin_flip(probability=0.3)\n"
                "if flip:\n"
                "    print('flipped')\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "flip = ndd.random.coin_flip(probability=0.3)\n"
                "# TODO(ndd-migrate): NDD509 test a value (`.item()`, `np.asarray(...)`) or select samples per sample\n"
                "if flip:\n"
                "    print('flipped')\n"
            ),
        ),
        Example(  # a helper whose `fn.*` calls the migration rewrites: reported in the same run
            before=(
                "import nvidia.dali.fn as fn\n\n\n"
                "def maybe_flip(images):\n"
                "    flip = fn.random.coin_flip(batch_size=8)\n"
                "    if flip:\n"
                "        images = fn.flip(images)\n"
                "    return images\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def maybe_flip(images):\n"
                "    flip = ndd.random.coin_flip(batch_size=8)\n"
                "    # TODO(ndd-migrate): NDD509 test a value (`.item()`, `np.asarray(...)`) or select samples per sample\n"
                "    if flip:\n"
                "        images = ndd.flip(images)\n"
                "    return images\n"
            ),
        ),
    ),
    valid=(
        (
            "import nvidia.dali.experimental.dynamic as ndd\n\n"
            "flip = ndd.random.coin_flip(probability=0.3)\nif flip.item():\n    print('flipped')\n"
        ),
        "import nvidia.dali.experimental.dynamic as ndd\n\nreader = ndd.readers.File(file_root='/d')\nif reader:\n    pass\n",
        "import nvidia.dali.experimental.dynamic as ndd\n\n\ndef f(flip=None):\n    if flip:\n        pass\n",
    ),
)

_HINT = "test a value (`.item()`, `np.asarray(...)`) or select samples per sample"


class Impl(FlowRule):
    rule = RULE

    def visit_Module(self, node: cst.Module) -> None:
        super().visit_Module(node)
        self.rewritten = Flow(self.ctx, node, dali_as_ndd=True)

    def _check(self, expr: cst.BaseExpression) -> None:
        kind = self.flow.kind(expr)
        if not is_data(kind) and self._dali_calls_become_ndd():
            kind = self.rewritten.kind(expr)  # `x = fn.op(...)`, `if x:` in a helper: `x` is ndd data after this run
        if is_data(kind):
            self.ctx.report(
                self.code, expr, f"the truth value of an ndd {kind.value} is always True", hint=_HINT, fixed=False
            )

    def _dali_calls_become_ndd(self) -> bool:
        """Outside pipeline functions (whose conditionals NDD423 rewrites or blocks), where this run
        turns ``fn.*`` calls into ``ndd.*`` calls: a condition on their results is reported now, not
        only by the next run over what this one wrote."""
        return self.ctx.enclosing_pipeline() is None and self.ctx.may_rewrite_dali_calls()

    def visit_If(self, node: cst.If) -> None:
        self._check(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._check(node.test)

    def visit_Assert(self, node: cst.Assert) -> None:
        self._check(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._check(node.test)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Not):
            self._check(node.expression)

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self._check(node.left)
        self._check(node.right)
