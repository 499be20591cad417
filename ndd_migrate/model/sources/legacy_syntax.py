"""What the readers of a legacy ``Pipeline`` subclass's methods share
(:mod:`ndd_migrate.model.sources.legacy_read`): :class:`MethodReader`, which records a problem, and
the shapes they look for: ``self.<attr> = value``, the uses of ``self`` in a method, the names it binds.
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate.model import constructs
from ndd_migrate.model.sources.legacy import LegacyPipeline, self_attr
from ndd_migrate.model.types import Problem
from ndd_migrate.syntax import tree
from ndd_migrate.syntax.cstutil import SkipsTrivia


class MethodReader:
    """Reads a part of a legacy class into its pipeline: what the rewrite cannot carry over
    becomes one of the pipeline's problems."""

    def __init__(self, resolver: cst.MetadataDependent, pipeline: LegacyPipeline) -> None:
        self.resolver = resolver
        self.pipeline = pipeline

    def problem(
        self, node: cst.CSTNode, message: str, about: str = constructs.PIPELINE_SUBCLASS, hint: str = ""
    ) -> None:
        self.pipeline.problems.append(Problem(about, node, message, hint))


class SelfUses(SkipsTrivia, cst.CSTVisitor):
    """``self.<op>(...)`` calls, other ``self.<attr>`` loads, attributes assigned, bare ``self``,
    ``return`` statements and other calls (``fn.*``) of ``define_graph``."""

    def __init__(self) -> None:
        self.calls: list[tuple[cst.Call, str]] = []
        self.attributes: list[tuple[cst.Attribute, str]] = []
        self.assigned: set[str] = set()
        self.bare_self: list[cst.Name] = []
        self.returns: list[cst.Return] = []
        self.fn_calls: list[cst.Call] = []
        self.inputs: dict[int, tuple[cst.Arg, cst.Call]] = {}  # each argument's value → its Arg and call
        self.tests: dict[int, str] = {}  # `if self.x:` ("truth"), `self.x is None` / `is not None` ("none")
        self._handled: set[int] = set()

    def visit_If(self, node: cst.If) -> None:
        if self_attr(node.test) is not None:
            self.tests[id(node.test)] = "truth"

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if (
            self_attr(node.left) is not None
            and len(node.comparisons) == 1
            and isinstance(node.comparisons[0].operator, (cst.Is, cst.IsNot))
            and isinstance(node.comparisons[0].comparator, cst.Name)
            and node.comparisons[0].comparator.value == "None"
        ):
            self.tests[id(node.left)] = "none"

    def visit_Return(self, node: cst.Return) -> None:
        self.returns.append(node)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        for target in flatten_targets(node.target):
            attr = self_attr(target)
            if attr is not None:
                self.assigned.add(attr)
                self._handled.add(id(target))

    def visit_Call(self, node: cst.Call) -> None:
        for arg in node.args:
            self.inputs[id(arg.value)] = (arg, node)
        attr = self_attr(node.func)
        if attr is not None:
            self.calls.append((node, attr))
            self._handled.add(id(node.func))
        else:
            self.fn_calls.append(node)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        attr = self_attr(node)
        if attr is None:
            return True
        if id(node) not in self._handled:
            self.attributes.append((node, attr))
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == "self":
            self.bare_self.append(node)

    def visit_Param(self, node: cst.Param) -> bool:
        return False


def flatten_targets(target: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(target, (cst.Tuple, cst.List)):
        return [t for el in target.elements for t in flatten_targets(el.value)]
    return [target]


def self_assignment(stmt) -> tuple[str | None, cst.BaseExpression | None]:
    value = assigned_value(stmt)
    if value is None:
        return None, None
    return self_attr(stmt.body[0].targets[0].target), value


def assigned_value(stmt) -> cst.BaseExpression | None:
    if (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Assign)
        and len(stmt.body[0].targets) == 1
    ):
        return stmt.body[0].value
    return None


def uses_self(node: cst.CSTNode) -> bool:
    finder = SelfUses()
    tree.visit(node, finder)
    return bool(finder.bare_self or finder.attributes or finder.calls or finder.assigned)


class _Bound(SkipsTrivia, cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.names |= {t.value for t in flatten_targets(node.target) if isinstance(t, cst.Name)}

    def visit_For(self, node: cst.For) -> None:
        self.names |= {t.value for t in flatten_targets(node.target) if isinstance(t, cst.Name)}

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):
            self.names.add(node.target.value)


def bound_names(method: cst.FunctionDef) -> set[str]:
    finder = _Bound()
    tree.visit(method.body, finder)
    return finder.names
