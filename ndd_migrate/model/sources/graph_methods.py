"""A ``Pipeline`` subclass's graph-helper methods, inlined into its ``define_graph``.

``def load(self): jpegs, labels = self.input(); ...; return images, labels``, called from
``define_graph`` as ``images, labels = self.load()``: DALI's test pipelines and many training
scripts share graph steps this way, often from a base class. A generator function has no methods,
but a helper's statements are graph code of ``define_graph`` itself: pipeline mode ran them once per
call while it built the graph. So each call statement is replaced by the helper's body, its
parameters bound to the call's arguments and its final ``return E`` becoming the call's own
statement (``images, labels = E``, ``return E``), and the method leaves the class
(docs/target-shape.md, "Graph-helper methods of a `Pipeline` subclass").

Only what reads the same after the move is inlined:

- the method is reached only as ``self.m(...)`` calls in ``define_graph`` methods of the module:
  a statement of its own (``self.m(...)``, ``x, y = self.m(...)``, ``return self.m(...)``), or
  inside an expression when its body is one ``return E`` and the arguments are names or literals
  (then the call becomes ``(E)`` with them in place);
- its parameters follow ``self`` without ``*``/``**``, a parameter left out has a literal default;
  it is not decorated; it returns only as its last statement; it has no ``yield``, ``global``,
  ``nonlocal``, nested function or class, and does not call ``super()``;
- its names (parameters and locals) are not names of ``define_graph`` other than the targets of
  the call, an argument passed by name is not one it binds, and a name it reads from outside is
  bound neither in ``define_graph`` nor by another helper inlined there.

A class with a helper that fails these keeps its methods: the analysis reports the method (NDD401).

Front end only (libcst, no metadata), like :mod:`ndd_migrate.model.sources.subclasses`, which calls it on each
class it flattens and on a lone ``Pipeline`` subclass with helpers.
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate.syntax import cstutil, dead_locals
from ndd_migrate.syntax.cstutil import ScopeNames, SkipsTrivia, Substitute

#: The methods pipeline mode itself calls: never helpers.
PIPELINE_METHODS = frozenset({"__init__", "define_graph", "iter_setup"})


def helper_names(module: cst.Module) -> frozenset[str]:
    """Names of methods the module reaches only as ``self.m(...)`` calls in a ``define_graph``:
    every ``<x>.m`` anywhere must be one of those (a use elsewhere keeps ``m``)."""
    finder = _Reached()
    module.visit(finder)
    return frozenset(finder.graph_calls - finder.elsewhere)


def inline(cls: cst.ClassDef, helpers: frozenset[str]) -> cst.ClassDef | None:
    """``cls`` with each of its helper methods inlined into ``define_graph`` and removed; None when
    it has no helper, or one of its methods outside :data:`PIPELINE_METHODS` cannot be inlined."""
    body = list(cls.body.body) if isinstance(cls.body, cst.IndentedBlock) else []
    methods = {s.name.value: s for s in body if isinstance(s, cst.FunctionDef)}
    graph = methods.get("define_graph")
    own = [name for name in methods if name not in PIPELINE_METHODS]
    if graph is None or graph.decorators or not own:
        return None
    if any(name not in helpers or not _inlinable(methods[name]) for name in own):
        return None
    chosen = {name: methods[name] for name in own}
    init = methods.get("__init__")
    new_init = _inline_in_init(init, chosen)
    if new_init is False:
        return None
    inliner = _Inliner(chosen, graph)
    new_graph = graph.visit(inliner)
    if inliner.refused:
        return None
    body_kept = dead_locals.without_unread(list(new_graph.body.body), [], inliner.split)
    new_graph = new_graph.with_changes(body=new_graph.body.with_changes(body=body_kept))
    new_body = [
        new_graph if stmt is graph else new_init if stmt is init else stmt
        for stmt in body
        if not (isinstance(stmt, cst.FunctionDef) and stmt.name.value in chosen)
    ]
    return cls.with_changes(body=cls.body.with_changes(body=new_body))


def _inline_in_init(init: cst.FunctionDef | None, helpers: dict[str, cst.FunctionDef]) -> cst.FunctionDef | bool | None:
    """``__init__`` with each ``self.m(...)`` call of a helper replaced by its one ``return E``
    (``self.input = self.get_reader(files)``: the operator it returns, made where the call was);
    False when a call cannot be (:class:`_InitInliner`); None without ``__init__``."""
    if init is None:
        return None
    inliner = _InitInliner(helpers, init)
    new_init = init.visit(inliner)
    return False if inliner.refused else new_init


class _InitInliner(SkipsTrivia, cst.CSTTransformer):
    """``self.m(args)`` in ``__init__`` → ``E`` of the helper's ``return E``, its parameters
    replaced by the arguments. An argument must read the same wherever and however often ``E``
    reads it (a name, a literal, ``kwargs["files"]``, ``self.files``), and a name ``E`` reads from
    outside must not be one ``__init__`` binds."""

    def __init__(self, helpers: dict[str, cst.FunctionDef], init: cst.FunctionDef) -> None:
        self.helpers = helpers
        self.refused = False
        names = ScopeNames()
        init.visit(names)
        self.init_bound = names.bound | names.scoped

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if not _self_call(original) or original.func.attr.value not in self.helpers:
            return updated
        method = self.helpers[original.func.attr.value]
        body = [s for i, s in enumerate(method.body.body) if not (i == 0 and cstutil.is_docstring(s))]
        result = _single(body[0], cst.Return) if len(body) == 1 else None
        bindings = _bind(method, updated)
        inside = ScopeNames()
        method.visit(inside)
        if (
            result is None
            or result.value is None
            or bindings is None
            or not all(_read_only(v) for _, v in bindings)
            or (inside.all - inside.bound - inside.scoped - {"self"}) & self.init_bound
        ):
            self.refused = True
            return updated
        value = result.value.visit(Substitute(dict(bindings))).deep_clone()
        if value.lpar or isinstance(value, (cst.Name, cst.Call, cst.Attribute, cst.Subscript)) or _literal(value):
            return value
        return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _read_only(expr: cst.BaseExpression) -> bool:
    """A name, a literal, or an attribute or item of one: the same value read once or twice, at
    the call or later in the expression that replaces it."""
    if isinstance(expr, cst.Name) or _literal(expr):
        return True
    if isinstance(expr, cst.Attribute):
        return _read_only(expr.value)
    if isinstance(expr, cst.Subscript):
        return _read_only(expr.value) and all(
            isinstance(e.slice, cst.Index) and _read_only(e.slice.value) for e in expr.slice
        )
    return False


def _inlinable(method: cst.FunctionDef) -> bool:
    params = method.params
    if method.decorators or method.asynchronous or params.posonly_params or params.star_kwarg is not None:
        return False
    if isinstance(params.star_arg, cst.Param) or not params.params or params.params[0].name.value != "self":
        return False
    if any(p.default is not None and not _literal(p.default) for p in [*params.params, *params.kwonly_params]):
        return False
    shape = _Shape()
    method.body.visit(shape)
    if shape.refused:
        return False
    stmts = method.body.body if isinstance(method.body, cst.IndentedBlock) else ()
    last_is_return = bool(stmts) and _single(stmts[-1], cst.Return) is not None
    return shape.returns == int(last_is_return)


class _Shape(SkipsTrivia, cst.CSTVisitor):
    """What a helper's body holds that inlining cannot carry: counts its ``return`` statements."""

    def __init__(self) -> None:
        self.returns = 0
        self.refused = False

    def visit_Return(self, node: cst.Return) -> None:
        self.returns += 1

    def _refuse(self, node) -> bool:
        self.refused = True
        return False

    visit_Yield = visit_Global = visit_Nonlocal = visit_FunctionDef = visit_ClassDef = _refuse

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == "super":
            self.refused = True


class _Reached(SkipsTrivia, cst.CSTVisitor):
    """``graph_calls``: attribute names called as ``self.m(...)`` in a ``define_graph``;
    ``elsewhere``: attribute names read any other way (or anywhere else)."""

    def __init__(self) -> None:
        self.graph_calls: set[str] = set()
        self.elsewhere: set[str] = set()
        self._functions: list[str] = []
        self._claimed: set[cst.Attribute] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append(node.name.value)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.pop()

    def visit_Call(self, node: cst.Call) -> None:
        if _self_call(node) and self._functions[-1:] in (["define_graph"], ["__init__"]):
            self._claimed.add(node.func)
            self.graph_calls.add(node.func.attr.value)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node not in self._claimed:
            self.elsewhere.add(node.attr.value)


def _call_statement(stmt: cst.SimpleStatementLine) -> cst.Call | None:
    """The call of ``f(...)``, ``targets = f(...)`` or ``return f(...)``, alone on its line."""
    if len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    value = small.value if isinstance(small, (cst.Expr, cst.Assign, cst.Return)) else None
    return value if isinstance(value, cst.Call) else None


class _Inliner(cst.CSTTransformer):
    """Replaces each ``self.<helper>(...)`` statement of ``define_graph`` by the helper's body."""

    def __init__(self, helpers: dict[str, cst.FunctionDef], graph: cst.FunctionDef) -> None:
        self.helpers = helpers
        self.graph = graph
        self.refused = False
        self._statement_calls: set[cst.Call] = set()
        names = ScopeNames()
        graph.visit(names)
        self.graph_bound = names.bound | names.scoped
        self.helper_bound: set[str] = set()
        self._names = set(names.all)  # every name of the graph and its helpers, and those chosen
        for method in helpers.values():
            found = ScopeNames()
            method.visit(found)
            self.helper_bound |= found.bound
            self._names |= found.all
        self._inlined_names: set[str] = set()  # the names the bodies inlined so far bind
        self.split: list[cst.SimpleStatementLine] = []  # `a = x` of `a, b = self.load()`: `b` may go

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        call = _call_statement(node)
        if call is not None:
            self._statement_calls.add(call)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if (
            original in self._statement_calls
            or not _self_call(original)
            or original.func.attr.value not in self.helpers
        ):
            return updated
        value = self._expression(original, self.helpers[original.func.attr.value])
        if value is None:
            self.refused = True
            return updated
        return value

    def leave_SimpleStatementLine(self, original, updated):
        call = _call_statement(original)
        if call is None or not _self_call(call) or call.func.attr.value not in self.helpers:
            return updated
        inlined = self._inlined(original, call, self.helpers[call.func.attr.value])
        if inlined is None:
            self.refused = True
            return updated
        stmts, split = inlined
        self.split.extend(split)
        return cst.FlattenSentinel(stmts)

    def _expression(self, call: cst.Call, method: cst.FunctionDef) -> cst.BaseExpression | None:
        """A call inside an expression: the helper must be one ``return E`` and its arguments
        names or literals, so that ``E`` with them in place is the value, evaluated alike."""
        body = [s for i, s in enumerate(method.body.body) if not (i == 0 and cstutil.is_docstring(s))]
        result = _single(body[0], cst.Return) if len(body) == 1 else None
        bindings = _bind(method, call)
        if result is None or result.value is None or bindings is None:
            return None
        if not all(isinstance(v, cst.Name) or _literal(v) for _, v in bindings):
            return None
        inside = ScopeNames()
        method.visit(inside)
        if (inside.all - inside.bound - inside.scoped - {"self"}) & self.graph_bound:
            return None  # a name it reads from outside that `define_graph` binds
        value = result.value.visit(Substitute(dict(bindings))).deep_clone()
        if (
            value.lpar
            or isinstance(value, (cst.Name, cst.Call, cst.Attribute, cst.Subscript, cst.List, cst.Dict))
            or _literal(value)
        ):
            return value
        return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])

    def _inlined(
        self, stmt: cst.SimpleStatementLine, call: cst.Call, method: cst.FunctionDef
    ) -> tuple[list, list] | None:
        """The statements that replace ``stmt``, a statement calling the helper ``method``; None when
        a name of the helper would mean something else in ``define_graph``."""
        bindings = _bind(method, call)
        if bindings is None:
            return None
        inside = ScopeNames()
        method.visit(inside)
        own = (inside.bound - {"self"}) | inside.scoped
        substitutions, assigned = _parameters(method, bindings)
        kept_params = own - set(substitutions)
        if self._clashes(stmt, inside, own, kept_params, substitutions):
            return None
        substitutions.update(self._fresh(kept_params))
        return _inlined_body(stmt, method, substitutions, assigned)

    def _clashes(
        self,
        stmt: cst.SimpleStatementLine,
        inside: ScopeNames,
        own: set[str],
        kept_params: set[str],
        substitutions: dict,
    ) -> bool:
        """Would the helper's body (``inside``: its names; ``own``: those it binds; ``kept_params``:
        those that stay names of its own), inlined in place of ``stmt``, bind or read a name that
        ``define_graph`` uses for something else?"""
        small = stmt.body[0]
        targets = _names_in([t.target for t in small.targets]) if isinstance(small, cst.Assign) else set()
        caller = ScopeNames()
        self.graph.visit(_Without(stmt, caller))
        free = inside.all - own - {"self"}
        passed = {v.value for v in substitutions.values() if isinstance(v, cst.Name)}
        if kept_params & ((caller.all | caller.bound) - targets):
            return True  # a helper's name that means something else in `define_graph`
        if passed & (inside.bound - set(substitutions)):
            return True  # an argument's name the helper binds for itself
        if free & (self.graph_bound | (self.helper_bound - own)):
            return True  # a name it reads from outside that `define_graph` binds
        return False

    def _fresh(self, own: set[str]) -> dict[str, cst.BaseExpression]:
        """New names for the helper's own names that a body inlined before binds too: each call's
        values stay apart (``images, labels = self.load()`` twice would otherwise read its second
        reader into the names of the first, which a loop over both readers then shows as
        ``for (jpegs, labels), (jpegs, labels) in zip(...)``)."""
        renamed: dict[str, cst.BaseExpression] = {}
        for name in sorted(own & self._inlined_names):
            serial = 2
            while f"{name}_{serial}" in self._names:
                serial += 1
            renamed[name] = cst.Name(f"{name}_{serial}")
            self._names.add(f"{name}_{serial}")
        self._inlined_names |= own
        return renamed


def _parameters(method: cst.FunctionDef, bindings: list) -> tuple[dict[str, cst.BaseExpression], list]:
    """Each parameter of the helper: its argument in its place where that is a name or a literal and
    the body does not bind the parameter again, else assigned first (``param = value``)."""
    substitutions: dict[str, cst.BaseExpression] = {}
    assigned: list[cst.BaseStatement] = []
    for param, value in bindings:
        if (isinstance(value, cst.Name) or _literal(value)) and param not in _rebound(method, param):
            substitutions[param] = value
        else:
            assigned.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(param))], value)]))
    return substitutions, assigned


def _inlined_body(
    stmt: cst.SimpleStatementLine, method: cst.FunctionDef, substitutions: dict, assigned: list
) -> tuple[list, list]:
    """The parameters assigned, the helper's body, then the call's statement with the helper's
    result in place of the call, all with ``substitutions``; ``stmt``'s comments above them. And the
    assignments that took the result apart, one per name."""
    body = list(method.body.body)
    if body and cstutil.is_docstring(body[0]):
        body = body[1:]
    result: cst.BaseExpression | None = None
    if body and _single(body[-1], cst.Return) is not None:
        result = _single(body[-1], cst.Return).value
        body = body[:-1]
    body = [s.visit(Substitute(substitutions)) if substitutions else s for s in body]
    body = [s.deep_clone() for s in body]
    if result is not None and substitutions:
        result = result.visit(Substitute(substitutions))
    assigned = [s.visit(Substitute(substitutions)) for s in assigned]
    tail = _tail(stmt.body[0], result)
    out = [*assigned, *body, *tail]
    if not out:
        out = [cst.SimpleStatementLine([cst.Pass()])]
    out[0] = out[0].with_changes(leading_lines=[*stmt.leading_lines, *out[0].leading_lines])
    return out, out[len(out) - len(tail) :] if len(tail) > 1 else []


def _tail(small, result: cst.BaseExpression | None) -> list[cst.SimpleStatementLine]:
    """The call's own statement with the helper's result in place of the call: ``images, labels =
    resized, labels`` is one assignment per name (:func:`_one_per_name`)."""
    value = result.deep_clone() if result is not None else cst.Name("None")
    if isinstance(small, cst.Assign):
        return _one_per_name(small, value) or [cst.SimpleStatementLine([small.with_changes(value=value)])]
    if isinstance(small, cst.Return):
        return [
            cst.SimpleStatementLine([small.with_changes(value=result.deep_clone() if result is not None else None)])
        ]
    if result is None or _pure(result):
        return []  # `self.helper()` for its statements: nothing is left to evaluate
    return [cst.SimpleStatementLine([cst.Expr(value)])]


def _one_per_name(small: cst.Assign, value: cst.BaseExpression) -> list[cst.SimpleStatementLine] | None:
    """``a, b = x, y`` as ``a = x`` and ``b = y`` when that is the same (names on the left, each
    read by no value after its own, as many values as names; ``b = b`` is nothing), else None: the
    caller's names of the helper's results, each bound to what it holds, and one the graph never
    reads can go (:mod:`ndd_migrate.syntax.dead_locals`) — a tuple assignment of one unread name
    is a linter's unused variable."""
    target = small.targets[0].target if len(small.targets) == 1 else None
    if not isinstance(target, (cst.Tuple, cst.List)) or not isinstance(value, cst.Tuple):
        return None
    names = [e.value for e in target.elements]
    if len(names) != len(value.elements) or not all(isinstance(n, cst.Name) for n in names):
        return None
    if any(isinstance(e, cst.StarredElement) for e in value.elements):
        return None
    if len({n.value for n in names}) != len(names):
        return None
    for position, name in enumerate(names):
        later = ScopeNames()
        for element in value.elements[position + 1 :]:
            element.visit(later)
        if name.value in later.all:
            return None
    return [
        cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(n.value))], e.value)])
        for n, e in zip(names, value.elements)
        if not (isinstance(e.value, cst.Name) and e.value.value == n.value)
    ]


def _bind(method: cst.FunctionDef, call: cst.Call) -> list[tuple[str, cst.BaseExpression]] | None:
    """The helper's parameters (``self`` left out) → the call's arguments, or their defaults."""
    params = method.params
    positional = list(params.params[1:])
    every = {p.name.value: p for p in [*positional, *params.kwonly_params]}
    given: dict[str, cst.BaseExpression] = {}
    for position, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is None:
            if position >= len(positional):
                return None
            given[positional[position].name.value] = arg.value
        elif arg.keyword.value in every and arg.keyword.value not in given:
            given[arg.keyword.value] = arg.value
        else:
            return None
    out = []
    for name, param in every.items():
        value = given.get(name, param.default)
        if value is None:
            return None
        out.append((name, value))
    return out


def _rebound(method: cst.FunctionDef, param: str) -> set[str]:
    """``{param}`` when the helper's body binds ``param`` again, else empty."""
    names = ScopeNames()
    method.body.visit(names)
    return {param} & (names.bound | names.scoped)


class _Without(SkipsTrivia, cst.CSTVisitor):
    """Visits a tree with ``skip`` (a statement) left out, for ``inner`` (a :class:`ScopeNames`)."""

    def __init__(self, skip: cst.CSTNode, inner: ScopeNames) -> None:
        self.skip = skip
        self.inner = inner

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node is self.skip:
            return False
        return self.inner.on_visit(node)  # trivia is the inner visitor's to skip

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if original_node is not self.skip:
            self.inner.on_leave(original_node)


def _self_call(call: cst.Call) -> bool:
    func = call.func
    return isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"


def _names_in(targets) -> set[str]:
    found: set[str] = set()
    for target in targets:
        if isinstance(target, cst.Name):
            found.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            found |= _names_in(e.value for e in target.elements)
        elif isinstance(target, cst.StarredElement):
            found |= _names_in([target.value])
    return found


def _single(stmt, kind):
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], kind):
        return stmt.body[0]
    return None


def _literal(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, (cst.SimpleString, cst.Integer, cst.Float)) or (
        isinstance(expr, cst.Name) and expr.value in ("None", "True", "False")
    )


def _pure(expr: cst.BaseExpression) -> bool:
    """Names, literals and tuples of them: evaluating them does nothing."""
    if isinstance(expr, cst.Name) or _literal(expr):
        return True
    return isinstance(expr, cst.Tuple) and all(_pure(e.value) for e in expr.elements)
