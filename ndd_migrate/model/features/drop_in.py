"""Where the support module's ``DALIGenericIterator`` and ``DALIClassificationIterator`` can stand in
for DALI's: the iterator's reads in the module, and DALI's class read only by calls.

A DALI iterator whose uses a generator of epochs cannot take (returned, kept by a wrapper,
``len()``, ``.size``) keeps DALI's interface through the support module's class of the same name
(ndd_migrate/support/template/ndd_support.py); an attribute that class lacks keeps the pipeline."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

#: What the support module's iterators offer of DALI's, beyond iterating them.
ATTRIBUTES = frozenset(
    {"reset", "next", "size", "_size", "batch_size", "output_map", "__iter__", "__next__", "__len__"}
)


def blocker(model, scope_of: Callable, call: cst.Call, where: Callable) -> str | None:
    """Why the support module's iterator cannot stand in for the DALI iterator ``call``, or None:
    an attribute of the iterator it does not have (the first in the text, by ``where``), or DALI's
    class also used other than by calling it (its import moves to the support module)."""
    parents = model.parents
    for read in sorted(iterator_reads(model, scope_of, call), key=where):
        parent = parents.get(read)
        if isinstance(parent, cst.Attribute) and parent.value is read and parent.attr.value not in ATTRIBUTES:
            return f"`.{parent.attr.value}` of the iterator has no counterpart on the support module's iterator"
    if isinstance(call.func, cst.Name):
        for access in class_reads(scope_of, call.func):
            parent = parents.get(access.node)
            if not (isinstance(parent, cst.Call) and parent.func is access.node):
                return f"`{call.func.value}` is also used other than by calling it"
    return None


def iterator_reads(model, scope_of: Callable, call: cst.Call) -> list:
    """The reads of the iterator ``call`` makes, where it is bound to a name or to a ``self``
    attribute set once (elsewhere it is handed on as a whole)."""
    assign = model.parents.get(call)
    if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1 and assign.value is call):
        return []
    target = assign.targets[0].target
    found = model.attributes.stores.get(target)
    if found is not None:
        return list(found.reads)
    if not isinstance(target, cst.Name):
        return []
    scope = scope_of(assign)
    return [
        access.node
        for assignment in (scope.assignments[target.value] if scope is not None else ())
        for access in assignment.references
    ]


def class_reads(scope_of: Callable, name: cst.Name) -> list:
    """The accesses of the import ``name`` resolves to (DALI's iterator class), or none."""
    scope = scope_of(name)
    if scope is None:
        return []
    return [
        access
        for assignment in scope[name.value]  # as the name resolves there (a module's import)
        if isinstance(getattr(assignment, "node", None), (cst.Import, cst.ImportFrom))
        for access in assignment.references
    ]
