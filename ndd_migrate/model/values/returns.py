"""Where a pipeline function returns: at its end, or at the end of ``if``/``else`` branches.

A pipeline function runs once, to define the graph; the migrated generator runs its body once per
batch. A ``return`` at the end of a branch (``if not training: return images, labels``) becomes
``yield images, labels`` followed by ``continue`` (the next batch), or by nothing when the branch
ends the function (docs/target-shape.md, "Returns in branches"). A ``return`` anywhere else (inside
a loop, a ``with``, a ``try``, followed by more statements in its block) is reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from ndd_migrate.syntax import tree
from ndd_migrate.syntax.cstutil import SkipsTrivia


@dataclass
class Returns:
    """``branch``: every ``return`` of the function that ends an ``if``/``elif``/``else`` branch,
    with True when nothing runs after it (the branch ends the function), in source order;
    ``final``: the ``return`` that is the function's last statement, if any; ``ends``: every path
    ends with a ``return <value>``; ``problems``: ``(node, why)`` for the others."""

    branch: dict[cst.Return, bool] = field(default_factory=dict)
    final: cst.Return | None = None
    ends: bool = False
    problems: list[tuple[cst.CSTNode, str]] = field(default_factory=list)

    @property
    def all(self) -> list[cst.Return]:
        return [*self.branch, *([self.final] if self.final is not None else [])]


def read(function: cst.FunctionDef) -> Returns:
    found = Returns()
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    found.ends = _block(found, list(body), tail=True, top=True)
    return found


def _block(found: Returns, stmts: list, tail: bool, top: bool = False) -> bool:
    """Reads a block; True when it ends with a return on every path."""
    for index, stmt in enumerate(stmts):
        last = index == len(stmts) - 1
        if isinstance(stmt, cst.SimpleStatementLine):
            for position, small in enumerate(stmt.body):
                if not isinstance(small, cst.Return):
                    continue
                if not (last and position == len(stmt.body) - 1):
                    found.problems.append((small, "a `return` followed by more statements in its block"))
                elif small.value is None:
                    found.problems.append((small, "a `return` without outputs"))
                elif top:
                    found.final = small
                else:
                    found.branch[small] = tail
            if last:
                return isinstance(stmt.body[-1], cst.Return) and stmt.body[-1].value is not None
        elif isinstance(stmt, cst.If):
            ends = _if(found, stmt, tail and last)
            if last:
                return ends
        else:
            finder = _ReturnsIn()
            tree.visit(stmt, finder)
            kind = _KINDS.get(type(stmt), "a compound statement")
            found.problems.extend((ret, f"a `return` inside {kind}") for ret in finder.found)
    return False


def _if(found: Returns, node: cst.If, tail: bool) -> bool:
    ends = _block(found, statements(node.body), tail)
    orelse = node.orelse
    if isinstance(orelse, cst.If):
        return _if(found, orelse, tail) and ends
    if isinstance(orelse, cst.Else):
        return _block(found, statements(orelse.body), tail) and ends
    return False


def statements(suite: cst.BaseSuite) -> list:
    """The statements of a block; ``if x: return a, b`` on one line is one statement line."""
    if isinstance(suite, cst.SimpleStatementSuite):
        return [cst.SimpleStatementLine(body=suite.body, trailing_whitespace=suite.trailing_whitespace)]
    return list(suite.body)


_KINDS = {
    cst.For: "a `for` loop",
    cst.While: "a `while` loop",
    cst.With: "a `with` block",
    cst.Try: "a `try` statement",
    cst.TryStar: "a `try` statement",
    cst.Match: "a `match` statement",
}


class _ReturnsIn(SkipsTrivia, cst.CSTVisitor):
    """The ``return`` statements of the function itself (not of nested functions or classes)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[cst.Return] = []

    def visit_Return(self, node: cst.Return) -> None:
        self.found.append(node)

    def visit_FunctionDef(self, node) -> bool:
        return False

    def visit_ClassDef(self, node) -> bool:
        return False

    def visit_Lambda(self, node) -> bool:
        return False


def contains_return(node: cst.CSTNode) -> bool:
    finder = _ReturnsIn()
    tree.visit(node, finder)
    return bool(finder.found)
