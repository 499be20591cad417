"""A node's children and a pre-order walk over them, without libcst's cost.

``CSTNode.children`` collects them by running ``_visit_and_replace_children`` with a visitor,
which rebuilds every node it passes (libcst's own comment calls it slow); the analysis asks for
children tens of thousands of times per file. :func:`children` reads the node's fields instead,
in the order that method visits them — read once per node class from its source — so the result
is what ``children`` gives, in the same lexical order (``tests/test_tree.py`` compares the two on
every node of real files)."""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Iterator

import libcst as cst

_ORDER: dict[type, tuple[str, ...]] = {}


def _field_order(cls: type) -> tuple[str, ...]:
    """The fields ``cls._visit_and_replace_children`` visits, in its order: each ``visit_*(self,
    "field", ...)`` call names the field it visits."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls._visit_and_replace_children)))
    seen: dict[str, None] = {}
    for node in _in_order(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id.startswith("visit_")
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            seen.setdefault(node.args[1].value)
    return tuple(seen)


def _in_order(node: ast.AST) -> Iterator[ast.AST]:
    """``node`` and its descendants in source order (``ast.walk`` is breadth-first)."""
    yield node
    for child in ast.iter_child_nodes(node):
        yield from _in_order(child)


def children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node.children``, in the same order, without rebuilding anything."""
    order = _ORDER.get(type(node))
    if order is None:
        order = _ORDER[type(node)] = _field_order(type(node))
    for name in order:
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            yield value
        elif isinstance(value, (tuple, list)):
            for item in value:
                if isinstance(item, cst.CSTNode):
                    yield item


def walk(node: cst.CSTNode, enter: Callable[[cst.CSTNode], bool] | None = None) -> Iterator[cst.CSTNode]:
    """``node`` and every node under it, in source order; below a node only when ``enter(node)``
    (every node is entered when ``enter`` is None; ``node`` itself always is)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if current is node or enter is None or enter(current):
            stack.extend(reversed(list(children(current))))
