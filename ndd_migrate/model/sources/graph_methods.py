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

- the method is reached only as ``self.m(...)`` calls in the ``define_graph``, ``__init__`` and
  helper methods of the module (``fn.m(...)`` on an imported module does not count): a statement of
  its own (``self.m(...)``, ``x, y = self.m(...)``, ``return self.m(...)``), or inside an
  expression when its body is one ``return E`` and the arguments read the same wherever ``E`` reads
  them (then the call becomes ``(E)`` with them in place; in ``__init__``, the only way: a reader
  made by a method, ``self.input = self.get_reader(kwargs["files"])``);
- its parameters follow ``self`` without ``*``/``**``, a parameter left out has a literal default;
  it is not decorated; each ``return`` ends it or a branch of an ``if`` (:mod:`.helper_bodies`: the
  call's statement takes the place of each); it has no ``yield``, ``global``,
  ``nonlocal``, nested function or class, and does not call ``super()``; the helpers it calls are
  inlined into it first, and it does not call itself;
- its own names that are names of ``define_graph`` (other than the targets of the call) or of
  ``__init__`` are renamed (``images_2``); an argument passed by name is not one it binds, and a
  name it reads from outside is bound neither in ``define_graph`` nor by another helper inlined
  there.

A static method the module names nowhere leaves with the helpers.

A class with a helper that fails these keeps its methods: the analysis reports the method (NDD401).

Front end only (libcst, no metadata), like :mod:`ndd_migrate.model.sources.subclasses`, which calls it on each
class it flattens and on a lone ``Pipeline`` subclass with helpers.
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate.model.sources.helper_bodies import in_tail_form, inlined_body, literal, single
from ndd_migrate.syntax import cstutil, dead_locals, tree
from ndd_migrate.syntax.cstutil import ScopeNames, SkipsTrivia, Substitute

#: The methods pipeline mode itself calls: never helpers.
PIPELINE_METHODS = frozenset({"__init__", "define_graph", "iter_setup"})


class HelperNames(frozenset):
    """Names of helper methods; ``unused``: static methods that the module names nowhere (a
    generator function has no place for them, and nothing of the module can miss them; a static
    method overrides nothing pipeline mode calls)."""

    unused: frozenset = frozenset()


def helper_names(module: cst.Module) -> HelperNames:
    """Names of methods the module reaches only as ``self.m(...)`` calls in a ``define_graph``, an
    ``__init__`` or a helper reached so: every ``<x>.m`` anywhere must be one of those (a use
    elsewhere keeps ``m``); and of methods it names nowhere."""
    finder = _Reached()
    tree.visit(module, finder)
    reached, todo = set(), ["define_graph", "__init__"]
    while todo:
        for name in finder.calls.get(todo.pop(), ()):
            if name not in reached:
                reached.add(name)
                todo.append(name)
    called_otherwise = {
        m for f, called in finder.calls.items() if f not in reached | set(PIPELINE_METHODS) for m in called
    }
    out = HelperNames(reached - finder.elsewhere - called_otherwise)
    out.unused = frozenset(finder.defined - finder.elsewhere - {m for c in finder.calls.values() for m in c})
    return out


def inline(cls: cst.ClassDef, helpers: frozenset[str]) -> cst.ClassDef | None:
    """``cls`` with each of its helper methods inlined into ``define_graph`` and removed; None when
    it has no helper, or one of its methods outside :data:`PIPELINE_METHODS` cannot be inlined."""
    body = list(cls.body.body) if isinstance(cls.body, cst.IndentedBlock) else []
    methods = {s.name.value: s for s in body if isinstance(s, cst.FunctionDef)}
    graph = methods.get("define_graph")
    dropped = set(methods) & getattr(helpers, "unused", frozenset())
    chosen = _chosen(methods, helpers, dropped)
    if graph is None or graph.decorators or chosen is None or not (chosen or dropped):
        return None
    init = methods.get("__init__")
    new_init = _inline_in_init(init, chosen)
    if new_init is False:
        return None
    new_graph = _inline_in_graph(graph, chosen, _names_of(new_init or init))
    if new_graph is None:
        return None
    new_body = [
        new_graph if stmt is graph else new_init if stmt is init else stmt
        for stmt in body
        if not (isinstance(stmt, cst.FunctionDef) and stmt.name.value in {*chosen, *dropped})
    ]
    return cls.with_changes(body=cls.body.with_changes(body=new_body))


def _chosen(methods: dict, helpers: frozenset[str], dropped: set[str]) -> dict[str, cst.FunctionDef] | None:
    """The class's helpers, each with the helpers it calls inlined into it; None when a method
    outside :data:`PIPELINE_METHODS` (and not ``dropped``) is no helper or cannot be inlined."""
    own = [name for name in methods if name not in PIPELINE_METHODS and name not in dropped]
    if any(name not in helpers or not _inlinable(methods[name]) for name in own):
        return None
    return _into_each_other({name: in_tail_form(methods[name]) for name in own})


def _inline_in_graph(
    graph: cst.FunctionDef, helpers: dict[str, cst.FunctionDef], reserved: frozenset[str]
) -> cst.FunctionDef | None:
    """``define_graph`` with the helpers' calls inlined (:class:`_Inliner`), the values it took
    apart and no longer reads gone; None when a call cannot be."""
    inliner = _Inliner(helpers, graph, reserved)
    new_graph = graph.visit(inliner)
    if inliner.refused:
        return None
    body_kept = dead_locals.without_unread(list(new_graph.body.body), [], inliner.split)
    return new_graph.with_changes(body=new_graph.body.with_changes(body=body_kept))


def _names_of(init: cst.FunctionDef | None) -> frozenset[str]:
    """Every name of ``__init__`` (its parameters included): the generator holds both bodies."""
    if init is None:
        return frozenset()
    names = ScopeNames()
    tree.visit(init, names)
    return frozenset(names.all | names.bound | names.scoped)


def _into_each_other(helpers: dict[str, cst.FunctionDef]) -> dict[str, cst.FunctionDef] | None:
    """The helpers with the helpers they call inlined into them (``crop_fn`` calling
    ``self.crop(img)``), as into ``define_graph``; None where that cannot be, or they call each
    other in a cycle."""
    for _ in range(len(helpers) + 1):
        calling = [name for name, method in helpers.items() if _calls_of(method) & set(helpers)]
        if not calling:
            return helpers
        helpers = dict(helpers)
        for name in calling:
            inliner = _Inliner({k: v for k, v in helpers.items() if k != name}, helpers[name])
            done = helpers[name].visit(inliner)
            if inliner.refused or not _inlinable(done):
                return None
            helpers[name] = done
    return None


def _calls_of(method: cst.FunctionDef) -> set[str]:
    """The names ``m`` of the ``self.m(...)`` calls in ``method``."""
    finder = _SelfCalls()
    tree.visit(method, finder)
    return finder.names


class _SelfCalls(SkipsTrivia, cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        if _self_call(node):
            self.names.add(node.func.attr.value)


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
        tree.visit(init, names)
        self.init_bound = names.bound | names.scoped

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if not _self_call(original) or original.func.attr.value not in self.helpers:
            return updated
        method = self.helpers[original.func.attr.value]
        body = [s for i, s in enumerate(method.body.body) if not (i == 0 and cstutil.is_docstring(s))]
        result = single(body[0], cst.Return) if len(body) == 1 else None
        bindings = _bind(method, updated)
        inside = ScopeNames()
        tree.visit(method, inside)
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
        if value.lpar or isinstance(value, (cst.Name, cst.Call, cst.Attribute, cst.Subscript)) or literal(value):
            return value
        return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _read_only(expr: cst.BaseExpression) -> bool:
    """A name, a literal, or an attribute or item of one: the same value read once or twice, at
    the call or later in the expression that replaces it."""
    if isinstance(expr, cst.Name) or literal(expr):
        return True
    if isinstance(expr, cst.Attribute):
        return _read_only(expr.value)
    if isinstance(expr, cst.Subscript):
        return _read_only(expr.value) and all(
            isinstance(e.slice, cst.Index) and _read_only(e.slice.value) for e in expr.slice
        )
    return False


def _inlinable(method: cst.FunctionDef) -> bool:
    return not_inlinable(method) is None


def not_inlinable(method: cst.FunctionDef) -> str | None:
    """Why a method cannot be inlined as a graph helper, whatever calls it; None when it can."""
    params = method.params
    if method.decorators or method.asynchronous:
        return "a helper that is decorated or `async` is not inlined"
    if params.posonly_params or params.star_kwarg is not None or isinstance(params.star_arg, cst.Param):
        return "a helper taking `*args`, `**kwargs` or positional-only parameters is not inlined"
    if not params.params or params.params[0].name.value != "self":
        return "a helper is a method taking `self` first"
    if any(p.default is not None and not literal(p.default) for p in [*params.params, *params.kwonly_params]):
        return "a helper's defaults must be literals"
    shape = _Shape()
    tree.visit(method.body, shape)
    if shape.refused:
        return "a helper with `yield`, `global`, `nonlocal`, a nested function or class, or `super()` is not inlined"
    if in_tail_form(method) is None:
        return (
            f"`{method.name.value}` returns inside a loop, a `with` or a `try`, or before statements of its "
            "block: a helper is inlined only when each `return` ends the helper or a branch of an `if`; assign "
            "the result and return it once"
        )
    return None


class _Shape(SkipsTrivia, cst.CSTVisitor):
    """What a helper's body holds that inlining cannot carry."""

    def __init__(self) -> None:
        self.refused = False

    def _refuse(self, node) -> bool:
        self.refused = True
        return False

    visit_Yield = visit_Global = visit_Nonlocal = visit_FunctionDef = visit_ClassDef = _refuse

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == "super":
            self.refused = True


class _Reached(SkipsTrivia, cst.CSTVisitor):
    """``calls``: the attribute names each method calls as ``self.m(...)``; ``elsewhere``:
    attribute names read any other way (or anywhere else); ``defined``: static methods."""

    def __init__(self) -> None:
        self.calls: dict[str, set[str]] = {}  # method name → the `self.m(...)` it calls
        self.elsewhere: set[str] = set()
        self.defined: set[str] = set()  # names of the static methods of the module's classes
        self._functions: list[str] = []
        self._claimed: set[cst.Attribute] = set()
        self._classes: list[str] = []
        self.modules: set[str] = set()
        self.pipelines: set[str] = set()  # the module's classes deriving from `Pipeline`

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._classes.append(node.name.value)
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
        if node.name.value in self.pipelines:
            self.defined.update(s.name.value for s in body if isinstance(s, cst.FunctionDef) and _static(s))

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self._classes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append(node.name.value)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.pop()

    def visit_Call(self, node: cst.Call) -> None:
        # A method of a pipeline class (another class's `self.m()` is a use of its own `m`).
        if (
            _self_call(node)
            and len(self._functions) == 1
            and self._classes[-1:]
            and self._classes[-1] in self.pipelines
        ):
            self._claimed.add(node.func)
            self.calls.setdefault(self._functions[0], set()).add(node.func.attr.value)

    def visit_Module(self, node: cst.Module) -> None:
        """The modules the module imports at its top (``fn``, ``ops``, ``np``): ``fn.crop(...)``
        is DALI's operator, not a method ``crop`` of a class here."""
        self.modules = {
            name
            for stmt in node.body
            if isinstance(stmt, cst.SimpleStatementLine)
            for small in stmt.body
            if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar)
            for alias in small.names
            for name in [_bound_name(alias)]
            if name
        }
        bound = ScopeNames()
        for stmt in node.body:
            if not (
                isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], (cst.Import, cst.ImportFrom))
            ):
                tree.visit(stmt, bound)
        self.modules -= bound.bound | bound.scoped  # a name also bound otherwise may hold anything
        self.pipelines = _pipeline_classes(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if isinstance(node.value, cst.Name) and node.value.value in self.modules:
            return
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

    def __init__(
        self, helpers: dict[str, cst.FunctionDef], graph: cst.FunctionDef, reserved: frozenset[str] = frozenset()
    ) -> None:
        self.helpers = helpers
        self.graph = graph
        self.reserved = reserved  # names a helper's own must not take (``__init__``'s, in one generator)
        self.refused = False
        self._statement_calls: set[cst.Call] = set()
        names = ScopeNames()
        tree.visit(graph, names)
        self.graph_bound = names.bound | names.scoped
        self.helper_bound: set[str] = set()
        self._names = set(names.all) | reserved  # every name of the graph and its helpers, and those chosen
        for method in helpers.values():
            found = ScopeNames()
            tree.visit(method, found)
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
        read the same wherever ``E`` reads them (:func:`_read_only`), so that ``E`` with them in
        place is the value, evaluated alike."""
        body = [s for i, s in enumerate(method.body.body) if not (i == 0 and cstutil.is_docstring(s))]
        result = single(body[0], cst.Return) if len(body) == 1 else None
        bindings = _bind(method, call)
        if result is None or result.value is None or bindings is None:
            return None
        if not all(_read_only(v) for _, v in bindings):
            return None
        inside = ScopeNames()
        tree.visit(method, inside)
        if (inside.all - inside.bound - inside.scoped - {"self"}) & self.graph_bound:
            return None  # a name it reads from outside that `define_graph` binds
        value = result.value.visit(Substitute(dict(bindings))).deep_clone()
        if (
            value.lpar
            or isinstance(value, (cst.Name, cst.Call, cst.Attribute, cst.Subscript, cst.List, cst.Dict))
            or literal(value)
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
        tree.visit(method, inside)
        own = (inside.bound - {"self"}) | inside.scoped
        small = stmt.body[0]
        targets = _names_in([t.target for t in small.targets]) if isinstance(small, cst.Assign) else set()
        substitutions, assigned = _parameters(method, bindings, targets)
        kept_params = own - set(substitutions)
        taken = self._taken(stmt, kept_params)
        if self._clashes(inside, own, substitutions, taken):
            return None
        substitutions.update(self._fresh(kept_params, taken))
        return inlined_body(stmt, method, substitutions, assigned)

    def _taken(self, stmt: cst.SimpleStatementLine, kept_params: set[str]) -> set[str]:
        """The helper's own names (``kept_params``) that mean something else where its body goes:
        names of ``define_graph`` other than the call's targets, and :attr:`reserved` ones. They
        are renamed: a helper's locals are its own."""
        small = stmt.body[0]
        targets = _names_in([t.target for t in small.targets]) if isinstance(small, cst.Assign) else set()
        caller = ScopeNames()
        tree.visit(self.graph, _Without(stmt, caller))
        return kept_params & (((caller.all | caller.bound) - targets) | self.reserved)

    def _clashes(self, inside: ScopeNames, own: set[str], substitutions: dict, taken: set[str]) -> bool:
        """Would the helper's body (``inside``: its names; ``own``: those it binds; ``taken``:
        those to be renamed), inlined, read a name that ``define_graph`` uses for something else?"""
        free = inside.all - own - {"self"}
        passed = {v.value for v in substitutions.values() if isinstance(v, cst.Name)}
        if passed & (inside.bound - set(substitutions) - taken):
            return True  # an argument's name the helper binds for itself
        if free & (self.graph_bound | (self.helper_bound - own)):
            return True  # a name it reads from outside that `define_graph` binds
        return False

    def _fresh(self, own: set[str], taken: set[str]) -> dict[str, cst.BaseExpression]:
        """New names for the helper's own names that a body inlined before binds too: each call's
        values stay apart (``images, labels = self.load()`` twice would otherwise read its second
        reader into the names of the first, which a loop over both readers then shows as
        ``for (jpegs, labels), (jpegs, labels) in zip(...)``)."""
        renamed: dict[str, cst.BaseExpression] = {}
        for name in sorted((own & self._inlined_names) | taken):
            serial = 2
            while f"{name}_{serial}" in self._names:
                serial += 1
            renamed[name] = cst.Name(f"{name}_{serial}")
            self._names.add(f"{name}_{serial}")
        self._inlined_names |= own
        return renamed


def _parameters(
    method: cst.FunctionDef, bindings: list, targets: set[str]
) -> tuple[dict[str, cst.BaseExpression], list]:
    """Each parameter of the helper: its argument in its place where that is a name or a literal and
    the body does not bind the parameter again, else assigned first (``param = value``). A
    parameter given the caller's name of the same spelling that the call's statement binds again
    (``img, lbl = self.crop(img, lbl)``) is that name: what the body does to it, the call's result
    does to the caller's name anyway (unless another argument reads it: ``self.f(x, x)``)."""
    substitutions: dict[str, cst.BaseExpression] = {}
    assigned: list[cst.BaseStatement] = []
    for param, value in bindings:
        if (
            isinstance(value, cst.Name)
            and value.value == param
            and param in targets
            and not _read_by_others(bindings, param)
        ):
            substitutions[param] = value
        elif (isinstance(value, cst.Name) or literal(value)) and param not in _rebound(method, param):
            substitutions[param] = value
        else:
            assigned.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(param))], value)]))
    return substitutions, assigned


def _read_by_others(bindings: list, param: str) -> bool:
    """Does an argument of another parameter read the name ``param``?"""
    names = ScopeNames()
    for other, given in bindings:
        if other != param:
            tree.visit(given, names)
    return param in names.all


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
    tree.visit(method.body, names)
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


def _pipeline_classes(module: cst.Module) -> set[str]:
    """The module's top-level classes deriving from ``Pipeline`` (or ``<module>.Pipeline``), through
    its other classes or directly."""
    classes = {s.name.value: s for s in module.body if isinstance(s, cst.ClassDef)}
    found: set[str] = set()
    changed = True
    while changed:
        named = {"Pipeline", *found}
        new = {
            name
            for name, node in classes.items()
            for value in (b.value for b in node.bases)
            if (isinstance(value, cst.Name) and value.value in named)
            or (isinstance(value, cst.Attribute) and value.attr.value == "Pipeline")
        }
        changed, found = bool(new - found), found | new
    return found


def _bound_name(alias: cst.ImportAlias) -> str | None:
    """The name an import binds: its ``as`` name, else the first part of the module's name."""
    if alias.asname is not None:
        return alias.asname.name.value if isinstance(alias.asname.name, cst.Name) else None
    name = alias.name
    while isinstance(name, cst.Attribute):
        name = name.value
    return name.value if isinstance(name, cst.Name) else None


def _static(method: cst.FunctionDef) -> bool:
    return any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in method.decorators)


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
