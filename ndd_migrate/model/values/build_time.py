"""Statements of a graph function that act outside it: run once in pipeline mode, once per batch in
the generator.

Pipeline mode runs a ``@pipeline_def`` body (a legacy ``define_graph``) once, when the pipeline is
built; the generator of docs/target-shape.md runs it for every batch. A statement of the body that
only computes graph values or local names means the same either way, but one that acts on
something outside the function -- ``print(...)``, ``CALLS.append(...)``, ``self.count += 1``,
``counter += 1`` on a ``global`` -- would act once per batch. Such a statement (at the top of the
body) that depends on no graph value and on no name the body binds otherwise runs once, before the
loop (:attr:`Placement.hoisted`); one that does cannot be moved and blocks the conversion, but for
a ``print`` of graph nodes themselves (``print(images)``, ``print("hq", type(hq))``): what it printed
was the node (``DataNode(name=..., source=...)``: no data), which dynamic mode has no counterpart for,
so it is dropped with a note (:attr:`Placement.dropped`) rather than run for every batch.

A block of the body (``if verbose: print(...)``, ``for`` / ``while`` / ``with`` / ``try``) that holds
such a statement anywhere inside it is one unit: it moves before the loop as a whole, or blocks.
It moves only when it depends on no graph value and binds no name a statement left in the loop
binds too (a block that also builds graph values cannot run once).

A value computed from what the graph is built with (``dali_device = "cpu" if dali_cpu else "gpu"``,
``size = crop * 2``: an assignment whose names are bound nowhere else in the body, calling nothing
and making no mutable object) runs once, before the loop, too, unless it reads a name the loop
binds: pipeline mode computed it once, and a statement that acts outside the function and reads it
(``print("on", dali_device)``) may then run once as well.

A method called on a dict, list or set that the body makes anew (``flips = {...}``, then
``flips.update({...})`` under a build-time ``if``) is no act outside: the object is the body's own,
made once per run of the body in either mode (:func:`_fresh_locals`).
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import Assignment

from ndd_migrate.syntax import cstutil, tree
from ndd_migrate.syntax.cstutil import SkipsTrivia, VisitsBindings


@dataclass
class Placement:
    hoisted: set[int] = field(default_factory=set)  # indices in the body: run once, before the loop
    problems: list[tuple[cst.CSTNode, str]] = field(default_factory=list)  # (statement, why)
    dropped: dict[int, str] = field(default_factory=dict)  # index in the body → the note that says why


def place(
    body,
    is_op_call: Callable[[cst.Call], bool],
    once: frozenset[int] = frozenset(),
    builtin: Callable[[cst.Name], bool] | None = None,
    is_draw: Callable[[cst.Call], bool] | None = None,
) -> Placement:
    """Where each top-level statement of ``body`` that acts outside the function runs; ``is_op_call``
    tells the calls that build the graph (``fn.*``, a legacy operator object) from other calls;
    ``once`` holds the indices of statements the conversion already runs once, before the loop;
    ``builtin`` tells a name that is the builtin of that name (nothing shadows it): without it no
    ``print`` of graph nodes is dropped; ``is_draw`` tells a draw of Python's or numpy's random
    generators (``random.choice(...)``), which a value may make (:func:`_value`)."""
    found = Placement()
    declared = {
        n.name.value
        for stmt in body
        for small in _smalls(stmt)
        if isinstance(small, (cst.Global, cst.Nonlocal))
        for n in small.names
    }
    fresh = _fresh_locals(body)
    single = _bound_once(body)
    kinds = [_value(stmt, single, is_draw) or _kind(stmt, declared, is_op_call, fresh) for stmt in body]
    per_batch = _loop_names(body, kinds, is_op_call, once)
    for index, (stmt, kind) in enumerate(zip(body, kinds)):
        if kind is None:
            continue
        if kind == "value":  # left in the loop by _loop_names where it depends on the loop
            found.hoisted.add(index)
            continue
        if kind == "declaration" or not _depends(stmt, per_batch, is_op_call):
            rebound = _Names.of(stmt).bound & per_batch if kind in ("block", "block store") else set()
            if rebound:
                found.problems.append((stmt, _why(stmt, rebound)))
            else:
                found.hoisted.add(index)
        elif builtin is not None and _prints_nodes(body, index, per_batch, is_op_call, builtin):
            found.dropped[index] = _why_dropped(stmt)
        else:
            found.problems.append((stmt, _why(stmt)))
    return found


def _prints_nodes(body, index: int, per_batch: set[str], is_op_call, builtin: Callable[[cst.Name], bool]) -> bool:
    """Is ``body[index]`` a lone builtin ``print(...)`` whose every value of the loop is a graph node
    as it is (``images``) or its type (``type(images)``), among values known when the graph was built?

    A node is a name every binding of which in the body is a statement ``name = fn.op(...)`` (or
    ``a, b = fn.op(...)``) of its own, one of them before the ``print``: the value the ``print``
    read was that node, and ``str()`` of a ``DataNode`` reads its name, device and operator, no data
    (``data_node.py``). Anything else about the data (``images.shape``, ``images + 1``) is not one."""
    call = _lone_call(body[index])
    if call is None or not _called(call, "print", builtin) or calls_op(body[index], is_op_call):
        return False
    nodes = _node_names(body, index, is_op_call)
    shown = 0
    for arg in call.args:
        value = arg.value
        if _called(value, "type", builtin) and len(value.args) == 1 and not value.args[0].keyword:
            value = value.args[0].value if not value.args[0].star else value
        if arg.keyword is None and not arg.star and isinstance(value, cst.Name) and value.value in nodes:
            shown += 1
        elif _Names.of(arg.value).read & per_batch:
            return False
    return shown > 0


def _lone_call(stmt) -> cst.Call | None:
    """The call of a statement that is one call and nothing else."""
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr):
        value = stmt.body[0].value
        return value if isinstance(value, cst.Call) else None
    return None


def _called(value: cst.BaseExpression, name: str, builtin: Callable[[cst.Name], bool]) -> bool:
    """Is ``value`` a call of the builtin ``name``?"""
    return (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value == name
        and builtin(value.func)
    )


def unshadowed(scope_of: Callable[[cst.CSTNode], object]) -> Callable[[cst.Name], bool]:
    """``builtin`` for :func:`place`: is a name the builtin of that name, where it is read (no
    binding of the module, of the function or of an enclosing one)? ``scope_of``: a node's scope."""

    def builtin(name: cst.Name) -> bool:
        scope = scope_of(name)
        return scope is not None and not any(isinstance(a, Assignment) for a in scope[name.value])

    return builtin


def _node_names(body, index: int, is_op_call) -> set[str]:
    """The names that hold a graph node when ``body[index]`` runs: bound last, before it, by a
    statement ``targets = value`` of the body's own (plain names, or a tuple or list of them) where
    ``value`` is an op call, ``.gpu()``/``.cpu()`` of a node, or arithmetic of a node with a node or
    a number (a ``DataNode`` operator makes a node)."""
    nodes: set[str] = set()
    for stmt in body[:index]:
        bound = _Names.of(stmt).bound
        assign = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        if (
            isinstance(assign, cst.Assign)
            and len(assign.targets) == 1
            and all(isinstance(n, cst.Name) for n in _elements(assign.targets[0].target))
            and _makes_node(assign.value, nodes, is_op_call)
        ):
            nodes |= bound
        else:
            nodes -= bound
    return nodes


def _makes_node(value: cst.BaseExpression, nodes: set[str], is_op_call) -> bool:
    def node(operand: cst.BaseExpression) -> bool:
        return isinstance(operand, cst.Name) and operand.value in nodes

    if isinstance(value, cst.Call):
        if is_op_call(value):
            return True
        func = value.func
        return (
            isinstance(func, cst.Attribute)
            and func.attr.value in ("gpu", "cpu")
            and not value.args
            and node(func.value)
        )
    if isinstance(value, cst.BinaryOperation):
        sides = (value.left, value.right)
        return any(node(side) for side in sides) and all(
            node(side) or isinstance(side, (cst.Integer, cst.Float)) for side in sides
        )
    return False


def _why_dropped(stmt: cst.SimpleStatementLine, limit: int = 60) -> str:
    text = " ".join(cstutil.code(stmt.body[0]).split())
    text = text if len(text) <= limit else text[: limit - 3].rstrip() + "..."
    return (
        f"`{text}` dropped: pipeline mode ran it once, when it built the graph, and it printed graph nodes "
        "(`DataNode(name=..., source=...)`: no data), which dynamic mode does not have; "
        "print the batch itself to see its data (at every batch)"
    )


def _loop_names(body, kinds: list, is_op_call, once: frozenset[int]) -> set[str]:
    """The names bound by the statements that stay in the loop. A store that depends on them keeps
    a graph value on the object rather than acting outside the function: its kind in ``kinds`` is
    set to None (it stays in the loop too), until no such store is left."""
    while True:
        per_batch: set[str] = set()  # names bound by the statements that stay in the loop
        for index, (stmt, kind) in enumerate(zip(body, kinds)):
            if kind is None and index not in once:
                per_batch |= _Names.of(stmt).bound
        # `self.images = self.decode(jpegs)`, `self.y = self.x + 1`: graph values kept on the
        # object, as the conversion already carries them (not acting outside the function)
        stores = [
            i
            for i, kind in enumerate(kinds)
            if kind in ("store", "block store", "value") and _depends(body[i], per_batch, is_op_call)
        ]
        if not stores:
            return per_batch
        for index in stores:
            kinds[index] = None


def _depends(stmt: cst.CSTNode, per_batch: set[str], is_op_call) -> bool:
    """Does ``stmt`` call an op or read a name the loop binds? A block's names that it binds itself
    (``for k in ...: LOG.append(k)``) are its own; whether the loop binds them too is asked apart."""
    names = _Names.of(stmt, is_op_call)
    read = names.read - names.bound if isinstance(stmt, cst.BaseCompoundStatement) else names.read
    return names.op_call or bool(read & per_batch)


def calls_op(stmt: cst.CSTNode, is_op_call: Callable[[cst.Call], bool]) -> bool:
    return _Names.of(stmt, is_op_call).op_call


def _why(stmt: cst.BaseStatement, rebound: set[str] = frozenset(), limit: int = 60) -> str:
    if isinstance(stmt, cst.SimpleStatementLine):
        text = "; ".join(" ".join(cstutil.code(small).split()) for small in stmt.body)
    else:  # a block: its first line, then what inside it acts outside the function
        head = cstutil.code(stmt).lstrip().splitlines()[0].rstrip()
        text = head + " ..."
    text = text if len(text) <= limit else text[: limit - 3].rstrip() + "..."
    if rebound:
        return (
            f"`{text}` runs once in pipeline mode, when the graph is built, and binds "
            + ", ".join(f"`{name}`" for name in sorted(rebound))
            + ", which the graph code binds again; in the generator it would run for every batch"
        )
    return (
        f"`{text}` runs once in pipeline mode, when the graph is built, and uses values the graph computes; "
        "in the generator it would run for every batch"
    )


def _value(stmt, single: frozenset[str], is_draw=None) -> str | None:
    """ "value" for ``name = <expression>`` whose names are bound nowhere else in the body and whose
    expression calls nothing and makes no mutable object (numbers, strings, names, attributes,
    items, arithmetic, comparisons, ``a if c else b``, tuples of these): what it computes from
    values known when the graph is built is the same before the loop as in it, once (as pipeline
    mode ran it), and a reader of the generator finds it with the other settings. None otherwise.

    A draw of Python's or numpy's random generators (``interp = random.choice(CHOICES)``,
    ``is_draw``) is such a value too: pipeline mode drew it once, when the graph was built, and
    every batch used that draw; in the loop it would be drawn again for every batch."""
    smalls = _smalls(stmt)
    if len(smalls) != 1 or not isinstance(smalls[0], cst.Assign):
        return None
    assign = smalls[0]
    names = [name for target in assign.targets for name in _bound_keys(target.target, self_attrs=True)]
    plain = all(isinstance(t.target, (cst.Name, cst.Tuple)) for t in assign.targets)
    if not plain or not names or not set(names) <= single or not _Pure.check(assign.value, is_draw):
        return None
    return "value"


def _bound_once(body) -> frozenset[str]:
    """The names the body binds exactly once."""
    bindings = _BindingCount()
    for stmt in body:
        tree.visit(stmt, bindings)
    return frozenset(name for name, count in bindings.counts.items() if count == 1)


class _Pure(SkipsTrivia, cst.CSTVisitor):
    """Does an expression only read and compute (:func:`_value`)?"""

    _ALLOWED = (
        cst.Name,
        cst.Attribute,
        cst.Subscript,
        cst.BaseNumber,
        cst.SimpleString,
        cst.ConcatenatedString,
        cst.BinaryOperation,
        cst.UnaryOperation,
        cst.BooleanOperation,
        cst.Comparison,
        cst.IfExp,
        cst.Tuple,
    )

    #: What the arguments of a draw may hold besides: the choices it draws from, written out.
    _DRAW_ARGUMENTS = (cst.List, cst.Set, cst.Dict)

    def __init__(self, is_draw=None, displays: bool = False) -> None:
        self.pure = True
        self._is_draw = is_draw
        self._displays = displays

    @classmethod
    def check(cls, expr: cst.BaseExpression, is_draw=None) -> bool:
        visitor = cls(is_draw)
        tree.visit(expr, visitor)
        return visitor.pure

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Call) and self._is_draw is not None and self._is_draw(node):
            arguments = _Pure(self._is_draw, displays=True)
            for arg in node.args:
                tree.visit(arg.value, arguments)
            self.pure = self.pure and arguments.pure
            return False
        allowed = self._ALLOWED + (self._DRAW_ARGUMENTS if self._displays else ())
        if isinstance(node, cst.BaseExpression) and not isinstance(node, allowed):
            self.pure = False  # a call, a display, a lambda, a comprehension, `:=`, `yield`, ...
        return self.pure


def _smalls(stmt) -> list:
    return list(stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else []


def _kind(stmt, declared: set[str], is_op_call, fresh: frozenset[str] = frozenset()) -> str | None:
    """ "declaration" (``global``/``nonlocal``), "store" (to an attribute, an item, a declared
    name), "effect" (another call whose result is dropped: ``print(...)``; not a method of a
    ``fresh`` local, :func:`_fresh_locals`), "block" / "block store" (a compound statement holding
    an effect / only stores), or None."""
    if isinstance(stmt, cst.BaseCompoundStatement) and not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        inner = [_kind(line, declared, is_op_call, fresh) for line in _Lines.of(stmt)]
        return "block" if "effect" in inner else "block store" if "store" in inner else None
    smalls = _smalls(stmt)
    if smalls and all(isinstance(s, (cst.Global, cst.Nonlocal)) for s in smalls):
        return "declaration"
    kind = None
    for small in smalls:
        targets = (
            [small.target]
            if isinstance(small, cst.AugAssign)
            else ([t.target for t in small.targets] if isinstance(small, cst.Assign) else [])
        )
        if any(_outside(target, declared) for target in targets):
            kind = kind or "store"
        elif (
            isinstance(small, cst.Expr)
            and isinstance(small.value, cst.Call)
            and not is_op_call(small.value)
            and not _on_fresh(small.value, fresh)
        ):
            kind = "effect"  # an op whose result is dropped stays in the loop (it is evaluated there)
    return kind


def _fresh_locals(body) -> frozenset[str]:
    """Names that ``body`` binds only to a new dict, list or set (``flips = {"horizontal":
    fn.random.coin_flip()}``), each binding a statement of its own: the object is made anew each
    time the body runs (once per batch in the generator), so calling its methods
    (``flips.update(...)`` under a build-time ``if``) acts on nothing outside the function."""
    made: collections.Counter = collections.Counter()
    bindings = _BindingCount()
    for stmt in body:
        tree.visit(stmt, bindings)
        for line in _Lines.of(stmt):
            for small in line.body:
                if (
                    isinstance(small, cst.Assign)
                    and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)
                    and isinstance(small.value, _DISPLAYS)
                ):
                    made[small.targets[0].target.value] += 1
    return frozenset(name for name, count in made.items() if bindings.counts[name] == count)


_DISPLAYS = (cst.Dict, cst.List, cst.Set, cst.DictComp, cst.ListComp, cst.SetComp)


def _on_fresh(call: cst.Call, fresh: frozenset[str]) -> bool:
    """Is ``call`` a method of a :func:`_fresh_locals` name (``flips.update(...)``)?"""
    func = call.func
    return isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in fresh


class _BindingCount(VisitsBindings, SkipsTrivia, cst.CSTVisitor):
    """How many times each name is bound (assigned, a loop's or an ``as`` target, imported,
    defined); a name declared ``global``/``nonlocal`` counts as bound without end."""

    def __init__(self) -> None:
        self.counts: collections.Counter = collections.Counter()

    def _bind(self, target: cst.CSTNode) -> None:
        self.counts.update(_bound_keys(target, self_attrs=False))

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is None:
            root = node.name
            while isinstance(root, cst.Attribute):
                root = root.value
            self._bind(root)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._bind(node.name)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._bind(node.name)

    def visit_Global(self, node: cst.Global) -> None:
        self.counts.update({n.name.value: 1 << 30 for n in node.names})

    visit_Nonlocal = visit_Global


def _outside(target: cst.BaseExpression, declared: set[str]) -> bool:
    """Is ``target`` something outside the function (an attribute, an item, a declared name)?"""
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_outside(e.value, declared) for e in target.elements)
    if isinstance(target, cst.StarredElement):
        return _outside(target.value, declared)
    if isinstance(target, cst.Name):
        return target.value in declared
    return isinstance(target, (cst.Attribute, cst.Subscript))


class _Lines(SkipsTrivia, cst.CSTVisitor):
    """The simple statement lines inside a block, not those of functions or classes it defines
    (their bodies do not run when the block does)."""

    def __init__(self) -> None:
        self.lines: list[cst.SimpleStatementLine] = []

    @classmethod
    def of(cls, node: cst.CSTNode) -> list[cst.SimpleStatementLine]:
        lines = cls()
        tree.visit(node, lines)
        return lines.lines

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        self.lines.append(node)
        return False

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> bool:
        self.lines.append(cst.SimpleStatementLine(body=node.body))
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


class _Names(VisitsBindings, SkipsTrivia, cst.CSTVisitor):
    """The names a statement reads and binds (``self.x`` counts as the name ``self.x``), and whether
    it calls an op."""

    def __init__(self, is_op_call=None) -> None:
        self.is_op_call = is_op_call
        self.read: set[str] = set()
        self.bound: set[str] = set()
        self.op_call = False

    @classmethod
    def of(cls, node: cst.CSTNode, is_op_call=None) -> _Names:
        names = cls(is_op_call)
        tree.visit(node, names)
        return names

    def visit_Call(self, node: cst.Call) -> None:
        if self.is_op_call is not None and self.is_op_call(node):
            self.op_call = True

    def _bind(self, target: cst.CSTNode) -> None:
        self.bound.update(_bound_keys(target, self_attrs=True))

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        key = _self_attr(node)
        if key is not None:
            self.read.add(key)
            return False
        tree.visit(node.value, self)  # not the attribute's own name
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        tree.visit(node.value, self)  # not the keyword
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.read.add(node.value)


def _bound_keys(target: cst.CSTNode, self_attrs: bool):
    """The names an assignment target binds (through tuples, lists and ``*``), and with
    ``self_attrs`` its ``self.x`` attributes (as ``"self.x"``)."""
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _bound_keys(element.value, self_attrs)
    elif isinstance(target, cst.StarredElement):
        yield from _bound_keys(target.value, self_attrs)
    elif isinstance(target, cst.Name):
        yield target.value
    elif self_attrs and (key := _self_attr(target)) is not None:
        yield key


def _self_attr(node: cst.CSTNode) -> str | None:
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return f"self.{node.attr.value}"
    return None


def bound_names(stmt: cst.CSTNode) -> set[str]:
    """The plain names ``stmt`` binds."""
    return {name for name in _Names.of(stmt).bound if "." not in name}


def outer_store(stmt: cst.CSTNode, local: set[str]) -> str | None:
    """The first attribute or item of an object from outside the function (its root name not in
    ``local``) that ``stmt`` assigns (``self.length = ...``), as written; None when none.

    A graph built in a function (a factory, a method) ran when the function built it, so code that
    runs after the function returned may read what it stored: hoisted to the generator's start, the
    store happens only at the first batch."""
    for node in tree.walk(stmt, _outside_scopes):
        targets = (
            [node.target]
            if isinstance(node, cst.AugAssign)
            else [t.target for t in node.targets]
            if isinstance(node, cst.Assign)
            else [node.target]
            if isinstance(node, cst.AnnAssign)
            else []
        )
        for target in targets:
            for part in _elements(target):
                root = part
                while isinstance(root, (cst.Attribute, cst.Subscript)):
                    root = root.value
                if part is not root and isinstance(root, cst.Name) and root.value not in local:
                    return cst.Module([]).code_for_node(part)
    return None


def _elements(target: cst.CSTNode):
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _elements(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _elements(target.value)
    else:
        yield target


def _outside_scopes(node: cst.CSTNode) -> bool:
    return not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda))


def lift_refusal(
    function: cst.FunctionDef, graph: cst.FunctionDef, count: int, is_op_call: Callable[[cst.Call], bool]
) -> str | None:
    """Why the first ``count`` statements of ``graph``, a pipeline function defined in the body of
    ``function`` (a graph built by hand in a method, desugared), cannot run where the graph was
    built: after the ``def``, right before its one call; None when they can.

    Pipeline mode ran them there (``graph`` is called once, right after it is defined, with no
    arguments: the ``with pipe:`` block ran in ``function``'s scope), so moved there they run when
    they did, in the same order, before the code that reads what they stored on an outside object
    (``self.length``). The generator then reads the names they bind from ``function``'s scope, as
    the graph did: no statement of the generator or of ``function`` may bind them again (the
    generator would make them local; a later binding would change what the generator reads), and
    none of them may build graph values, leave the block (``return``, ``yield``) or declare names."""
    body, outer = list(graph.body.body), list(function.body.body)
    if body and cstutil.is_docstring(body[0]):
        return "the graph code starts with a string"
    index = next((i for i, stmt in enumerate(outer) if stmt is graph), None)
    if index is None or index + 1 >= len(outer) or not _calls_once(outer[index + 1], graph):
        return "the graph's function is not called once, right after it is defined"
    if cstutil.all_params(graph.params) or _mentions(function, graph.name.value) != 2:
        return "the graph's function is not called once, right after it is defined"
    prefix = body[:count]
    if any(calls_op(stmt, is_op_call) or _leaves(stmt) for stmt in prefix):
        return "they build graph values or leave the block"
    bound = set().union(*(_bound(stmt) for stmt in prefix))
    again = set().union(*(_bound(stmt) for stmt in body[count:]), *(_bound(s) for s in outer if s is not graph))
    again |= {p.name.value for p in cstutil.all_params(function.params)}
    if bound & again:
        return "the graph code or the function binds " + ", ".join(f"`{n}`" for n in sorted(bound & again)) + " again"
    return None


def _calls_once(stmt, graph: cst.FunctionDef) -> bool:
    """Is ``stmt`` ``name = graph()``?"""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign)):
        return False
    value = stmt.body[0].value
    return (
        isinstance(value, cst.Call)
        and not value.args
        and isinstance(value.func, cst.Name)
        and value.func.value == graph.name.value
    )


def _bound(stmt: cst.CSTNode) -> set[str]:
    """The plain names ``stmt`` binds, with those of the functions, classes and imports it holds."""
    found = bound_names(stmt)
    for node in tree.walk(stmt):
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            found.add(node.name.value)
        elif isinstance(node, cst.ImportAlias) and node.asname is None:
            found.add(cst.Module([]).code_for_node(node.name).split(".")[0])
    return found


def _leaves(stmt: cst.CSTNode) -> bool:
    """Does ``stmt`` return, yield, await or declare names (not in a function it defines)?"""
    kinds = (cst.Return, cst.Yield, cst.Await, cst.Global, cst.Nonlocal)
    return any(isinstance(node, kinds) for node in tree.walk(stmt, _outside_scopes))


def _mentions(node: cst.CSTNode, name: str) -> int:
    """How many times the name ``name`` appears in ``node``."""
    return sum(isinstance(n, cst.Name) and n.value == name for n in tree.walk(node))
