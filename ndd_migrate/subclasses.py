"""A ``Pipeline`` base class with subclasses, flattened: each subclass read as one ``Pipeline``
subclass of its own, so NDD401 can turn each into its own generator function (docs/target-shape.md,
"A base class with subclasses").

``class Base(Pipeline)`` with ``__init__`` (the shared operators) and ``class A(Base)`` / ``class
B(Base)`` each with its own reader and ``define_graph``: a function cannot be subclassed, but each
subclass *is* a pipeline whose behaviour Python's MRO fixes. Before the analysis, each subclass is
rewritten as ``class A(Pipeline)`` holding:

- its effective ``__init__``: the most-derived one, with each ``super().__init__(...)`` call replaced
  by the next ``__init__`` of the MRO, its parameters bound to the call's arguments (down to the
  base's own ``super().__init__(...)``, which stays: the pipeline settings);
- every other method in its most-derived form (``define_graph`` included).

The base class, used nowhere else in the module, disappears (its subclasses no longer need it); one
that is used otherwise (instantiated, ``isinstance``) stays as it is, a pipeline of the family.

All or none: the engine runs the rules on the flattened module and keeps that result only when
every class of the family converts. Otherwise it runs again on the original module with the family
left as it is, and the base gets one finding naming the class that did not convert and why
(:attr:`Flattened.refused`). A family that cannot be flattened at all (``*args`` passed up, a
name bound both in a subclass's ``__init__`` and the one it calls, ``super()`` elsewhere) is
refused the same way without a first run.

Front end only (libcst, no metadata): the analysis decides whether the flattened classes are DALI
pipelines. Nodes of the flattened classes are the original ones wherever they are copied, so the
rewrite keeps their formatting; lines are mapped back to the original text (:meth:`Flattened.original_line`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from ndd_migrate.cstutil import SkipsTrivia, VisitsBindings


@dataclass(eq=False)
class Family:
    """A base class deriving from ``Pipeline`` and the module's classes deriving from it."""

    root: str
    members: list[str] = field(default_factory=list)  # the classes that must all convert
    removed: list[str] = field(default_factory=list)  # bases used only as bases: gone from the flattened module


@dataclass(eq=False)
class Refusal:
    """Why a family is left as it is: reported once, at its base class."""

    about: str  # a construct or a rule's code (the engine reports it with that rule's code)
    message: str
    keeps: bool = False  # a class of the family must stay in pipeline mode (a PaddlePaddle iterator)
    hint: str = ""  # what to do, when the finding that kept the class said it


@dataclass(eq=False)
class Flattened:
    module: cst.Module
    families: list[Family] = field(default_factory=list)  # flattened in ``module``
    refused: dict[str, Refusal] = field(default_factory=dict)  # base class name → why it is left
    _lines: list[int] | None = None  # line of ``module`` (from 1) → line of the original text

    def original_line(self, line: int) -> int:
        if self._lines is None or not 1 <= line <= len(self._lines):
            return line
        return self._lines[line - 1]


def flatten(module: cst.Module, refused: dict[str, Refusal] | None = None) -> Flattened:
    """``module`` with each family not in ``refused`` flattened (the same module when there is none)."""
    refused = dict(refused or {})
    classes: dict[str, cst.ClassDef] = {}
    twice: set[str] = set()
    for stmt in module.body:
        if isinstance(stmt, cst.ClassDef):
            (twice if stmt.name.value in classes else set()).add(stmt.name.value)
            classes[stmt.name.value] = stmt
    parent: dict[str, str] = {}
    for name, node in classes.items():
        for base in node.bases:
            if isinstance(base.value, cst.Name) and base.value.value in classes and base.value.value != name:
                parent[name] = base.value.value
    children: dict[str, list[str]] = {}
    for name in classes:  # in the module's order
        if name in parent:
            children.setdefault(parent[name], []).append(name)
    out = Flattened(module, refused=refused)
    replaced: dict[str, cst.ClassDef | None] = {}
    chains: dict[cst.ClassDef, list[cst.ClassDef]] = {}  # flattened class → the classes it was made from
    for root, node in classes.items():
        if root in parent or root not in children or not _derives_from_pipeline(node) or root in refused:
            continue
        family = _family(root, children)
        if twice & {root, *family}:
            continue  # a name defined twice: which one is meant is not a question for a rewrite
        try:
            done = _flatten_family(module, classes, parent, root, family)
        except _Refused as why:
            refused[root] = Refusal("pipeline subclass", str(why))
            continue
        out.families.append(done[0])
        replaced.update(done[1])
        chains.update(done[2])
    if not out.families:
        return out
    body = []
    for stmt in module.body:
        if isinstance(stmt, cst.ClassDef) and stmt.name.value in replaced:
            new = replaced[stmt.name.value]
            if new is not None:
                body.append(new)
        else:
            body.append(stmt)
    out.module = module.with_changes(body=body)
    out._lines = _line_map(module, out.module, chains)
    return out


def failures(flat: Flattened, pipelines: dict, diagnostics: list) -> dict[str, Refusal]:
    """The flattened families of which a class did not convert → why (the finding that kept the
    first such class: one keeping it in pipeline mode first)."""
    found: dict[str, Refusal] = {}
    ordered = sorted(diagnostics, key=lambda d: (d.line, d.column))
    for family in flat.families:
        failing = [m for m in family.members if not getattr(pipelines.get(m), "convert", False)]
        if not failing:
            continue
        reasons = []
        for member in failing:
            for diag in ordered:
                for what, keeps in ((" kept in pipeline mode: ", True), (" not migrated: ", False)):
                    head = f"`{member}`{what}"
                    if diag.message.startswith(head):
                        why, hint = diag.message[len(head):], ""
                        said = f"{what.strip()[:-1]}: "
                        if diag.hint.startswith(said + why):
                            hint = diag.hint[len(said + why):].lstrip("; ")
                        elif diag.hint.startswith(said):
                            # The TODO's own words (NDD008 names the use by its code: lines move
                            # when TODOs are added, and a second run must find the same text).
                            why = diag.hint[len(said):]
                            hint = f"the subclasses of `{family.root}` become generator functions together or not at all"
                        # What keeps it in pipeline mode first, then a class's own problem (not a use
                        # that holds several classes of the family, blocked because another one is).
                        rank = (not keeps, not getattr(pipelines.get(member), "problems", None), family.members.index(member))
                        reasons.append((rank, member, diag.code, why, keeps, hint))
        if reasons:
            _, member, code, why, keeps, hint = min(reasons, key=lambda r: r[0])
        else:
            member, code, why, keeps, hint = failing[0], "pipeline subclass", "it is not converted", False, ""
        prefix = "" if member == family.root else f"its subclass `{member}`: "
        found[family.root] = Refusal(code, prefix + why, keeps, hint if keeps or not prefix or hint.startswith("the subclasses") else "")
    return found


class _Refused(Exception):
    """Why a family cannot be flattened."""


def _derives_from_pipeline(node: cst.ClassDef) -> bool:
    return len(node.bases) == 1 and _pipeline_name(node.bases[0].value) and not node.keywords


def _pipeline_name(expr: cst.BaseExpression) -> bool:
    """``Pipeline`` or ``<module>.Pipeline``: whether it is DALI's, the analysis decides."""
    return (isinstance(expr, cst.Name) and expr.value == "Pipeline") or (
        isinstance(expr, cst.Attribute) and expr.attr.value == "Pipeline"
    )


def _family(root: str, children: dict[str, list[str]]) -> list[str]:
    found, todo = [], list(children[root])
    while todo:
        name = todo.pop(0)
        found.append(name)
        todo.extend(children.get(name, ()))
    return found


def _flatten_family(module, classes, parent, root, family) -> tuple[Family, dict, dict]:
    references = _References({root, *family})
    module.visit(references)
    out = Family(root)
    replaced: dict[str, cst.ClassDef | None] = {}
    chains: dict[cst.ClassDef, list[cst.ClassDef]] = {}
    has_children = {parent[name] for name in family}
    for name in [root, *family]:
        node = classes[name]
        if node.decorators:
            raise _Refused(f"`{name}` is decorated: the decorator expects a class")
        if name != root and (len(node.bases) != 1 or node.keywords):
            raise _Refused(f"`{name}` has bases other than `{parent[name]}`")
        used = references.other.get(name, 0) > 0
        if name in has_children and not used:
            out.removed.append(name)
            replaced[name] = None
            continue
        out.members.append(name)
        if name != root:
            chain = [name]
            while chain[-1] != root:
                chain.append(parent[chain[-1]])
            made = replaced[name] = _flattened_class([classes[c] for c in chain], classes[root].bases[0])
            chains[made] = [classes[c] for c in chain]
    return out, replaced, chains


class _References(SkipsTrivia, cst.CSTVisitor):
    """How often each of ``names`` is read other than as a family class's base, its own ``class``
    name or the first argument of ``super(X, self)``."""

    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.skip: set[cst.Name] = set()
        self.other: dict[str, int] = {}

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if node.name.value in self.names:
            self.skip.add(node.name)
            for base in node.bases:
                if isinstance(base.value, cst.Name):
                    self.skip.add(base.value)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "super" and node.args:
            if isinstance(node.args[0].value, cst.Name):
                self.skip.add(node.args[0].value)
        # `Base.__init__(self, ...)` in a subclass: a call up the MRO, resolved by the flattening.
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "__init__" and isinstance(func.value, cst.Name):
            self.skip.add(func.value)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.skip.add(node.attr)

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.skip.add(node.keyword)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.names and node not in self.skip:
            self.other[node.value] = self.other.get(node.value, 0) + 1


def _flattened_class(chain: list[cst.ClassDef], pipeline_base: cst.Arg) -> cst.ClassDef:
    """``class <chain[0]>(Pipeline)`` with the effective methods of ``chain`` (most-derived first)."""
    methods: dict[str, cst.FunctionDef] = {}
    for node in reversed(chain):  # the base first: a subclass's method replaces it, in its place
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
        for index, stmt in enumerate(body):
            if isinstance(stmt, cst.FunctionDef):
                # A base's method is copied into each subclass: nodes of its own in each (the
                # analysis and the rules know a node's pipeline by the node).
                methods[stmt.name.value] = stmt if node is chain[0] else stmt.deep_clone()
            elif not (index == 0 and _is_docstring(stmt)) and not _is_pass(stmt):
                raise _Refused(f"`{node.name.value}` has class-level statements: each subclass would need them")
    for name, method in methods.items():
        if name != "__init__" and _mentions(method, "super"):
            raise _Refused(f"`{name}` calls `super()`: only `__init__` can be followed up the classes")
    init_owner = next((i for i, node in enumerate(chain) if _method(node, "__init__") is not None), None)
    if init_owner is not None:
        init = _effective_init(chain, init_owner)
        methods["__init__"] = init if init_owner == 0 else init.deep_clone()
    own = chain[0]
    head = [own.body.body[0]] if isinstance(own.body, cst.IndentedBlock) and own.body.body and _is_docstring(own.body.body[0]) else []
    return own.with_changes(
        bases=[pipeline_base.with_changes(comma=cst.MaybeSentinel.DEFAULT)],
        body=own.body.with_changes(body=[*head, *methods.values()]),
    )


def _method(node: cst.ClassDef, name: str) -> cst.FunctionDef | None:
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    return next((s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == name), None)


def _effective_init(chain: list[cst.ClassDef], index: int) -> cst.FunctionDef:
    """``chain[index]``'s ``__init__`` with its ``super().__init__(...)`` replaced by the body of the
    next ``__init__`` up the chain (recursively); the topmost one's call reaches ``Pipeline``."""
    node = chain[index]
    init = _method(node, "__init__")
    upper = next((i for i in range(index + 1, len(chain)) if _method(chain[i], "__init__") is not None), None)
    if upper is None:
        return init  # its `super().__init__(...)` is Pipeline's: the pipeline settings
    owner = node.name.value
    calls = [i for i, stmt in enumerate(init.body.body) if _super_init(stmt, owner, chain[index + 1].name.value)]
    if len(calls) != 1:
        raise _Refused(f"`{owner}.__init__` must call `super().__init__(...)` once, as a statement of its own")
    if _mentions(init.body.with_changes(body=[s for i, s in enumerate(init.body.body) if i != calls[0]]), "super"):
        raise _Refused(f"`{owner}.__init__` uses `super()` other than to call `__init__`")
    above = _effective_init(chain, upper)
    call = _expr_call(init.body.body[calls[0]])
    explicit = not (isinstance(call.func.value, cst.Call))  # `Base.__init__(self, ...)`
    args = list(call.args[1:] if explicit else call.args)
    bindings = _bind(above, args, chain[upper].name.value)
    child_names = _Names()
    init.visit(child_names)
    upper_names = _Names()
    above.body.visit(upper_names)
    upper_params = {p.name.value for p in [*above.params.params, *above.params.kwonly_params]}
    clash = upper_names.bound & child_names.all | (child_names.bound & (upper_names.all - upper_params))
    if (upper_names.bound | upper_names.scoped) & upper_params:
        raise _Refused(f"`{chain[upper].name.value}.__init__` rebinds one of its parameters")
    if clash:
        raise _Refused(
            f"`{sorted(clash)[0]}` is a name of both `{owner}.__init__` and `{chain[upper].name.value}.__init__`: "
            "one body cannot hold both"
        )
    stmts, substitutions = [], {}
    for param, value in bindings:
        if isinstance(value, cst.Name) and value.value == param:
            continue
        if isinstance(value, (cst.Name, cst.SimpleString, cst.Integer, cst.Float)):
            substitutions[param] = value
        elif param in child_names.all:
            raise _Refused(f"`{param}` of `{chain[upper].name.value}.__init__` is also a name of `{owner}.__init__`")
        else:
            stmts.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(param))], value)]))
    body = list(above.body.body)
    if body and _is_docstring(body[0]):
        body = body[1:]
    body = [stmt.visit(_Substitute(substitutions)).deep_clone() for stmt in body]
    inlined = [*stmts, *body]
    if inlined:
        first = inlined[0]
        super_stmt = init.body.body[calls[0]]
        inlined[0] = first.with_changes(leading_lines=[*super_stmt.leading_lines, *getattr(first, "leading_lines", ())])
    new_body = [*init.body.body[:calls[0]], *inlined, *init.body.body[calls[0] + 1:]]
    return init.with_changes(body=init.body.with_changes(body=new_body))


def _bind(init: cst.FunctionDef, args: list[cst.Arg], owner: str) -> list[tuple[str, cst.BaseExpression]]:
    """``init``'s parameters (``self`` left out) → the arguments of the call, or their defaults."""
    params = init.params
    if params.posonly_params or isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None:
        raise _Refused(f"`{owner}.__init__` takes `*args`, `**kwargs` or positional-only parameters")
    positional = list(params.params[1:])
    every = {p.name.value: p for p in [*positional, *params.kwonly_params]}
    given: dict[str, cst.BaseExpression] = {}
    for position, arg in enumerate(args):
        if arg.star:
            raise _Refused(f"`*`/`**` arguments passed to `{owner}.__init__` cannot be bound")
        if arg.keyword is None:
            if position >= len(positional):
                raise _Refused(f"too many arguments passed to `{owner}.__init__`")
            given[positional[position].name.value] = arg.value
        elif arg.keyword.value in every and arg.keyword.value not in given:
            given[arg.keyword.value] = arg.value
        else:
            raise _Refused(f"`{arg.keyword.value}=` does not name one parameter of `{owner}.__init__`")
    out = []
    for name, param in every.items():
        value = given.get(name, param.default)
        if value is None:
            raise _Refused(f"`{name}` of `{owner}.__init__` is not given")
        if name not in given and not _constant(value):
            raise _Refused(f"the default of `{name}` in `{owner}.__init__` is evaluated once, not at each call")
        out.append((name, value))
    return out


def _constant(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, (cst.SimpleString, cst.Integer, cst.Float)) or (
        isinstance(expr, cst.Name) and expr.value in ("None", "True", "False")
    )


class _Substitute(SkipsTrivia, cst.CSTTransformer):
    """Parameter names read → the value they were given (attribute names and keywords left alone)."""

    def __init__(self, values: dict[str, cst.BaseExpression]) -> None:
        self.values = values

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self.values.get(original.value, updated)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        return updated.with_changes(attr=original.attr)

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(keyword=original.keyword)


class _Names(VisitsBindings, SkipsTrivia, cst.CSTVisitor):
    """Every name read or bound (attribute names and keywords left out), and those bound;
    ``scoped``: bound in a nested function, class, lambda or comprehension, or by ``global``."""

    def __init__(self) -> None:
        self.all: set[str] = set()
        self.bound: set[str] = set()
        self.scoped: set[str] = set()
        self._skip: set[cst.Name] = set()
        self._depth = 0

    def _bind(self, target) -> None:
        if isinstance(target, cst.Name):
            (self.bound if self._depth == 0 else self.scoped).add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value)

    def visit_Param(self, node: cst.Param) -> None:
        self.bound.add(node.name.value) if self._depth == 0 else self.scoped.add(node.name.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self.all or self.bound:  # a def nested in the one visited
            self._bind(node.name)
            self._depth += 1
        self._skip.add(node.name)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self._depth:
            self._depth -= 1

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._bind(node.name)
        self._depth += 1

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self._depth -= 1

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._depth += 1

    def leave_Lambda(self, node: cst.Lambda) -> None:
        self._depth -= 1

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._depth += 1
        self._bind(node.target)
        self._depth -= 1

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is None:
            name = node.name
            while isinstance(name, cst.Attribute):
                name = name.value
            self._bind(name)

    def visit_Global(self, node: cst.Global) -> None:
        self.scoped.update(n.name.value for n in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.scoped.update(n.name.value for n in node.names)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._skip.add(node.attr)

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._skip.add(node.keyword)

    def visit_Name(self, node: cst.Name) -> None:
        if node not in self._skip:
            self.all.add(node.value)


def _super_init(stmt, owner: str, next_class: str) -> bool:
    """``super().__init__(...)``, ``super(<owner>, self).__init__(...)`` or ``<next_class>.__init__(self, ...)``."""
    call = _expr_call(stmt)
    if call is None or not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "__init__"):
        return False
    up = call.func.value
    if isinstance(up, cst.Call) and isinstance(up.func, cst.Name) and up.func.value == "super":
        return not up.args or (
            len(up.args) == 2 and isinstance(up.args[0].value, cst.Name) and up.args[0].value.value == owner
            and isinstance(up.args[1].value, cst.Name) and up.args[1].value.value == "self"
        )
    return (
        isinstance(up, cst.Name) and up.value == next_class and bool(call.args)
        and isinstance(call.args[0].value, cst.Name) and call.args[0].value.value == "self"
    )


def _expr_call(stmt) -> cst.Call | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr):
        value = stmt.body[0].value
        return value if isinstance(value, cst.Call) else None
    return None


def _mentions(node: cst.CSTNode, name: str) -> bool:
    finder = _Finder(name)
    node.visit(finder)
    return finder.found


class _Finder(SkipsTrivia, cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        self.name = name
        self.found = False

    def visit_Name(self, node: cst.Name) -> None:
        self.found = self.found or node.value == self.name


def _is_docstring(stmt) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _is_pass(stmt) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(isinstance(s, cst.Pass) for s in stmt.body)


def _line_map(old: cst.Module, new: cst.Module, chains: dict) -> list[int]:
    """Each line of ``new`` → the line of ``old`` it comes from. A statement of ``old`` keeps its
    lines; a flattened class's lines are those of the classes it was made from (its own first),
    and a line none of them has (``class A(Pipeline):``) is its own ``class`` line."""
    starts: dict[cst.CSTNode, int] = {}
    line = 1 + len(old.header)
    for stmt in old.body:
        starts[stmt] = line
        line += old.code_for_node(stmt).count("\n")
    lines = [1] * len(old.header)
    for stmt in new.body:
        code = new.code_for_node(stmt).split("\n")[:-1]
        if stmt in starts:
            lines.extend(range(starts[stmt], starts[stmt] + len(code)))
            continue
        # Each line of text → where it is in the classes (the subclass's own first: its methods win).
        where: dict[str, list[int]] = {}
        for made_from in chains[stmt]:
            for offset, text in enumerate(old.code_for_node(made_from).split("\n")[:-1]):
                where.setdefault(text, []).append(starts[made_from] + offset)
        own = chains[stmt][0]
        class_line = starts[own] + len(own.leading_lines) + len(own.lines_after_decorators)
        lines.extend(where[text].pop(0) if where.get(text) else class_line for text in code)
    return lines
