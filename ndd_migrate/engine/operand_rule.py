"""The base of the rules that rewrite an operand of arithmetic where it is (NDD111, NDD517): the
operands of binary operations, comparisons, augmented assignments and positional call arguments
(an ``ndd.math`` function's inputs), each handed to :meth:`OperandRule.operand`."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.engine.rule_base import RuleImpl


class OperandRule(RuleImpl):
    """Hooks that pass each operand (original, updated) through :meth:`operand`."""

    def operand(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
        return updated

    def leave_BinaryOperation(self, original, updated):
        if not isinstance(updated, cst.BinaryOperation):
            return updated
        return updated.with_changes(
            left=self.operand(original.left, updated.left), right=self.operand(original.right, updated.right)
        )

    def leave_Comparison(self, original, updated):
        if not isinstance(updated, cst.Comparison) or len(updated.comparisons) != len(original.comparisons):
            return updated
        return updated.with_changes(
            left=self.operand(original.left, updated.left),
            comparisons=[
                new.with_changes(comparator=self.operand(old.comparator, new.comparator))
                for old, new in zip(original.comparisons, updated.comparisons)
            ],
        )

    def leave_AugAssign(self, original, updated):
        if not isinstance(updated, cst.AugAssign):
            return updated
        return updated.with_changes(value=self.operand(original.value, updated.value))

    def leave_Arg(self, original, updated):
        if not isinstance(updated, cst.Arg) or updated.keyword is not None:
            return updated
        return updated.with_changes(value=self.operand(original.value, updated.value))
