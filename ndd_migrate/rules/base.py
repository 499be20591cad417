"""What a rule implementation sees: the per-file :class:`Context`, and the :class:`RuleImpl` base.

A rule implementation is a small class with libcst-style hooks (``visit_Call(node)``,
``leave_Call(original, updated)``). The engine runs every rule's hooks in one traversal, in rule-code
order, threading the updated node from one rule to the next; ``original`` is always the node of the
parsed file, so metadata (qualified names, scopes, positions) and the module model apply to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import libcst as cst

if TYPE_CHECKING:
    from ndd_migrate.catalog import Rule
    from ndd_migrate.context import Context


class RuleImpl:
    """Base of rule implementations; ``rule`` is the catalogue entry the hooks report under."""

    rule: ClassVar["Rule"]

    def __init__(self, ctx: "Context") -> None:
        self.ctx = ctx

    @property
    def code(self) -> str:
        return self.rule.code

    def dali_name(self, node: cst.CSTNode) -> str | None:
        return self.ctx.dali_name(node)
