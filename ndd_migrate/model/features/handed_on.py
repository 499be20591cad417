"""A DALI iterator handed to a function or class of its module: can the callee take one epoch's
generator (``f(next(loader))``) where it took the iterator? NDD411 asks before it converts the
pipeline; a callee that resets the iterator, asks its length or attributes, or keeps it for a
later epoch keeps the pipeline in pipeline mode (the migration plan, ndd_migrate.plan.uses)."""

from __future__ import annotations

import builtins

import libcst as cst

from ndd_migrate.syntax import cstutil, tree

#: The builtins that take one pass over what they are given (``enumerate(loader)``): over one epoch's
#: generator as over the DALI iterator. Another builtin reads the object itself (``type(loader)``,
#: ``isinstance(loader, ...)``, ``print(loader)``), which a generator is not.
_ONE_PASS_BUILTINS = frozenset(
    {
        "list",
        "tuple",
        "set",
        "frozenset",
        "sorted",
        "enumerate",
        "zip",
        "map",
        "filter",
        "sum",
        "min",
        "max",
        "any",
        "all",
    }
)
_BUILTINS = frozenset(dir(builtins))


def passed_on_misuse(parents: dict, call: cst.Call, arg: cst.Arg) -> str | None:
    """Why handing a DALI iterator to ``call`` as ``arg`` cannot become handing it one epoch
    (``f(next(loader))``), or None.

    ``len()``, ``next()`` and ``iter()`` mean something else of an epoch's generator. A function or
    class of this module is read: its parameter may only be looped over or passed on, as one pass
    over one epoch; a ``.reset()`` or any other attribute fails on a generator, and an iterator kept
    in ``self`` is iterated again in a later epoch, where one epoch's generator is empty. A callee
    from elsewhere (an imported function, a method, ``tqdm``) is not read: it may ask the length, reset,
    or keep the iterator for later epochs, so it is not handed one epoch either (the support module's
    iterator, which keeps that interface, is handed to it instead: NDD411). Only the builtins that
    take one pass (``enumerate``, ``zip``, ...) are."""
    func = call.func
    if isinstance(func, cst.Name) and func.value in ("len", "next", "iter"):
        return f"`{func.value}()` of the iterator has no counterpart on the epoch generator"
    callee = _module_definition(parents, call, func)
    if callee is None:
        if _reads_itself(func):
            return f"`{func.value}()` reads the iterator itself, not one pass over it"
        if not (isinstance(func, cst.Name) and func.value in _ONE_PASS_BUILTINS):
            return f"it is handed to `{cstutil.snippet(func)}`, which the migration does not read"
        return None
    param = _parameter_of(callee, call, arg)
    if param is None:
        return f"it is handed to `{callee.name.value}`, whose parameter for it is not plain"
    why = _parameter_misuse(*param)
    return f"it is handed to `{callee.name.value}`, which {why}" if why else None


def _reads_itself(func: cst.BaseExpression) -> bool:
    """Is ``func`` a builtin that reads the iterator itself (``type()``, ``isinstance()``,
    ``len()``), not one pass over it? (A module's own function of a builtin's name is found first.)"""
    return isinstance(func, cst.Name) and func.value in _BUILTINS and func.value not in _ONE_PASS_BUILTINS


def _module_definition(parents: dict, call: cst.Call, func: cst.BaseExpression):
    """The module-level function or class ``func`` names, or None."""
    if not isinstance(func, cst.Name):
        return None
    module = call
    while parents.get(module) is not None:
        module = parents[module]
    if not isinstance(module, cst.Module):
        return None
    found = [s for s in module.body if isinstance(s, (cst.FunctionDef, cst.ClassDef)) and s.name.value == func.value]
    return found[-1] if len(found) == 1 else None


def _called_function(callee) -> tuple[cst.FunctionDef, list[str]] | None:
    """The function a call of ``callee`` runs (a class: its ``__init__``) and the parameters the
    call's positional arguments bind (a class's without ``self``)."""
    if not isinstance(callee, cst.ClassDef):
        return callee, [p.name.value for p in (*callee.params.posonly_params, *callee.params.params)]
    init = next((s for s in callee.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)
    if init is None:
        return None
    return init, [p.name.value for p in (*init.params.posonly_params, *init.params.params)][1:]


def _parameter_of(callee, call: cst.Call, arg: cst.Arg) -> tuple[cst.FunctionDef, str] | None:
    """(the function, the parameter's name) that ``arg`` of ``call`` binds in ``callee`` (a class:
    its ``__init__``)."""
    found = _called_function(callee)
    if found is None:
        return None
    function, params = found
    if arg.star:
        return None
    if arg.keyword is not None:
        names = params + [p.name.value for p in function.params.kwonly_params]
        return (function, arg.keyword.value) if arg.keyword.value in names else None
    positional = [a for a in call.args if a.keyword is None]
    index = next((i for i, a in enumerate(positional) if a is arg), None)
    if index is None or index >= len(params) or any(a.star for a in positional[: index + 1]):
        return None
    return (function, params[index])


def _parameter_misuse(function: cst.FunctionDef, name: str) -> str | None:
    """What ``function`` does to its parameter ``name`` that an epoch's generator cannot take."""
    finder = _ReadsOf(name)
    tree.visit(function.body, finder)
    for node, parent, grand in finder.reads:
        if isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is node:
            continue
        if isinstance(parent, cst.Arg) and isinstance(grand, cst.Call):
            inner = grand.func
            if _reads_itself(inner) and inner.value != "iter":  # `iter()`: the one pass
                return f"calls `{inner.value}()` on it"
            continue  # passed on: taken as one pass, as at the first call
        if isinstance(parent, cst.Attribute) and parent.value is node:
            return f"uses `.{parent.attr.value}` of it"
        if isinstance(parent, (cst.Assign, cst.AnnAssign)):
            return "keeps it (`self.…`) for later: one epoch's generator is empty when iterated again"
        return f"uses it in a `{type(parent).__name__}`"
    return None


class _ReadsOf(cst.CSTVisitor):
    """Each read of a name in a function body (not in functions nested in it), with its parent and
    grandparent."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.stack: list[cst.CSTNode] = []
        self.reads: list[tuple] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return False
        if isinstance(node, cst.Name) and node.value == self.name and self.stack:
            parent = self.stack[-1]
            if not (isinstance(parent, cst.Attribute) and parent.attr is node) and not (
                isinstance(parent, cst.Arg) and parent.keyword is node
            ):
                self.reads.append((node, parent, self.stack[-2] if len(self.stack) > 1 else None))
        self.stack.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()
