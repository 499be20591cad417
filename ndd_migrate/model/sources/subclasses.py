"""A ``Pipeline`` base class with subclasses, flattened: each subclass read as one ``Pipeline``
subclass of its own, so NDD401 can turn each into its own generator function (docs/target-shape.md,
"A base class with subclasses").

``class Base(Pipeline)`` with ``__init__`` (the shared operators) and ``class A(Base)`` / ``class
B(Base)`` each with its own reader and ``define_graph``: a function cannot be subclassed, but each
subclass *is* a pipeline whose behaviour Python's MRO fixes. Before the analysis, each subclass is
rewritten as ``class A(Pipeline)`` holding:

- its effective ``__init__``: the most-derived one, with each ``super().__init__(...)`` call replaced
  by the next ``__init__`` of the MRO, its parameters bound to the call's arguments, ``*args`` and
  ``**kwargs`` passed up included (:mod:`ndd_migrate.model.sources.init_binding`), down to the
  base's own ``super().__init__(...)``, which stays: the pipeline settings;
- every other method in its most-derived form (``define_graph`` included).

The base class, used nowhere else in the module, disappears (its subclasses no longer need it); one
that is used otherwise (instantiated, ``isinstance``) stays as it is, a pipeline of the family.
Graph-helper methods (``images, labels = self.load()``) are inlined into each flattened class's
``define_graph`` (:mod:`ndd_migrate.model.sources.graph_methods`); a lone ``Pipeline`` subclass with such helpers is
a family of one.

The engine runs the rules on the flattened module. When a class of the family does not convert, it
runs again with that class left as it is, with the classes it derives from (:attr:`Refusal.left`),
and the others flattened; the base gets one finding naming the class left and why
(:attr:`Flattened.refused`). When nothing would be left to convert, the whole family stays as it is,
with that finding. A family that cannot be flattened at all (``*args`` filling named parameters, a name bound both
in a subclass's ``__init__`` and the one it calls, ``super()`` elsewhere) is refused the same way
without a first run.

Front end only (libcst, no metadata): the analysis decides whether the flattened classes are DALI
pipelines. Nodes of the flattened classes are the original ones wherever they are copied, so the
rewrite keeps their formatting; lines are mapped back to the original text (:meth:`Flattened.original_line`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from ndd_migrate.model.sources import graph_methods
from ndd_migrate.model.sources.init_binding import Call, Refused, bind, bound_parameters
from ndd_migrate.syntax import cstutil, tree
from ndd_migrate.syntax.cstutil import ScopeNames, SkipsTrivia, Substitute


@dataclass(eq=False)
class Family:
    """A base class deriving from ``Pipeline`` and the module's classes deriving from it."""

    root: str
    members: list[str] = field(default_factory=list)  # the classes that must all convert
    removed: list[str] = field(default_factory=list)  # bases used only as bases: gone from the flattened module
    parent: dict[str, str] = field(default_factory=dict)  # each class of the family but the root → its base


@dataclass(eq=False)
class Refusal:
    """Why a family is left as it is: reported once, at its base class."""

    about: str  # a construct or a rule's code (the engine reports it with that rule's code)
    message: str
    keeps: bool = False  # a class of the family must stay in pipeline mode (a PaddlePaddle iterator)
    hint: str = ""  # what to do, when the finding that kept the class said it
    left: frozenset[str] = frozenset()  # the classes left as they are; none named: the whole family
    member: str = ""  # of ``left``, the one the message is about
    reasons: dict = field(default_factory=dict)  # each other class of ``left`` → (code, why, keeps, hint), said at it


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
    classes, twice = _module_classes(module)
    parent, children = _bases(classes)
    out = Flattened(module, refused=refused)
    replaced: dict[str, cst.ClassDef | None] = {}
    chains: dict[cst.ClassDef, list[cst.ClassDef]] = {}  # flattened class → the classes it was made from
    helpers = _helpers(module, classes, parent)
    references: _References | None = None  # one reading of the module for every family's names
    for root in _roots(classes, parent, twice, refused):
        node = classes[root]
        if root not in children:  # a lone class: only its graph-helper methods to inline
            alone = graph_methods.inline(node, helpers) if helpers else None
            if alone is not None:
                out.families.append(Family(root, members=[root]))
                replaced[root] = alone
                chains[alone] = [node]
            continue
        family = _family(root, children)
        if twice & {root, *family}:
            continue  # a name defined twice: which one is meant is not a question for a rewrite
        if references is None:
            references = _References({name for name in classes if name in children or name in parent})
            tree.visit(module, references)
        try:
            done = _flatten_family(
                classes,
                parent,
                root,
                family,
                helpers,
                references,
                refused[root].left if root in refused else frozenset(),
            )
        except Refused as why:
            refused[root] = Refusal("pipeline subclass", str(why))
            continue
        out.families.append(done[0])
        replaced.update(done[1])
        chains.update(done[2])
    if not out.families:
        return out
    out.module = _with_classes(module, replaced)
    out._lines = _line_map(module, out.module, chains)
    return out


def _module_classes(module: cst.Module) -> tuple[dict[str, cst.ClassDef], set[str]]:
    """The module's classes by name (the last of a name), and the names defined more than once."""
    classes: dict[str, cst.ClassDef] = {}
    twice: set[str] = set()
    for stmt in module.body:
        if isinstance(stmt, cst.ClassDef):
            (twice if stmt.name.value in classes else set()).add(stmt.name.value)
            classes[stmt.name.value] = stmt
    return classes, twice


def _bases(classes: dict[str, cst.ClassDef]) -> tuple[dict[str, str], dict[str, list[str]]]:
    """Each class's base among ``classes``, and each such base's classes (in the module's order)."""
    parent: dict[str, str] = {}
    for name, node in classes.items():
        for base in node.bases:
            if isinstance(base.value, cst.Name) and base.value.value in classes and base.value.value != name:
                parent[name] = base.value.value
    children: dict[str, list[str]] = {}
    for name in classes:  # in the module's order
        if name in parent:
            children.setdefault(parent[name], []).append(name)
    return parent, children


def _roots(
    classes: dict[str, cst.ClassDef], parent: dict[str, str], twice: set[str], refused: dict[str, Refusal]
) -> list[str]:
    """The classes a family may start at: deriving from ``Pipeline``, defined once, and not left
    as they are with their whole family."""
    return [
        root
        for root, node in classes.items()
        if not (root in parent or not _derives_from_pipeline(node) or root in twice)
        and not (root in refused and not refused[root].left)
    ]


def _with_classes(module: cst.Module, replaced: dict[str, cst.ClassDef | None]) -> cst.Module:
    """``module`` with the classes of ``replaced`` flattened, or gone (None)."""
    body = []
    for stmt in module.body:
        if isinstance(stmt, cst.ClassDef) and stmt.name.value in replaced:
            new = replaced[stmt.name.value]
            if new is not None:
                body.append(new)
        else:
            body.append(stmt)
    return module.with_changes(body=body)


def failures(flat: Flattened, pipelines: dict, diagnostics: list) -> dict[str, Refusal]:
    """The flattened families of which a class did not convert → why (the finding that kept the
    first such class: one keeping it in pipeline mode first) and which classes to leave; a family
    left before keeps its first class's words, so that the finding reads the same in every pass."""
    found: dict[str, Refusal] = {}
    ordered = sorted(diagnostics, key=lambda d: (d.line, d.column))
    for family in flat.families:
        failing = [m for m in family.members if not getattr(pipelines.get(m), "convert", False)]
        if not failing:
            continue
        reasons = _reasons(family, failing, pipelines, ordered)
        found[family.root] = _family_refusal(family, failing, reasons, flat.refused.get(family.root))
    return found


def _reasons(family: Family, failing: list[str], pipelines: dict, ordered: list) -> list[tuple]:
    """(rank, member, code, why, keeps, hint) of each finding about a failing class, in the order
    of the findings (``ordered``)."""
    reasons = []
    for member in failing:
        for diag in ordered:
            for what, keeps in ((" kept in pipeline mode: ", True), (" not migrated: ", False)):
                said = _said(diag, member, what)
                if said is None:
                    continue
                why, hint = said
                # What keeps it in pipeline mode first, then a class's own problem (not a use
                # that holds several classes of the family, blocked because another one is).
                rank = (not keeps, not getattr(pipelines.get(member), "problems", None), family.members.index(member))
                reasons.append((rank, member, diag.code, why, keeps, hint))
    return reasons


def _said(diag, member: str, what: str) -> tuple[str, str] | None:
    """Why and what to do, when ``diag`` says that ``member`` is ``what`` (kept in pipeline
    mode, not migrated); else None."""
    head = f"`{member}`{what}"
    if not diag.message.startswith(head):
        return None
    why, hint = diag.message[len(head) :], ""
    said = f"{what.strip()[:-1]}: "
    if diag.hint.startswith(said + why):
        hint = diag.hint[len(said + why) :].lstrip("; ")
    elif diag.hint.startswith(said):
        # The TODO's own words (NDD008 names the use by its code: lines move
        # when TODOs are added, and a second run must find the same text).
        why = diag.hint[len(said) :]
    elif diag.hint.startswith(f"`{member}` stays in pipeline mode: "):
        why = diag.hint[len(f"`{member}` stays in pipeline mode: ") :]  # NDD008, at the use
    return why, hint


def _family_refusal(family: Family, failing: list[str], reasons: list[tuple], before: Refusal | None) -> Refusal:
    """Why ``family`` is left, in part or whole: the first reason (or ``before``'s, the pass before),
    with every other class left saying its own."""
    if reasons:
        _, member, code, why, keeps, hint = min(reasons, key=lambda r: r[0])
    else:
        member, code, why, keeps, hint = failing[0], "pipeline subclass", "it is not converted", False, ""
    left = frozenset(failing) | (before.left if before is not None else frozenset())
    own = dict(before.reasons) if before is not None else {}
    for _, other, other_code, other_why, other_keeps, other_hint in sorted(reasons, key=lambda r: r[0], reverse=True):
        if other != family.root:
            own[other] = (
                other_code,
                other_why,
                other_keeps,
                _left_hint(family.root, other, other_keeps, other_hint, other_why),
            )
    if before is not None and before.left:  # the first class left says why, as before
        code, why, keeps, hint, member = before.about, before.message, before.keeps, before.hint, before.member
    else:
        if member != family.root:
            why = f"its subclass `{member}`: {why}"
        hint = _left_hint(family.root, member, keeps, hint, why)
    own.pop(member, None)
    for name in sorted(_with_bases(left, family.parent) - left - {family.root}):  # kept for the class below it
        below = next(m for m in sorted(left) if name in _with_bases([m], family.parent))
        code_below, _, keeps_below, hint_below = own.get(below) or (code, why, keeps, hint)
        own.setdefault(name, (code_below, f"`{below}` derives from it, and stays as it is", keeps_below, hint_below))
    # The others convert where some class is neither left nor above one that is.
    partly = bool(set(family.members) - _with_bases(left, family.parent))
    return Refusal(code, why, keeps, hint, left if partly else frozenset(), member, own if partly else {})


def _with_bases(names, parent: dict[str, str]) -> set[str]:
    """``names`` and the classes above them in the family (a class left as it is needs its bases)."""
    found: set[str] = set()
    for name in names:
        while name is not None and name not in found:
            found.add(name)
            name = parent.get(name)
    return found


def _left_hint(root: str, member: str, keeps: bool, hint: str, why: str) -> str:
    """What to do about a class of the family left as it is: the same words whether its siblings
    converted or not (a second run, with the converted ones gone, must find the same TODO)."""
    if member == root:
        return hint
    stays = f"`{member}` stays a subclass of `{root}`, with the classes it derives from"
    if keeps:
        return f"{hint}; {stays}" if hint else stays
    if why.endswith("run ndd-migrate again"):  # the finding's own words say what to do
        return f"until then {stays}"
    return f"fix this (or write `{member}` as one `Pipeline` subclass of its own), then run ndd-migrate again; until then {stays}"


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


def _helpers(module: cst.Module, classes: dict[str, cst.ClassDef], parent: dict[str, str]) -> frozenset[str]:
    """The methods of the module that may be inlined as graph helpers; the module is read for them
    only when a class deriving from ``Pipeline`` (or from one that does) has a method pipeline mode
    does not call itself."""

    def pipeline_class(name: str) -> bool:
        seen = {name}
        while name in parent and parent[name] not in seen:  # (a cycle of bases is not Python's to run)
            name = parent[name]
            seen.add(name)
        return _derives_from_pipeline(classes[name])

    if not any(
        isinstance(stmt, cst.FunctionDef) and stmt.name.value not in graph_methods.PIPELINE_METHODS
        for name, node in classes.items()
        if isinstance(node.body, cst.IndentedBlock) and pipeline_class(name)
        for stmt in node.body.body
    ):
        return frozenset()
    return graph_methods.helper_names(module)


def _flatten_family(
    classes, parent, root, family, helpers, references, left: frozenset[str]
) -> tuple[Family, dict, dict]:
    """``left``: classes of the family that stay as they are (with the classes above them, which
    they still derive from); the others are flattened. ``references``: how the module reads the
    names of every family (:class:`_References`)."""
    out = Family(root)
    replaced: dict[str, cst.ClassDef | None] = {}
    chains: dict[cst.ClassDef, list[cst.ClassDef]] = {}
    has_children = {parent[name] for name in family}
    out.parent = {name: parent[name] for name in family}
    staying = _with_bases(left, out.parent)
    for name in [root, *family]:
        node = classes[name]
        if node.decorators:
            raise Refused(f"`{name}` is decorated: the decorator expects a class")
        if name != root and (len(node.bases) != 1 or node.keywords):
            raise Refused(f"`{name}` has bases other than `{parent[name]}`")
        if name in staying:
            continue
        used = references.other.get(name, 0) > 0
        if name in has_children and not used:
            out.removed.append(name)
            replaced[name] = None
            continue
        out.members.append(name)
        chain = [name]
        while chain[-1] != root:
            chain.append(parent[chain[-1]])
        made = _flattened_class([classes[c] for c in chain], classes[root].bases[0]) if name != root else classes[root]
        made = graph_methods.inline(made, helpers) or made
        if made is not classes[name]:
            replaced[name] = made
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
            elif not (index == 0 and cstutil.is_docstring(stmt)) and not _is_pass(stmt):
                raise Refused(f"`{node.name.value}` has class-level statements: each subclass would need them")
    for name, method in methods.items():
        if name != "__init__" and _mentions(method, "super"):
            raise Refused(f"`{name}` calls `super()`: only `__init__` can be followed up the classes")
    init_owner = next((i for i, node in enumerate(chain) if _method(node, "__init__") is not None), None)
    if init_owner is not None:
        init = _effective_init(chain, init_owner, _other_methods(chain))
        methods["__init__"] = init if init_owner == 0 else init.deep_clone()
    own = chain[0]
    head = (
        [own.body.body[0]]
        if isinstance(own.body, cst.IndentedBlock) and own.body.body and cstutil.is_docstring(own.body.body[0])
        else []
    )
    return own.with_changes(
        bases=[pipeline_base.with_changes(comma=cst.MaybeSentinel.DEFAULT)],
        body=own.body.with_changes(body=[*head, *methods.values()]),
    )


def _other_methods(chain: list[cst.ClassDef]) -> list[cst.FunctionDef]:
    """Every method of the classes but their ``__init__``s."""
    return [
        stmt
        for node in chain
        for stmt in (node.body.body if isinstance(node.body, cst.IndentedBlock) else ())
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value != "__init__"
    ]


def _method(node: cst.ClassDef, name: str) -> cst.FunctionDef | None:
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    return next((s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == name), None)


def _effective_init(chain: list[cst.ClassDef], index: int, others: list[cst.FunctionDef]) -> cst.FunctionDef:
    """``chain[index]``'s ``__init__`` with its ``super().__init__(...)`` replaced by the body of the
    next ``__init__`` up the chain (recursively); the topmost one's call reaches ``Pipeline``.
    ``others``: the other methods of the classes (where a dict passed up may be changed)."""
    node = chain[index]
    init = _method(node, "__init__")
    upper = next((i for i in range(index + 1, len(chain)) if _method(chain[i], "__init__") is not None), None)
    if upper is None:
        return init  # its `super().__init__(...)` is Pipeline's: the pipeline settings
    owner, upper_owner = node.name.value, chain[upper].name.value
    at = _super_call_at(init, owner, chain[index + 1].name.value)
    above = _effective_init(chain, upper, others)
    call = _expr_call(init.body.body[at])
    explicit = not (isinstance(call.func.value, cst.Call))  # `Base.__init__(self, ...)`
    args = list(call.args[1:] if explicit else call.args)
    bindings, rebinds = bind(above, args, upper_owner, Call(init, owner, init.body.body[at + 1 :], others))
    after = list(init.body.body[at + 1 :])
    child_names, rebound = _names_of_both(init, above, (owner, upper_owner), bindings, after)
    mentioned = ScopeNames()
    tree.visit(above.body, mentioned)
    stmts, substitutions = bound_parameters(
        bindings, rebinds, child_names, (owner, upper_owner), rebound, mentioned.all
    )
    body = list(above.body.body)
    if body and cstutil.is_docstring(body[0]):
        body = body[1:]
    body = [stmt.visit(Substitute(substitutions)).deep_clone() for stmt in body]
    inlined = [*stmts, *body]
    if inlined:
        first = inlined[0]
        super_stmt = init.body.body[at]
        inlined[0] = first.with_changes(leading_lines=[*super_stmt.leading_lines, *getattr(first, "leading_lines", ())])
    new_body = [*init.body.body[:at], *inlined, *init.body.body[at + 1 :]]
    return init.with_changes(body=init.body.with_changes(body=new_body))


def _super_call_at(init: cst.FunctionDef, owner: str, next_class: str) -> int:
    """The statement of ``init`` that calls the next ``__init__`` up: one, and ``super()`` used
    for nothing else."""
    calls = [i for i, stmt in enumerate(init.body.body) if _super_init(stmt, owner, next_class)]
    if len(calls) != 1:
        raise Refused(f"`{owner}.__init__` must call `super().__init__(...)` once, as a statement of its own")
    if _mentions(init.body.with_changes(body=[s for i, s in enumerate(init.body.body) if i != calls[0]]), "super"):
        raise Refused(f"`{owner}.__init__` uses `super()` other than to call `__init__`")
    return calls[0]


def _names_of_both(
    init: cst.FunctionDef, above: cst.FunctionDef, owners: tuple[str, str], bindings: list, after: list
) -> tuple[ScopeNames, set[str]]:
    """The names of ``init``, once no name of it and of ``above`` (the body it takes in, its
    parameters aside) would meet in one body; and the parameters ``above`` assigns again, which
    must be assigned first (``param = value``), not replaced by their values. One passed as the
    child's name of its own (``crop`` for ``crop``) is handed over: the child must not read it
    after the call (``after``)."""
    owner, upper_owner = owners
    child_names = ScopeNames()
    tree.visit(init, child_names)
    upper_names = ScopeNames()
    tree.visit(above.body, upper_names)
    upper_params = {p.name.value for p in cstutil.all_params(above.params)}
    if upper_names.scoped & upper_params:
        raise Refused(f"`{upper_owner}.__init__` rebinds one of its parameters in a nested scope")
    rebound = upper_names.bound & upper_params
    handed = {p for p, v in bindings if p in rebound and isinstance(v, cst.Name) and v.value == p}
    later = ScopeNames()
    for stmt in after:
        tree.visit(stmt, later)
    if handed & later.all:
        raise Refused(
            f"`{upper_owner}.__init__` assigns its parameter `{sorted(handed & later.all)[0]}` again, "
            f"and `{owner}.__init__` reads its own after the call"
        )
    clash = (upper_names.bound - handed) & child_names.all | (child_names.bound & (upper_names.all - upper_params))
    if clash:
        raise Refused(
            f"`{sorted(clash)[0]}` is a name of both `{owner}.__init__` and `{upper_owner}.__init__`: "
            "one body cannot hold both"
        )
    return child_names, rebound - handed


def _super_init(stmt, owner: str, next_class: str) -> bool:
    """``super().__init__(...)``, ``super(<owner>, self).__init__(...)`` or ``<next_class>.__init__(self, ...)``."""
    call = _expr_call(stmt)
    if call is None or not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "__init__"):
        return False
    up = call.func.value
    if isinstance(up, cst.Call) and isinstance(up.func, cst.Name) and up.func.value == "super":
        return not up.args or (
            len(up.args) == 2
            and isinstance(up.args[0].value, cst.Name)
            and up.args[0].value.value == owner
            and isinstance(up.args[1].value, cst.Name)
            and up.args[1].value.value == "self"
        )
    return (
        isinstance(up, cst.Name)
        and up.value == next_class
        and bool(call.args)
        and isinstance(call.args[0].value, cst.Name)
        and call.args[0].value.value == "self"
    )


def _expr_call(stmt) -> cst.Call | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr):
        value = stmt.body[0].value
        return value if isinstance(value, cst.Call) else None
    return None


def _mentions(node: cst.CSTNode, name: str) -> bool:
    finder = _Finder(name)
    tree.visit(node, finder)
    return finder.found


class _Finder(SkipsTrivia, cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        self.name = name
        self.found = False

    def visit_Name(self, node: cst.Name) -> None:
        self.found = self.found or node.value == self.name


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
