"""A node's children, a pre-order walk over them, and a read-only visit, without libcst's cost.

``CSTNode.children`` collects them by running ``_visit_and_replace_children`` with a visitor,
which rebuilds every node it passes (libcst's own comment calls it slow); the analysis asks for
children tens of thousands of times per file. :func:`children` reads the node's fields instead,
in the order that method visits them — read once per node class from its source — so the result
is what ``children`` gives, in the same lexical order (``tests/test_tree.py`` compares the two on
every node of real files). :func:`visit` runs a read-only visitor over them: libcst's ``visit``
rebuilds every node it passes, for a visitor too."""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
from collections.abc import Callable, Iterator

import libcst as cst
from libcst.metadata import MetadataWrapper

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


#: Per type of a field's value: is it a node (:data:`_NODE`), a sequence of nodes
#: (:data:`_SEQUENCE`) or neither? ``isinstance(value, cst.CSTNode)`` goes through the ABC
#: machinery (``CSTNode`` is abstract), which was most of the time spent here.
_KINDS: dict[type, int] = {}
_NODE, _SEQUENCE = 1, 2


def _kind(cls: type) -> int:
    kind = _KINDS.get(cls)
    if kind is None:
        kind = _KINDS[cls] = (
            _NODE if issubclass(cls, cst.CSTNode) else _SEQUENCE if issubclass(cls, (tuple, list)) else 0
        )
    return kind


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """``node.children``, in the same order, without rebuilding anything."""
    order = _ORDER.get(type(node))
    if order is None:
        order = _ORDER[type(node)] = _field_order(type(node))
    found = []
    for name in order:
        value = getattr(node, name)
        kind = _kind(type(value))
        if kind == _NODE:
            found.append(value)
        elif kind == _SEQUENCE:
            found.extend(item for item in value if _kind(type(item)) == _NODE)
    return found


def visit(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """``node.visit(visitor)`` for a read-only visitor, without rebuilding the tree.

    libcst's ``visit`` builds a new copy of every node it passes, even for a ``CSTVisitor``, which
    sees the original nodes and drops the copy: for the analysis that was a sixth of the time
    spent on a DALI file. This calls the same hooks on the same nodes in the same order
    (``on_visit``; the children, in :func:`children`'s order, when it returns true; ``on_leave``).
    Per-field hooks (``visit_Call_func``) are not called: a visitor that has any, and a
    transformer, go through libcst's own ``visit``."""
    if not _plain(type(visitor)):
        node.visit(visitor)
        return
    _visit(node, visitor.on_visit, visitor.on_leave)


def visit_wrapped(wrapper: MetadataWrapper, visitor: cst.CSTVisitor) -> None:
    """``wrapper.visit(visitor)`` as :func:`visit` does it: the visitor's metadata resolved from
    ``wrapper``, then its module visited."""
    with visitor.resolve(wrapper):
        visit(wrapper.module, visitor)


def _visit(node: cst.CSTNode, on_visit, on_leave) -> None:
    if on_visit(node):
        for child in children(node):
            _visit(child, on_visit, on_leave)
    on_leave(node)


@functools.cache
def _plain(cls: type) -> bool:
    """Is ``cls`` a ``CSTVisitor`` whose per-field hooks do nothing? libcst's visitor defines every
    ``visit_<Node>_<field>`` as a stub that does nothing, and ``on_visit_attribute`` to call them:
    a class that defines none of its own, nor another ``on_visit_attribute`` that does something,
    has none."""
    if not issubclass(cls, cst.CSTVisitor):
        return False
    if any(_is_field_hook(name) and getattr(cls, name) is not getattr(cst.CSTVisitor, name, None) for name in dir(cls)):
        return False
    return all(
        getattr(cls, hook) is getattr(cst.CSTVisitor, hook) or _does_nothing(getattr(cls, hook))
        for hook in ("on_visit_attribute", "on_leave_attribute")
    )


def _is_field_hook(name: str) -> bool:
    """``visit_Call_func``, ``leave_ClassDef_bases``: a hook's name with a field after the node's."""
    kind, _, rest = name.partition("_")
    return kind in ("visit", "leave") and "_" in rest.strip("_") and rest[:1].isupper()


def _does_nothing(function) -> bool:
    """Is ``function``'s body only a docstring and ``pass`` (the per-field hooks
    ``cstutil.SkipsTrivia`` turns off)? Not when its source cannot be read (then libcst visits)."""
    try:
        body = ast.parse(textwrap.dedent(inspect.getsource(function))).body[0].body
    except (OSError, TypeError, SyntaxError, IndexError, AttributeError):
        return False
    return all(isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)) for s in body)


def walk(node: cst.CSTNode, enter: Callable[[cst.CSTNode], bool] | None = None) -> Iterator[cst.CSTNode]:
    """``node`` and every node under it, in source order; below a node only when ``enter(node)``
    (every node is entered when ``enter`` is None; ``node`` itself always is)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if current is node or enter is None or enter(current):
            stack.extend(reversed(children(current)))
