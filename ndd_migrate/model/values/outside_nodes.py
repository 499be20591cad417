"""Graph nodes a pipeline function takes from outside it: ``files = fn.readers.file(...)`` in the
enclosing function (or the module), read in the body (``jpegs, labels = files``).

Pipeline mode lets an operator be called outside any pipeline: the node joins the graph that uses
it, when that graph is built. Dynamic mode has no such node: the rewritten call outside the
function is an operator object (a reader) or a batch computed once, where it is made, and the
generator would unpack or use that instead of each batch's values. Such a pipeline stays."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ndd_migrate.syntax import tree
from ndd_migrate.syntax.cstutil import ReadsValues, SkipsTrivia

_TARGET_PARTS = (cst.Element, cst.StarredElement, cst.Tuple, cst.List)


def made_outside(
    function: cst.FunctionDef, scope_of: Callable, parents: dict, is_op_call: Callable[[cst.Call], bool]
) -> tuple[cst.Name, cst.Call] | None:
    """The first name ``function``'s body reads that a scope outside it binds to an operator's
    output, with that operator call; None when there is none."""
    own = scope_of(function.body)
    reads = _Reads()
    tree.visit(function.body, reads)
    for name in reads.names:
        found = [
            _op_output(_assigned_value(a.node, parents), scope_of, parents, is_op_call, depth=3)
            for a in _bindings(name, scope_of)
            if a.scope is not own
        ]
        found = [call for call in found if call is not None]
        if found:  # the same one in every run (the bindings are a set)
            return name, min(found, key=lambda call: cst.Module([]).code_for_node(call))
    return None


def _bindings(name: cst.Name, scope_of: Callable) -> list:
    """The assignments of ``name`` seen where it is read (not imports, parameters, functions)."""
    scope = scope_of(name)
    if scope is None or name.value not in scope:
        return []
    return [a for a in scope[name.value] if getattr(a, "node", None) is not None]


def _op_output(value, scope_of: Callable, parents: dict, is_op_call: Callable, depth: int) -> cst.Call | None:
    """The operator call whose output ``value`` holds: the call itself, an item of it, a tuple or
    list holding one, or a name bound to one (``depth`` names deep); None when not known."""
    if isinstance(value, cst.Call):
        return value if is_op_call(value) else None
    if isinstance(value, cst.Subscript):
        return _op_output(value.value, scope_of, parents, is_op_call, depth)
    if isinstance(value, (cst.Tuple, cst.List)):
        found = (_op_output(e.value, scope_of, parents, is_op_call, depth) for e in value.elements)
        return next((call for call in found if call is not None), None)  # in source order
    if isinstance(value, cst.Name) and depth > 0:
        found = [
            _op_output(_assigned_value(a.node, parents), scope_of, parents, is_op_call, depth - 1)
            for a in _bindings(value, scope_of)
        ]
        found = [call for call in found if call is not None]
        return min(found, key=lambda call: cst.Module([]).code_for_node(call)) if found else None
    return None


def _assigned_value(target: cst.CSTNode, parents: dict) -> cst.BaseExpression | None:
    """The value assigned to ``target`` (a name, or one inside a tuple or list target), or None."""
    node = parents.get(target)
    while isinstance(node, _TARGET_PARTS):
        node = parents.get(node)
    assign = parents.get(node) if isinstance(node, cst.AssignTarget) else None
    return assign.value if isinstance(assign, cst.Assign) else None


class _Reads(ReadsValues, SkipsTrivia, cst.CSTVisitor):
    """The names an expression or block reads (not attribute names or keywords)."""

    def __init__(self) -> None:
        self.names: list[cst.Name] = []

    def visit_Name(self, node: cst.Name) -> None:
        self.names.append(node)
