"""Parameters called as functions: which functions of the module a call ``compare(...)`` may run.

A runner often takes the function that consumes its pipelines as an argument (``def run(name,
compare): ... compare(name, pipe, other)``), and each caller picks one (``run("a", per_sample)``).
The call names no function; but when every way of reaching the runner is seen — a function of the
module level, not decorated, used only by plain calls of this module (not listed in ``__all__``, not
passed on), none with ``*args``/``**kwargs``, each passing at that parameter (or leaving to its
default) the name of a function defined once at the module level — the parameter holds one of those
functions and nothing else. The plan (:mod:`ndd_migrate.plan.uses`) then reads the call as a call of each
of them, and follows the values passed into each as into a helper called by name. When they cannot
be known, :attr:`Callees.unknown` says why, and the value stays unfollowed (NDD008 reports it).

Facts only, from the syntax and the scopes: no kinds, no rule codes, no messages.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ndd_migrate.syntax.scopes import references

#: Why the functions a parameter holds are not known (:attr:`Callees.unknown`; ``at`` shows where).
NESTED = "nested"  # its function is a method or a nested function: not all of its calls are seen
DECORATED = "decorated"  # its function is decorated: the decorator decides what the call passes
REBOUND = "rebound"  # the parameter is also assigned in the function
USED = "used"  # the parameter is used other than by calling it
EXPORTED = "exported"  # its function is listed in `__all__` (or `__all__` is computed): other modules may call it
REFERENCED = "referenced"  # its function is used other than by calling it, or defined twice
UNCALLED = "uncalled"  # its function is never called in the module
STARRED = "starred"  # a call of its function passes `*args` or `**kwargs`
OMITTED = "omitted"  # a call of its function does not pass it, and it has no default
NOT_A_FUNCTION = "not a function"  # a call passes something else than the name of a module-level function


@dataclass(frozen=True, eq=False)
class Callees:
    """What the parameter ``parameter`` of the function ``owner`` holds when it is called:
    ``functions``, the qualified names (keys of ``model.functions``) of the module's functions
    its callers pass, or — when they cannot be known — ``unknown`` (a constant above), shown by the
    node ``at`` (a statement, a call, the argument's value, a decorator, or the function's name)."""

    parameter: str
    owner: str
    functions: tuple[str, ...] = ()
    unknown: str = ""
    at: cst.CSTNode | None = None


class CalledParameters:
    """The parameters of a module's functions that are called, read once from a finished
    :class:`~ndd_migrate.model.analysis.Analyzer` (the plan's walks ask it again and again)."""

    def __init__(self, analyzer) -> None:
        self._analyzer = analyzer
        self._parents = analyzer.parents
        self._by_call: dict[int, Callees] = {}
        self._through: dict[str, set[int]] = {}  # qualname → ids of the calls that may run it through a parameter
        self._passing: set[int] = set()  # ids of the names that give a function to such a parameter
        self._order: dict[int, int] | None = None  # each node's place in the source, when first needed
        self._module_level = {
            id(node) for node in analyzer.model.functions.values() if isinstance(self._parents.get(node), cst.Module)
        }
        # Names called as `name(...)` somewhere: only such parameters are looked at (a large module
        # has many parameters, few of them called).
        called = {call.func.value for call, _ in analyzer.calls if isinstance(call.func, cst.Name)}
        for function in list(analyzer.model.functions.values()):
            params = function.params
            for param in (*params.posonly_params, *params.params, *params.kwonly_params):
                if param.name.value not in called:
                    continue
                scope = analyzer.scope_of(param.name)
                if scope is None:
                    continue
                found = [access.node for access in references(scope, param.name.value)]
                calls = [node for node in found if self._is_callee(node)]
                if not calls:
                    continue
                callees, names = self._holds(function, param, scope, found)
                for call in calls:
                    self._by_call[id(self._parents[call])] = callees
                    for qual in callees.functions:
                        self._through.setdefault(qual, set()).add(id(self._parents[call]))
                self._passing.update(id(name) for name in names)

    def of(self, call: cst.Call) -> Callees | None:
        """What the callee of ``call`` may be, when it is a parameter of the function the call is in
        (None when it is not)."""
        return self._by_call.get(id(call))

    def through(self, qual: str) -> set[int]:
        """Ids of the calls that run the function ``qual`` through a parameter known to hold it."""
        return self._through.get(qual, set())

    def passes(self, name: cst.CSTNode) -> bool:
        """Is ``name`` a function's name given to a parameter known to hold it (a use of the function
        that is one of the calls :meth:`through` lists)?"""
        return id(name) in self._passing

    def _is_callee(self, node: cst.CSTNode) -> bool:
        parent = self._parents.get(node)
        return isinstance(parent, cst.Call) and parent.func is node

    def _holds(self, function: cst.FunctionDef, param: cst.Param, scope, found: list) -> tuple[Callees, list]:
        """The functions ``param`` holds, and the names of them its function's calls pass (those
        uses of theirs are the calls through the parameter); or why they are unknown."""
        name = param.name.value

        def unknown(why: str, at: cst.CSTNode) -> tuple[Callees, list]:
            return Callees(name, function.name.value, unknown=why, at=at), []

        hidden = self._hidden(function, param, scope, found)
        if hidden is not None:
            return unknown(*hidden)
        calls = self._calls(function)
        if isinstance(calls, tuple):
            return unknown(*calls)
        functions, names = [], []
        for call in calls:
            if any(arg.star for arg in call.args):
                return unknown(STARRED, call)
            arg = bound_argument(call, function, param)
            value = arg.value if arg is not None else param.default
            if value is None:
                return unknown(OMITTED, call)
            qual = self._module_function(value)
            if qual is None:
                return unknown(NOT_A_FUNCTION, value)
            functions.append(qual)
            names.append(value)
        defined = list(self._analyzer.model.functions)  # in the order of the source
        return Callees(name, function.name.value, tuple(sorted(set(functions), key=defined.index))), names

    def _hidden(
        self, function: cst.FunctionDef, param: cst.Param, scope, found: list
    ) -> tuple[str, cst.CSTNode] | None:
        """Why the calls of ``function`` may not be what gives ``param`` its value (the function
        is nested or decorated; the parameter is rebound or used other than by calling it), and
        where; None when they are."""
        if id(function) not in self._module_level:
            return NESTED, function.name
        if function.decorators:
            return DECORATED, function.decorators[0]
        name = param.name.value
        other = self._in_order(
            [a.node for a in scope.assignments[name] if a.node is not param.name and a.node is not param]
        )
        if other:
            return REBOUND, self._statement(other[0])
        used = next((node for node in self._in_order(found) if not self._is_callee(node)), None)
        if used is not None:
            return USED, self._statement(used)
        return None

    def _calls(self, function: cst.FunctionDef) -> list[cst.Call] | tuple[str, cst.CSTNode]:
        """Every call of the module-level ``function``, in the order of the source, when they are
        all the ways it is reached (not listed in ``__all__``, bound once, used only by calls of
        this module); else why not, and where."""
        module_scope = self._analyzer.scope_of(function)
        listed = exported(module_scope, self._parents, function.name.value)
        if listed is not None:
            return EXPORTED, listed
        bindings = module_scope.assignments[function.name.value]
        if len(bindings) != 1:
            other = self._in_order([a.node for a in bindings if a.node is not function])
            return REFERENCED, self._statement(other[0]) if other else function.name
        calls = []
        for node in self._in_order([access.node for access in references(module_scope, function.name.value)]):
            if not self._is_callee(node):
                return REFERENCED, self._statement(node)
            calls.append(self._parents[node])
        if not calls:
            return UNCALLED, function.name
        return calls

    def _in_order(self, nodes: list) -> list:
        """``nodes`` in the order of the source (libcst's reference sets have none): what is
        reported, and so the TODO's text, must not change from run to run."""
        if self._order is None:
            self._order = {id(node): i for i, node in enumerate(self._parents)}  # filled while visiting
        return sorted(nodes, key=lambda node: self._order.get(id(node), -1))

    def _statement(self, node: cst.CSTNode) -> cst.CSTNode:
        """The statement ``node`` is in (a compound statement: the whole of it), to show it by."""
        current = node
        while current is not None and not isinstance(current, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            current = self._parents.get(current)
        return current if current is not None else node

    def _module_function(self, value: cst.BaseExpression) -> str | None:
        """The qualified name of the module-level function ``value`` names, defined once there."""
        if not isinstance(value, cst.Name):
            return None
        scope = self._analyzer.scope_of(value)
        for qual in self._analyzer.qualnames(value):
            node = self._analyzer.model.functions.get(qual)
            if node is None or id(node) not in self._module_level or node.name.value != value.value:
                continue
            bindings = self._analyzer.scope_of(node).assignments[value.value]
            if len(bindings) == 1 and scope is not None and _sees(scope, value.value, self._analyzer.scope_of(node)):
                return qual
        return None


def bound_argument(call: cst.Call, function: cst.FunctionDef, param: cst.Param) -> cst.Arg | None:
    """The argument of ``call`` (without ``*``/``**``) that binds ``param`` of ``function``."""
    name = param.name.value
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    ordered = [*function.params.posonly_params, *function.params.params]
    if param not in ordered:
        return None
    positional = [arg for arg in call.args if arg.keyword is None]
    position = ordered.index(param)
    return positional[position] if position < len(positional) else None


def bound_parameter(call: cst.Call, arg: cst.Arg, function: cst.FunctionDef) -> cst.Name | None:
    """The name of the parameter of ``function`` that ``arg`` (an argument of ``call``, not
    starred) binds, if any."""
    params = function.params
    if arg.keyword is not None:
        named = [p for p in (*params.params, *params.kwonly_params) if p.name.value == arg.keyword.value]
        return named[0].name if named else None
    position = [a for a in call.args if a.keyword is None].index(arg)
    ordered = [*params.posonly_params, *params.params]
    return ordered[position].name if position < len(ordered) else None


def _sees(scope, name: str, binding) -> bool:
    """Does a read of ``name`` in ``scope`` see its binding in ``binding`` (no nearer one)?"""
    current = scope
    while not current.assignments[name]:
        if current.parent is current:
            return False
        current = current.parent
    return current is binding


def exported(module_scope, parents, name: str) -> cst.CSTNode | None:
    """Where the module's ``__all__`` lists ``name`` — or is built other than from literal lists or
    tuples of strings (``__all__ = [...]``, ``__all__ += [...]``), when it may list anything."""
    targets = set()
    for assignment in module_scope.assignments["__all__"]:
        target = assignment.node
        targets.add(id(target))
        statement = parents.get(target)
        if isinstance(statement, cst.AssignTarget):
            statement = parents.get(statement)
        value = statement.value if isinstance(statement, (cst.Assign, cst.AugAssign, cst.AnnAssign)) else None
        if not isinstance(value, (cst.List, cst.Tuple)):
            return target
        for element in value.elements:
            if not isinstance(element.value, cst.SimpleString):
                return target
            if element.value.evaluated_value == name:
                return element.value
    for access in module_scope.accesses["__all__"]:
        if id(access.node) not in targets:
            return access.node
    return None
