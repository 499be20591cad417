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
    from ndd_migrate.engine.catalog import Rule
    from ndd_migrate.engine.context import Context
    from ndd_migrate.plan.uses import Use


class RuleImpl:
    """Base of rule implementations; ``rule`` is the catalogue entry the hooks report under."""

    rule: ClassVar[Rule]
    #: The constructs (ndd_migrate.model.constructs) whose blocking problems, recorded by the analysis,
    #: are reported under this rule's code.
    reports: ClassVar[tuple[str, ...]] = ()

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    @property
    def code(self) -> str:
        return self.rule.code

    def dali_name(self, node: cst.CSTNode) -> str | None:
        return self.ctx.dali_name(node)

    # -- the migration plan (ndd_migrate.plan.uses): asked by the engine before anything is rewritten --
    def blockers(self, pipeline) -> list[tuple[cst.CSTNode, str, str]]:
        """``(node, why, what to do)`` for each construct of the pipeline ``fn`` that this rule owns
        and cannot rewrite: the pipeline is then not converted, and each is reported under this
        rule's code where it is."""
        return []

    def converts(self, pipeline) -> bool:
        """Does this rule convert the pipeline ``fn`` itself (and may it, here)?"""
        return False

    def claims(self, use: Use) -> bool | str | None:
        """True when this rule rewrites ``use`` (or marks it with a TODO at the place that would
        fail) should its pipeline be converted; a reason (text) when the construct is this rule's
        but it cannot rewrite it; None when the use is not this rule's business.

        A pipeline is converted only when every use of its values is claimed (or keeps its
        meaning, :func:`ndd_migrate.plan.uses.neutral`): a claim is a promise that the program still
        runs at that place after the rewrite."""
        return None
