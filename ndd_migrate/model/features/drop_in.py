"""Where the support module's ``DALIGenericIterator``, ``DALIClassificationIterator`` and
``DALIJaxGenericIterator`` can stand in for DALI's: the iterator's reads in the module, and DALI's
class read only by calls.

A DALI PyTorch iterator whose uses a generator of epochs cannot take (returned, kept by a wrapper,
``len()``, ``.size``), and JAX's iterator always, keep DALI's interface through the support
module's class (ndd_migrate/support/template/ndd_support.py); an attribute that class lacks keeps
the pipeline."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ndd_migrate.model.features.iterators import REWRITTEN, SUPPORT_CLASSES

#: What the support module's iterators offer of DALI's, beyond iterating them.
ATTRIBUTES = frozenset(
    {"reset", "next", "size", "_size", "batch_size", "output_map", "__iter__", "__next__", "__len__"}
)


def blocker(model, scope_of: Callable, call: cst.Call, where: Callable, dali_name: Callable) -> str | None:
    """Why the support module's iterator cannot stand in for the DALI iterator ``call``, or None:
    an attribute of the iterator it does not have (the first in the text, by ``where``), DALI's
    class also used other than by calling it (its import moves to the support module), or one of
    DALI's iterator classes read as a value (``isinstance(loader, pytorch.DALIGenericIterator)``
    is False for the support module's)."""
    parents = model.parents
    for read in sorted(iterator_reads(model, scope_of, call), key=where):
        parent = parents.get(read)
        if isinstance(parent, cst.Attribute) and parent.value is read and parent.attr.value not in ATTRIBUTES:
            return f"`.{parent.attr.value}` of the iterator has no counterpart on the support module's iterator"
    if isinstance(call.func, cst.Name):
        for access in class_reads(scope_of, call.func):
            parent = parents.get(access.node)
            if isinstance(parent, cst.Arg) and isinstance(parents.get(parent), cst.ClassDef):
                continue  # a base: the class keeps it, or takes the support module's (NDD411)
            if not (isinstance(parent, cst.Call) and parent.func is access.node):
                return f"`{call.func.value}` is also used other than by calling it"
    return _class_as_value(model, dali_name)


def _class_as_value(model, dali_name: Callable) -> str | None:
    """Why a read of DALI's iterator class as a value tells the support module's apart, or None:
    a read that is not a call, a base, an annotation or the import itself."""
    parents = model.parents
    for node, parent in parents.items():
        if not isinstance(node, (cst.Name, cst.Attribute)) or dali_name(node) not in REWRITTEN:
            continue
        if isinstance(parent, cst.Attribute) and parent.value is node:
            continue  # `DALIGenericIterator.__init__`: an attribute of the class
        if isinstance(parent, cst.Call) and parent.func is node:
            continue
        if isinstance(parent, (cst.Annotation, cst.ImportAlias)) or _import_part(parents, node):
            continue
        if isinstance(parent, cst.Arg) and isinstance(parents.get(parent), cst.ClassDef):
            continue  # a base: the class keeps it, or takes the support module's (NDD411)
        return f"`{dali_name(node).rsplit('.', 1)[-1]}` is read as a value (the support module's class is another)"
    return None


def _import_part(parents: dict, node: cst.CSTNode) -> bool:
    """Is ``node`` part of the dotted name of an import (``import a.b.c``)?"""
    current = parents.get(node)
    while isinstance(current, cst.Attribute):
        current = parents.get(current)
    return isinstance(current, cst.ImportAlias)


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


def moved_imports(model, scope_of: Callable, dali_name: Callable, converts_as: Callable, rebased: list) -> dict:
    """``{name: class}`` for the names of DALI's iterator classes whose import moves to the support
    module: every call through the name converts (``converts_as(call)``: ``"drop-in"``,
    ``"epochs"`` or None), one at least by the drop-in or as the base of a class in ``rebased``
    (the classes deriving from it that take the support module's), and the name is read nowhere else."""
    by_name: dict[str, list[cst.Call]] = {}
    reads: dict[str, cst.Name] = {}  # a name of DALI's iterator class → one read of it
    for call in model.parents:
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and class_reads(scope_of, call.func):
            if dali_name(call.func) in REWRITTEN:
                by_name.setdefault(call.func.value, []).append(call)
                reads[call.func.value] = call.func
    for sub in rebased:
        reads.setdefault(sub.base_name, sub.node.bases[0].value)
    moved = {}
    bases = {id(sub.node.bases[0].value) for sub in rebased}
    for name, read in reads.items():
        found = [converts_as(c) for c in by_name.get(name, [])]
        used = "drop-in" in found or any(sub.base_name == name for sub in rebased)
        if None not in found and used and _read_only_by(model.parents, scope_of, read, bases):
            moved[name] = SUPPORT_CLASSES[dali_name(read)]
    return moved


def _read_only_by(parents: dict, scope_of: Callable, read: cst.Name, bases: set) -> bool:
    """Is the import ``read`` resolves to read only by calls and as one of ``bases`` (ids of nodes)?"""
    for access in class_reads(scope_of, read):
        parent = parents.get(access.node)
        if not (isinstance(parent, cst.Call) and parent.func is access.node) and id(access.node) not in bases:
            return False
    return True
