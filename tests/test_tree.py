"""``syntax.tree`` gives what libcst's ``CSTNode.children`` gives, node for node and in order, on
every node of real files (the project's own code, fixtures and whole programs), and its walk is the
pre-order visit a ``CSTVisitor`` makes."""

from __future__ import annotations

import libcst as cst
import pytest

from ndd_migrate.syntax import tree
from tests.conftest import ROOT

FILES = sorted([*ROOT.glob("ndd_migrate/**/*.py"), *ROOT.glob("fixtures/*/*.py"), *ROOT.glob("tests/programs/*.py")])


class _Order(cst.CSTVisitor):
    def __init__(self) -> None:
        self.seen: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.seen.append(node)
        return True


@pytest.mark.parametrize("path", FILES[::7], ids=lambda p: str(p.relative_to(ROOT)))
def test_children_and_walk_match_libcst(path):
    module = cst.parse_module(path.read_text(encoding="utf-8"))
    order = _Order()
    module.visit(order)
    assert list(tree.walk(module)) == order.seen
    for node in order.seen:
        assert list(tree.children(node)) == list(node.children), type(node).__name__


def test_every_kind_of_node_is_read_in_its_own_order():
    """Nodes whose visit reads a field through a local name (``ImportFrom.names``) or in another
    order than the fields are declared (decorators before a ``def``)."""
    module = cst.parse_module(
        "from . import (a as b, c)\n@deco\nasync def f(x: int = 1, *a, k, **kw) -> int:\n    return [y async for y in x]\n"
    )
    for node in tree.walk(module):
        assert list(tree.children(node)) == list(node.children), type(node).__name__


def test_walk_stops_where_told():
    module = cst.parse_module("def f():\n    g = 1\nh = 2\n")
    names = [
        n.value for n in tree.walk(module, lambda n: not isinstance(n, cst.FunctionDef)) if isinstance(n, cst.Name)
    ]
    assert names == ["h"]
