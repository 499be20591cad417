"""The base of the NDD5xx rules, which lint hand-written dynamic-mode code: each builds, once per file,
the data flow of :mod:`ndd_migrate.model.values.ndd_flow` and queries it."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.model.values.ndd_flow import Flow, enclosing_loops


class FlowRule(RuleImpl):
    """Base of the NDD5xx rules: builds (once per file) the :class:`Flow` they query."""

    def visit_Module(self, node: cst.Module) -> None:
        self.flow = Flow.attach(self.ctx, node)

    def loops(self) -> list[cst.CSTNode]:
        """``for``/``while`` statements around the node being visited, in the current function."""
        return enclosing_loops(self.ctx.walk.statements)
