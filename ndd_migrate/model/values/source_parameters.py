"""What a parameter of a pipeline function holds when it is the ``source=`` of its external source:
the kind of source (ndd_migrate.model.values.external_source) every call of the function passes
there, read at the calls of this module (a name followed to its one binding)."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ClassScope

from ndd_migrate.model.values.called_parameters import bound_argument, exported
from ndd_migrate.model.values.external_source import (
    CALLABLE,
    GENERATOR,
    assigned_in,
    classify,
    is_generator,
    named_params,
    param_names,
    positional,
)
from ndd_migrate.syntax.scopes import references


def source_parameter(analyzer, fn_node: cst.FunctionDef, name: str) -> cst.FunctionDef | None:
    """The function whose parameter ``name`` is, read in the pipeline function ``fn_node``: its own,
    or, for a graph built in a factory's body (``def make(source): pipe = Pipeline(...); with
    pipe: fn.external_source(source=source)``), the factory's when ``fn_node`` does not bind it."""
    if name in param_names(fn_node):
        return fn_node
    outer = getattr(analyzer.scope_of(fn_node), "node", None)
    if assigned_in(fn_node, name) or not isinstance(outer, cst.FunctionDef) or name not in param_names(outer):
        return None
    return outer


def passed_source_kind(
    analyzer, fn_node: cst.FunctionDef, module: cst.Module, name: str, none_allowed: bool
) -> tuple[str, int | None] | str:
    """``(kind, positional parameters of a callable)`` (:func:`classify`) of what the parameter
    ``name`` of the pipeline function ``fn_node`` holds at every call, or why it is not known: the
    function's name is used only by calls of this module (not listed in ``__all__``), none with
    ``*``/``**``, each passing (or leaving to its default) a source of the same kind — a name bound
    once, where the call sees it, to a ``def`` with a ``yield`` (not decorated), to an instance of a
    class of the module, a lambda, a list, or to ``a if condition else b`` of such values; None
    too, when ``none_allowed``; the parameter is never assigned in the function."""
    pipe = fn_node.name.value
    lead = (
        f"a parameter is known only when every call of `{pipe}` in this module passes a source of one "
        f"kind the code shows (a generator function, an iterable, a callable){' or None' if none_allowed else ''}"
    )
    param = next(p for p in named_params(fn_node) if p.name.value == name)
    if assigned_in(fn_node, name):
        return f"{lead}, and `{name}` is assigned in `{pipe}`"
    calls = _calls_in_module(analyzer, fn_node)
    if isinstance(calls, str):
        return f"{lead}, and {calls}"
    code = cst.Module([]).code_for_node
    kinds = set()
    for call in calls:
        if any(arg.star for arg in call.args):
            return f"{lead}, and a call passes `*args` or `**kwargs`"
        arg = bound_argument(call, fn_node, param)
        value = arg.value if arg is not None else param.default
        if value is None:
            return f"{lead}, and a call does not pass `{name}`"
        found = _passed_kinds(analyzer, value, fn_node, module, none_allowed, set())
        if found is None or len(found | kinds) > 1:
            shown = code(value)
            shown = f"`{shown}`" if len(shown) <= 40 and "\n" not in shown else "another value"
            return f"{lead}, and a call passes {shown}"
        kinds |= found
    return kinds.pop() if kinds else f"{lead}, and every call passes None"


def _calls_in_module(analyzer, fn_node: cst.FunctionDef) -> list[cst.Call] | str:
    """Every call of the function ``fn_node``, when this module holds them all (it is bound once,
    not exported, used only by calls), else why not."""
    pipe = fn_node.name.value
    scope = analyzer.scope_of(fn_node)
    if scope is None or len(scope.assignments[pipe]) != 1:
        return f"`{pipe}` is bound more than once"
    if exported(scope, analyzer.parents, pipe) is not None:
        return f"`{pipe}` may be called by other modules (`__all__`)"
    calls = []
    for access in references(scope, pipe):
        call = analyzer.parents.get(access.node)
        if not (isinstance(call, cst.Call) and call.func is access.node):
            return f"`{pipe}` is used other than by a call"
        calls.append(call)
    return calls or f"`{pipe}` is not called in this module"


def _passed_kinds(
    analyzer, value: cst.BaseExpression, fn_node: cst.FunctionDef, module: cst.Module, none_allowed: bool, seen: set
) -> set | None:
    """The kinds (:func:`classify`) ``value``, where it is written, may be: a generator function, a
    name bound once to a value :func:`classify` knows, or either branch of ``a if c else b`` (None
    adds nothing when allowed), a function of the module; None when unknown."""
    if isinstance(value, cst.IfExp):
        branches = [_passed_kinds(analyzer, v, fn_node, module, none_allowed, seen) for v in (value.body, value.orelse)]
        return None if None in branches else set().union(*branches)
    if _generator_function(analyzer, value, False, set()):
        return {(GENERATOR, None)}
    if isinstance(value, cst.Name) and value.value == "None":
        return set() if none_allowed else None
    if isinstance(value, cst.Name):
        if id(value) in seen:
            return None
        seen.add(id(value))
        node = _binding(analyzer, value)
        if isinstance(node, cst.FunctionDef) and not node.decorators and node.asynchronous is None:
            return {(CALLABLE, positional(node.params))}  # not a generator function (above)
        bound = _bound_value(analyzer, value)
        return None if bound is None else _passed_kinds(analyzer, bound, fn_node, module, none_allowed, seen)
    kind, params = classify(value, fn_node, module, 0)
    return None if kind is None else {(kind, params)}


def _generator_function(analyzer, value: cst.BaseExpression, none_allowed: bool, seen: set) -> bool:
    """Is ``value`` (where it is written) a generator function for sure (or None, when allowed)?"""
    if isinstance(value, cst.IfExp):
        return all(_generator_function(analyzer, v, none_allowed, seen) for v in (value.body, value.orelse))
    if not isinstance(value, cst.Name):
        return False
    if value.value == "None":
        return none_allowed
    if id(value) in seen:
        return False
    seen.add(id(value))
    node = _binding(analyzer, value)
    if isinstance(node, cst.FunctionDef):
        return not node.decorators and node.asynchronous is None and is_generator(node)
    bound = _bound_value(analyzer, value)
    return bound is not None and _generator_function(analyzer, bound, none_allowed, seen)


def _binding(analyzer, name: cst.Name) -> cst.CSTNode | None:
    """The one node that binds ``name`` where it is read (a ``def``, or the target of an
    assignment), looked up as Python does (enclosing class bodies are not searched), or None."""
    scope = start = analyzer.scope_of(name)
    while scope is not None and (
        not scope.assignments[name.value] or (scope is not start and isinstance(scope, ClassScope))
    ):
        if scope.parent is scope:
            return None
        scope = scope.parent
    if scope is None:
        return None
    bindings = list(scope.assignments[name.value])
    return bindings[0].node if len(bindings) == 1 else None


def _bound_value(analyzer, name: cst.Name) -> cst.BaseExpression | None:
    """The value of ``name = value``, the one binding of ``name`` where it is read, or None."""
    node = _binding(analyzer, name)
    target = analyzer.parents.get(node) if node is not None else None
    assign = analyzer.parents.get(target)
    if (
        isinstance(target, cst.AssignTarget)
        and target.target is node
        and isinstance(assign, cst.Assign)
        and len(assign.targets) == 1
    ):
        return assign.value
    return None
