"""Which classes of its module a name's value is an instance of, when the module shows it.

NDD008 keeps a pipeline made only outside the module when code of the module calls pipeline-only
API (``x.epoch_size("Reader")``) on a value it does not know: the pipeline may be given there. A
name bound only by calls of classes the module defines (``train_pipe = SRGANLoaderPipe(...)``)
holds an instance of one of them; when none of them is the pipeline's class or derives from it,
and nothing lets a call of them give something else (``__new__``, a metaclass, a base from
elsewhere that is not DALI's), that value is not the pipeline, wherever the pipeline is made."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst


def instantiated(name: cst.Name, scope, parents: dict, classes: dict[str, cst.ClassDef]) -> list[cst.ClassDef] | None:
    """The classes of ``classes`` (the module's top-level classes, by name) whose calls are every
    binding of ``name`` visible in ``scope`` (``name = C(...)``); None when a binding is anything
    else, or a class name may be bound to something else where it is called."""
    if scope is None or name.value not in scope:
        return None
    found = []
    for assignment in scope[name.value]:
        target = parents.get(getattr(assignment, "node", None))
        assign = parents.get(target)
        if not (
            isinstance(target, cst.AssignTarget)
            and target.target is assignment.node
            and isinstance(assign, cst.Assign)
            and len(assign.targets) == 1
            and isinstance(assign.value, cst.Call)
            and isinstance(assign.value.func, cst.Name)
        ):
            return None
        cls = classes.get(assign.value.func.value)
        if cls is None or not _only_the_class(scope, assign.value.func.value, cls):
            return None
        found.append(cls)
    return found or None


def _only_the_class(scope, name: str, cls: cst.ClassDef) -> bool:
    """Is the class definition ``cls`` the one binding of ``name`` seen from ``scope``?"""
    return name in scope and all(getattr(a, "node", None) is cls for a in scope[name])


def may_be(cls: cst.ClassDef, target: str | None, classes: dict[str, cst.ClassDef], dali_base: Callable) -> bool:
    """Can a call of ``cls`` give an instance of the class named ``target`` (None: a pipeline function's
    generator)? False only when ``cls`` and its bases are classes of ``classes`` or DALI's
    (``dali_base(expr)``) or ``object``, none is ``target``, and none defines ``__new__`` or names a
    metaclass."""
    seen: set[str] = set()
    todo = [cls]
    while todo:
        current = todo.pop()
        if current.name.value == target or current.keywords or _defines_new(current):
            return True
        seen.add(current.name.value)
        for base in current.bases:
            value = base.value
            if isinstance(value, cst.Name) and value.value in classes:
                if value.value not in seen:
                    todo.append(classes[value.value])
            elif not (isinstance(value, cst.Name) and value.value == "object") and not dali_base(value):
                return True
    return False


def _defines_new(cls: cst.ClassDef) -> bool:
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    return any(isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__new__" for stmt in body) or any(
        isinstance(small, cst.Assign) and any(getattr(t.target, "value", None) == "__new__" for t in small.targets)
        for stmt in body
        if isinstance(stmt, cst.SimpleStatementLine)
        for small in stmt.body
    )
