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

from ndd_migrate.syntax import tree
from ndd_migrate.syntax.cstutil import SkipsTrivia


def calls(module: cst.Module, qualnames) -> dict[cst.Call, str]:
    """Each followable ``self.name()`` call of ``module`` → the qualified name of the method it runs
    (``qualnames(node)`` gives a node's qualified names)."""
    finder = _Finder()
    tree.visit(module, finder)
    derived = finder.base_names
    found: dict[cst.Call, str] = {}
    for cls, methods in finder.methods.items():
        if cls.name.value in derived:
            continue
        for name, defs in methods.items():
            if len(defs) != 1 or defs[0] is None or defs[0].decorators:
                continue
            uses = [finder.resolved(use) for use in finder.attributes.get(name, [])]
            if not uses or not all(owner is cls and call is not None for owner, call in uses):
                continue
            qual = next(iter(qualnames(defs[0].name)), None)
            if qual is None:
                continue
            for _, call in uses:
                found[call] = qual
    return found


#: A mention ``X.name``: the class and call of ``self.name(...)`` it is, provided that ``self`` (the
#: name) is bound in none of the functions listed (checked once the module is read: a method may
#: rebind it after the mention); ``(None, None, (), "")`` when it is no such call.
_Mention = tuple[cst.ClassDef | None, cst.Call | None, tuple[cst.FunctionDef, ...], str]
_NO_CALL: _Mention = (None, None, (), "")


class _Finder(SkipsTrivia, cst.CSTVisitor):
    """Methods of each class, every ``X.name`` (with the class it is a ``self`` call of, if any) and
    the names classes derive from; and the names each function's body binds, found in the same
    traversal (a method's body read again for each name it mentions cost as much as the module)."""

    def __init__(self) -> None:
        self.methods: dict[cst.ClassDef, dict[str, list[cst.FunctionDef]]] = {}
        self.attributes: dict[str, list[_Mention]] = {}
        self.base_names: set[str] = set()
        self._scopes: list[cst.CSTNode] = []  # enclosing ClassDef / FunctionDef / Lambda nodes
        self._calls: list[cst.Call] = []
        self._bodies: list[cst.FunctionDef] = []  # the functions whose body holds the node visited
        self._bound: dict[cst.FunctionDef, set[str]] = {}  # names each function's body binds

    def resolved(self, mention: _Mention) -> tuple[cst.ClassDef | None, cst.Call | None]:
        """``(class, call)`` of a mention, now that every function's bindings are known."""
        owner, call, functions, name = mention
        if any(name in self._bound.get(function, ()) for function in functions):
            return None, None
        return owner, call

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

    # -- the bodies of functions, and the names bound there -----------------------------------
    def _enter_body(self, node: cst.BaseSuite) -> None:
        scope = self._scopes[-1] if self._scopes else None
        if isinstance(scope, cst.FunctionDef) and scope.body is node:
            self._bodies.append(scope)
            self._bound.setdefault(scope, set())

    def _leave_body(self, node: cst.BaseSuite) -> None:
        if self._bodies and self._bodies[-1].body is node:
            self._bodies.pop()

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._enter_body(node)

    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._leave_body(node)

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._enter_body(node)

    def leave_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._leave_body(node)

    def _binds(self, names) -> None:
        """``self = other``, or a parameter of a function nested in the body: a call there may no
        longer run the class's method."""
        names = set(names)
        for function in self._bodies:
            self._bound[function] |= names

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._binds(_bound_names(node.target))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._binds(_bound_names(node.target))

    def visit_For(self, node: cst.For) -> None:
        self._binds(_bound_names(node.target))

    def visit_AsName(self, node: cst.AsName) -> None:
        self._binds(_bound_names(node.name))

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._binds(_bound_names(node.target))

    def visit_Param(self, node: cst.Param) -> None:
        self._binds((node.name.value,))

    # -- mentions ----------------------------------------------------------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.attributes.setdefault(node.attr.value, []).append(self._self_call(node))

    def _self_call(self, node: cst.Attribute) -> _Mention:
        """``(class, call, ...)`` when ``node`` is ``self.name`` called, ``self`` the first parameter of
        a method of the class (read directly or from a function nested in the method that does not
        bind it: the graph function of a hand-built graph is such a function), and not rebound in
        the method or the functions between."""
        if not isinstance(node.value, cst.Name):
            return _NO_CALL
        name = node.value.value
        unbound: list[cst.FunctionDef] = []  # functions that must not bind `name`
        for depth in range(len(self._scopes) - 1, 0, -1):
            scope, outer = self._scopes[depth], self._scopes[depth - 1]
            if not isinstance(scope, (cst.FunctionDef, cst.Lambda)):
                return _NO_CALL
            if isinstance(outer, cst.ClassDef):
                if not isinstance(scope, cst.FunctionDef) or scope.decorators:
                    return _NO_CALL
                params = [*scope.params.posonly_params, *scope.params.params]
                if not params or params[0].name.value != name:
                    return _NO_CALL
                return outer, self._call_of(node), (*unbound, scope), name
            if _binds_param(scope, name):
                return _NO_CALL
            if isinstance(scope, cst.FunctionDef):
                unbound.append(scope)
        return _NO_CALL

    def _call_of(self, node: cst.Attribute) -> cst.Call | None:
        return next((c for c in reversed(self._calls) if c.func is node), None)

    def visit_Call(self, node: cst.Call) -> None:
        self._calls.append(node)

    def leave_Call(self, node: cst.Call) -> None:
        self._calls.pop()


def _names(node: cst.CSTNode):
    return (n for n in tree.walk(node) if isinstance(n, cst.Name))


def _bound_names(target: cst.CSTNode):
    """The names ``target`` binds itself (``self = ...``, ``a, self = ...``; not ``self.x = ...``)."""
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _bound_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _bound_names(target.value)


def _binds_param(scope: cst.FunctionDef | cst.Lambda, name: str) -> bool:
    params = scope.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    every += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    return any(p.name.value == name for p in every)
