"""Methods a class calls only on itself: ``self._create_pipeline()`` is a call of one known function.

A call ``obj.name()`` names no function the code can see: which ``name`` runs depends on the object.
Inside a class, ``self.name()`` in one of its own methods runs the class's ``name`` — unless a subclass
overrides it, or something assigns ``self.name`` (or ``obj.name``) elsewhere. So a method is read as
a plain function (its result followed from its calls, as a factory's: ndd_migrate.plan.uses) only when
every ``.name`` in the module is a call ``self.name(...)`` made directly in a method of the class
(``self`` its first parameter, not rebound, read there or in a function nested in the method that
does not bind it), the class defines
``name`` once and spells it nowhere else (``make = _make``), without decorators (``staticmethod``, ``property``, caching wrappers change what the
call does), and no class of the module derives from the class. Subclasses in other modules cannot be
seen: a module that overrides the method there keeps what the base now gives it (docs/target-shape.md).
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate.syntax.cstutil import SkipsTrivia


def calls(module: cst.Module, qualnames) -> dict[cst.Call, str]:
    """Each followable ``self.name()`` call of ``module`` → the qualified name of the method it runs
    (``qualnames(node)`` gives a node's qualified names)."""
    finder = _Finder()
    module.visit(finder)
    derived = finder.base_names
    found: dict[cst.Call, str] = {}
    for cls, methods in finder.methods.items():
        if cls.name.value in derived:
            continue
        for name, defs in methods.items():
            if len(defs) != 1 or defs[0] is None or defs[0].decorators:
                continue
            uses = finder.attributes.get(name, [])
            if not uses or not all(owner is cls and call is not None for owner, call in uses):
                continue
            qual = next(iter(qualnames(defs[0].name)), None)
            if qual is None:
                continue
            for _, call in uses:
                found[call] = qual
    return found


class _Finder(SkipsTrivia, cst.CSTVisitor):
    """Methods of each class, every ``X.name`` (with the class it is a ``self`` call of, if any) and
    the names classes derive from."""

    def __init__(self) -> None:
        self.methods: dict[cst.ClassDef, dict[str, list[cst.FunctionDef]]] = {}
        self.attributes: dict[str, list[tuple[cst.ClassDef | None, cst.Call | None]]] = {}
        self.base_names: set[str] = set()
        self._scopes: list[cst.CSTNode] = []  # enclosing ClassDef / FunctionDef / Lambda nodes
        self._calls: list[cst.Call] = []
        self._rebound: dict[tuple[cst.FunctionDef, str], bool] = {}  # each method read once per name

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        for base in node.bases:
            self.base_names.update(n.value for n in _names(base.value))
        methods = self.methods.setdefault(node, {})
        mentioned: set[str] = set()  # names the class body spells outside the `def`s' bodies
        for stmt in node.body.body if isinstance(node.body, cst.IndentedBlock) else ():
            if isinstance(stmt, cst.FunctionDef):
                methods.setdefault(stmt.name.value, []).append(stmt)
                for decorator in stmt.decorators:
                    mentioned.update(n.value for n in _names(decorator))
            else:  # `make = _make`, `make = property(_make)`: the method is reachable otherwise
                mentioned.update(n.value for n in _names(stmt))
        for name in mentioned & set(methods):
            methods[name].append(None)
        self._scopes.append(node)

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self._scopes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scopes.append(node)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scopes.pop()

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._scopes.append(node)

    def leave_Lambda(self, node: cst.Lambda) -> None:
        self._scopes.pop()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.attributes.setdefault(node.attr.value, []).append(self._self_call(node))

    def _self_call(self, node: cst.Attribute) -> tuple[cst.ClassDef | None, cst.Call | None]:
        """``(class, call)`` when ``node`` is ``self.name`` called, ``self`` the first parameter of a
        method of the class (read directly or from a function nested in the method that does not bind
        it: the graph function of a hand-built graph is such a function)."""
        if not isinstance(node.value, cst.Name):
            return None, None
        name = node.value.value
        for depth in range(len(self._scopes) - 1, 0, -1):
            scope, outer = self._scopes[depth], self._scopes[depth - 1]
            if not isinstance(scope, (cst.FunctionDef, cst.Lambda)):
                return None, None
            if isinstance(outer, cst.ClassDef):
                if not isinstance(scope, cst.FunctionDef) or scope.decorators:
                    return None, None
                params = [*scope.params.posonly_params, *scope.params.params]
                if not params or params[0].name.value != name or self._rebinds(scope, name):
                    return None, None
                return outer, self._call_of(node)
            if _binds_param(scope, name) or (isinstance(scope, cst.FunctionDef) and self._rebinds(scope, name)):
                return None, None
        return None, None

    def _rebinds(self, method: cst.FunctionDef, name: str) -> bool:
        """:func:`_rebinds`, once per method and name: a method mentions ``self.x`` many times, and
        reading its whole body at each mention made the cost grow with the square of its length."""
        key = (method, name)
        if key not in self._rebound:
            self._rebound[key] = _rebinds(method, name)
        return self._rebound[key]

    def _call_of(self, node: cst.Attribute) -> cst.Call | None:
        return next((c for c in reversed(self._calls) if c.func is node), None)

    def visit_Call(self, node: cst.Call) -> None:
        self._calls.append(node)

    def leave_Call(self, node: cst.Call) -> None:
        self._calls.pop()


def _names(node: cst.CSTNode):
    if isinstance(node, cst.Name):
        yield node
    for child in node.children:
        yield from _names(child)


def _binds(target: cst.CSTNode, name: str) -> bool:
    """``target`` binds ``name`` itself (``self = ...``, ``a, self = ...``; not ``self.x = ...``)."""
    if isinstance(target, cst.Name):
        return target.value == name
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_binds(e.value, name) for e in target.elements)
    if isinstance(target, cst.StarredElement):
        return _binds(target.value, name)
    return False


def _binds_param(scope: cst.FunctionDef | cst.Lambda, name: str) -> bool:
    params = scope.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    every += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    return any(p.name.value == name for p in every)


def _rebinds(method: cst.FunctionDef, name: str) -> bool:
    """``self`` assigned in the function (``self = other``), or a parameter of a function nested in
    it: the call may no longer run the class's method."""

    class Binds(cst.CSTVisitor):
        found = False

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            if _binds(node.target, name):
                Binds.found = True

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            if _binds(node.target, name):
                Binds.found = True

        def visit_For(self, node: cst.For) -> None:
            if _binds(node.target, name):
                Binds.found = True

        def visit_AsName(self, node: cst.AsName) -> None:
            if _binds(node.name, name):
                Binds.found = True

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            if _binds(node.target, name):
                Binds.found = True

        def visit_Param(self, node: cst.Param) -> None:
            if node.name.value == name and node is not first:
                Binds.found = True

    first = next(iter([*method.params.posonly_params, *method.params.params]), None)
    visitor = Binds()
    method.body.visit(visitor)
    return Binds.found
