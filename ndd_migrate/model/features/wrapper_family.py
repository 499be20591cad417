"""Where a wrapper class hands the DALI iterator it keeps: a function of its module given it.

A class wrapping DALI's PyTorch iterator (``self.it = DALIClassificationIterator(pipelines, ...)``,
:func:`ndd_migrate.model.features.iterator_subclasses.wrapping`) may keep the support module's
iterator instead when everything done with ``self.it`` is something both iterators do. DALI's
PyTorch demo, and the projects that copy it, hand it to a worker function run by a thread
(``threading.Thread(target=_preproc_worker, kwargs={"dali_iterator": self._dali_iterator, ...})``),
which only calls ``next()`` and ``reset()`` on it. Such a hand-off is followed here: the function
of the module and its parameter, every read of which must be an iterator's use too."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ndd_migrate.syntax import cstutil, tree


def handed_to(node: cst.CSTNode, ancestors: list[cst.CSTNode]) -> tuple[str, int | str] | None:
    """``(function, position or parameter name)`` where ``node`` (``ancestors``: from the method's
    body down to its parent) is given to a function named in the module: ``f(node)``,
    ``f(p=node)``, or a thread's target, ``Thread(target=f, args=(node,))`` or ``kwargs={"p": node}``;
    None for anything else."""
    parent, grand = _up(ancestors, 1), _up(ancestors, 2)
    if isinstance(parent, cst.Arg) and isinstance(grand, cst.Call) and isinstance(grand.func, cst.Name):
        if parent.star:
            return None
        if parent.keyword is not None:
            return grand.func.value, parent.keyword.value
        return grand.func.value, [a for a in grand.args if a.keyword is None].index(parent)
    if isinstance(parent, cst.DictElement) and isinstance(grand, cst.Dict) and parent.value is node:
        key = parent.key
        target = _thread_target(_up(ancestors, 3), _up(ancestors, 4), "kwargs")
        if target and isinstance(key, cst.SimpleString) and key.evaluated_value.isidentifier():
            return target, key.evaluated_value
    if isinstance(parent, cst.Element) and isinstance(grand, cst.Tuple):
        target = _thread_target(_up(ancestors, 3), _up(ancestors, 4), "args")
        if target:
            return target, [e.value for e in grand.elements].index(node)
    return None


def _up(ancestors: list[cst.CSTNode], n: int) -> cst.CSTNode | None:
    return ancestors[-n] if len(ancestors) >= n else None


def _thread_target(arg, call, keyword: str) -> str | None:
    """The function named by ``target=`` of ``Thread(...)`` (``threading.Thread``) when ``arg`` is its
    ``keyword=`` argument."""
    if not (isinstance(arg, cst.Arg) and arg.keyword is not None and arg.keyword.value == keyword):
        return None
    if not isinstance(call, cst.Call) or cstutil.callee_name(call) != "Thread":
        return None
    target = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "target"), None)
    return target.value if isinstance(target, cst.Name) else None


def handoff_blocker(module: cst.Module, handed: tuple[str, int | str], as_iterator: Callable) -> str | None:
    """Why the function of ``module`` that ``handed`` names may not be given the support module's
    iterator, or None: not a plain function of the module, no such parameter, the parameter bound
    again, or read other than ``as_iterator`` allows."""
    name, where = handed
    function = next(
        (s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == name and not s.decorators),
        None,
    )
    if function is None:
        return f"it is handed to `{name}()`, which is not a function of this module"
    params = function.params
    if isinstance(where, int):
        listed = [*params.posonly_params, *params.params]
        param = listed[where].name.value if where < len(listed) else None
    else:
        every = [*params.posonly_params, *params.params, *params.kwonly_params]
        param = where if any(p.name.value == where for p in every) else None
    if param is None:
        return f"it is handed to `{name}()`, which has no parameter for it"
    reads = _Reads(param, as_iterator)
    tree.visit(function.body, reads)
    return f"`{name}()` {reads.blocker}" if reads.blocker else None


class _Reads(cst.CSTVisitor):
    """The uses of the parameter ``name`` in a function body: the first that is not an iterator's
    (or a binding of the name) kept as ``blocker``."""

    def __init__(self, name: str, as_iterator: Callable) -> None:
        self.name, self.as_iterator = name, as_iterator
        self.blocker: str | None = None
        self._parents: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            self.blocker = self.blocker or f"defines a scope that may read `{self.name}`"
            return False
        if isinstance(node, cst.Name) and node.value == self.name:
            parent, grand = _up(self._parents, 1), _up(self._parents, 2)
            if not self.as_iterator(node, parent, grand):
                self.blocker = self.blocker or f"uses `{self.name}` other than as an iterator"
        self._parents.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self._parents.pop()
