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


class _Hooks(cst.CSTVisitor):
    """Records every hook call, and skips the children of function definitions (``visit_*``
    returning False): the read-only visit must call the same hooks, on the same nodes, in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.calls.append(("visit", id(node)))
        return not isinstance(node, cst.FunctionDef)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.calls.append(("leave", id(original_node)))


@pytest.mark.parametrize("path", FILES[::7], ids=lambda p: str(p.relative_to(ROOT)))
def test_visit_calls_the_hooks_libcst_calls(path):
    module = cst.parse_module(path.read_text(encoding="utf-8"))
    by_libcst, ours = _Hooks(), _Hooks()
    module.visit(by_libcst)
    tree.visit(module, ours)
    assert ours.calls == by_libcst.calls


class _FieldHook(cst.CSTVisitor):
    def __init__(self) -> None:
        self.funcs: list[str] = []

    def visit_Call_func(self, node: cst.Call) -> None:
        self.funcs.append(cst.Module([]).code_for_node(node.func))


def test_a_visitor_with_field_hooks_gets_them():
    """A per-field hook is libcst's to call: such a visitor goes through libcst's own visit."""
    found = _FieldHook()
    tree.visit(cst.parse_module("f(g(1))\n"), found)
    assert found.funcs == ["f", "g"]


def test_which_visitors_are_plain():
    from ndd_migrate.engine.dispatch import Dispatcher
    from ndd_migrate.model.analysis import Analyzer
    from ndd_migrate.syntax.scopes import _ScopeVisitor

    assert tree._plain(Analyzer) and tree._plain(_Hooks)
    # field hooks of its own, libcst's scope visitor's on a class's bases, a transformer
    assert not tree._plain(_FieldHook) and not tree._plain(_ScopeVisitor) and not tree._plain(Dispatcher)


def test_a_visitor_whose_hooks_cannot_be_read_goes_through_libcst():
    """A visitor class made where its source is not on disk (``exec``): ``_plain`` cannot tell that
    its per-field hook does nothing, so the visit is libcst's, and it still works."""
    namespace: dict = {"cst": cst}
    exec(
        "class Made(cst.CSTVisitor):\n"
        "    def __init__(self):\n        self.names = []\n"
        "    def on_visit_attribute(self, node, attribute):\n        pass\n"
        "    def visit_Name(self, node):\n        self.names.append(node.value)\n",
        namespace,
    )
    made = namespace["Made"]()
    assert not tree._plain(type(made))
    tree.visit(cst.parse_module("a = b\n"), made)
    assert made.names == ["a", "b"]
