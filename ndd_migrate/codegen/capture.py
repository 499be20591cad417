"""The captured form of a migrated loop (docs/target-shape.md, "Captured loops"; ``migrate --capture``).

``reader.next_epoch(batch_size=B, capture=True)`` runs the loop's first batch eagerly while tracing
it, then replays the ops it could capture as a real pipeline, computed ahead on DALI's threads. In
DALI 2.4 an op is captured only when every argument is a captured batch, a literal, a DALI constant
or a value marked ``ndd.capture.invariant``: the generator's parameters and module globals are not
(``_source_analysis.py``), nor is anything computed from an op that was not captured. So the loop is
captured only where the *whole* graph can be, and the values its ops read that are invariant in
fact are marked once, before the loop: a parameter or a local bound before the loop (rebound to its
marked self: every read of it in the loop is an op argument), and a module global bound once to a
constant and never rebound or mutated (a local alias, marked). A pipeline read each such argument
once, when its graph was built: marking them keeps that meaning.

Left eager (the loop as written) where capture cannot do it or proves nothing: a generator not run
by ``prefetching`` (DALI allows one active capture loop per thread; ``prefetching(capture=True)``
gives each loader a thread of its own, even at depth 1), a loop over two readers or a reader used
elsewhere (checkpoints, metadata), a body that is not straight-line op calls (a random op drawn
only on some batches desynchronises the captured RNG), arithmetic and ``ndd.math`` (DALI 2.4
captures neither: ``_arithm_op`` calls its op with locals of its own), an op argument that is none
of the above (a global rebound elsewhere, an expression), and a ``batch_size=`` other than the
loop's. DALI raises on each of those or captures nothing.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import libcst as cst

from ndd_migrate.dali import tables
from ndd_migrate.syntax import cstutil, tree

#: Keyword arguments an op call takes outside its graph: the generator's RNG, and the batch size.
UNCAPTURED_KWARGS = frozenset({"rng", "batch_size"})
#: Methods on a batch that the ``yield`` may call (no op: copies and waits).
BATCH_METHODS = frozenset({"evaluate", "gpu", "cpu"})


def capture_loops(module: cst.Module, functions: set[str]) -> tuple[cst.Module, list[str]]:
    """``module`` with the loops of ``functions`` (migrated generators, by name) captured where all
    of their graph can be, and the names of those captured."""
    facts = _ModuleFacts.of(module)
    if facts.ndd is None or facts.prefetching is None:
        return module, []
    writer = _Writer(facts, functions)
    return module.visit(writer), writer.captured


@dataclass
class _ModuleFacts:
    """What a generator's loop may read of its module."""

    ndd: str | None = None  # the name `nvidia.dali.experimental.dynamic` is imported as
    prefetching: str | None = None  # the name the support module's `prefetching` is imported as
    dali_roots: set[str] = field(default_factory=set)  # names bound to DALI modules or their members
    constants: set[str] = field(default_factory=set)  # globals bound once to a constant, never changed
    names: set[str] = field(default_factory=set)  # every name the module reads or binds

    @classmethod
    def of(cls, module: cst.Module) -> _ModuleFacts:
        facts = cls()
        for stmt in module.body:
            for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    facts._note_import(small)
        usage = _Usage()
        tree.visit(module, usage)
        facts.names = usage.names
        facts.constants = {
            name
            for name, value in _module_assignments(module).items()
            if value is not None
            and _constant(value, facts.dali_roots)
            and name not in usage.changed
            and usage.bound.get(name) == 1
        }
        return facts

    def _note_import(self, node: cst.Import | cst.ImportFrom) -> None:
        if isinstance(node, cst.Import):
            for alias in node.names:
                dotted = cst.Module([]).code_for_node(alias.name)
                bound = alias.evaluated_alias or dotted.split(".")[0]
                if dotted == "nvidia.dali.experimental.dynamic" and alias.asname is not None:
                    self.ndd = bound
                if dotted.startswith("nvidia.dali"):
                    self.dali_roots.add(bound)
            return
        if isinstance(node.names, cst.ImportStar) or node.module is None:
            return
        source = cst.Module([]).code_for_node(node.module)
        for alias in node.names:
            bound = alias.evaluated_alias or alias.evaluated_name
            if source.startswith("nvidia.dali"):
                self.dali_roots.add(bound)
                if f"{source}.{alias.evaluated_name}" == "nvidia.dali.experimental.dynamic":
                    self.ndd = bound
            if source.split(".")[-1] == "ndd_support" and alias.evaluated_name == "prefetching":
                self.prefetching = bound


def _module_assignments(module: cst.Module) -> dict[str, cst.BaseExpression | None]:
    """Global name → the value of its one module-level ``NAME = value`` (None: bound otherwise, or
    more than once)."""
    found: dict[str, cst.BaseExpression | None] = {}
    for stmt in module.body:
        smalls = stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ()
        for small in smalls:
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
            ):
                name = small.targets[0].target.value
                found[name] = None if name in found else small.value
    return found


def _constant(expr: cst.BaseExpression, dali_roots: set[str]) -> bool:
    """A value fixed by its text: literals, arithmetic on them, lists and tuples of them, DALI
    constants."""
    if cstutil.literal_value(expr) is not cstutil.NOT_LITERAL:
        return not isinstance(expr, cst.Name) or expr.value in ("True", "False", "None")
    if isinstance(expr, cst.BinaryOperation):
        return _constant(expr.left, dali_roots) and _constant(expr.right, dali_roots)
    if isinstance(expr, (cst.List, cst.Tuple)):
        return all(isinstance(e, cst.Element) and _constant(e.value, dali_roots) for e in expr.elements)
    return _dali_chain(expr, dali_roots)


def _dali_chain(expr: cst.BaseExpression, dali_roots: set[str]) -> bool:
    """``types.FLOAT``, ``dali.types.RGB``: an attribute chain from a name DALI's import bound."""
    if not isinstance(expr, cst.Attribute):
        return False
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    return isinstance(expr, cst.Name) and expr.value in dali_roots


class _Usage(cst.CSTVisitor):
    """Every name of a module, and the names something may change after their first binding: named
    by ``global``, bound by ``+=``/``for``/``with``/``del``/``import``/a ``def``, or mutated
    (an item or attribute stored, a method called on them)."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.changed: set[str] = set()
        self.bound: dict[str, int] = {}  # name → `name = ...` statements binding it

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        tree.visit(node.value, self)  # `x.mean`: `mean` is no name of the module
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        tree.visit(node.value, self)  # `f(mean=...)`: nor is a keyword
        return False

    def visit_Global(self, node: cst.Global) -> None:
        self.changed.update(item.name.value for item in node.names)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._change(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._change(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._change(node.asname.name)

    def visit_Del(self, node: cst.Del) -> None:
        self._change(node.target)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, (cst.Subscript, cst.Attribute)):
            self._change(node.target)
        else:  # a second binding anywhere (`if __name__ == "__main__": MEAN = ...`, a local)
            for name in _target_names(node.target) or {"*"}:
                self.bound[name] = self.bound.get(name, 0) + 1

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._change(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._change(node.target)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute):  # `MEAN.append(...)`: a method may mutate it
            self._change(node.func.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.changed.add(node.name.value)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        self.changed.add((node.evaluated_alias or node.evaluated_name).split(".")[0])

    def _change(self, target: cst.BaseExpression) -> None:
        while isinstance(target, (cst.Subscript, cst.Attribute)):
            target = target.value
        if isinstance(target, cst.Name):
            self.changed.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._change(element.value)


@dataclass
class _Loop:
    """A migrated generator's loop that can be captured whole, and what to mark before it."""

    while_index: int  # of the `while True:` in the function's body
    marked: list[str] = field(default_factory=list)  # parameters and locals, rebound marked
    aliases: dict[str, str] = field(default_factory=dict)  # global → its marked local alias


class _Refused(Exception):
    """The loop stays eager."""


class _Writer(cst.CSTTransformer):
    def __init__(self, facts: _ModuleFacts, functions: set[str]) -> None:
        self.facts = facts
        self.functions = functions
        self.captured: list[str] = []

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        if original.name.value not in self.functions:
            return updated
        decorator = self._prefetching(updated)
        if decorator is None:
            return updated
        try:
            loop = _LoopAnalysis(self.facts, updated).run()
        except _Refused:
            return updated
        self.captured.append(updated.name.value)
        return _rewritten(updated, decorator, loop, self.facts.ndd)

    def _prefetching(self, function: cst.FunctionDef) -> int | None:
        """The index of the ``@prefetching`` decorator (without ``capture=``), or None."""
        for i, decorator in enumerate(function.decorators):
            expr = decorator.decorator
            call = expr if isinstance(expr, cst.Call) else None
            name = call.func if call is not None else expr
            if isinstance(name, cst.Name) and name.value == self.facts.prefetching:
                if call is None or cstutil.kwarg(call, "capture") is None:
                    return i
        return None


class _LoopAnalysis:
    """Is the function's loop ``while True: for ... in reader.next_epoch(batch_size=B):`` over
    straight-line op calls whose every argument can be captured? (:class:`_Refused` if not.)"""

    def __init__(self, facts: _ModuleFacts, function: cst.FunctionDef) -> None:
        self.facts = facts
        self.function = function
        self.params = {p.name.value for p in cstutil.all_params(function.params)}
        self.batches: set[str] = set()  # names bound to batches in the loop
        self.outputs: set[str] = set()  # names bound to what the loop yields
        self.loop = None

    def run(self) -> _Loop:
        body = list(self.function.body.body)
        if not body or not _is_while_true(body[-1]):
            raise _Refused
        epoch = body[-1].body.body
        if len(epoch) != 1 or not isinstance(epoch[0], cst.For) or epoch[0].orelse is not None:
            raise _Refused
        loop = epoch[0]
        reader, self.batch_size = self._epoch_call(loop.iter)
        self.locals = _build_time_locals(body[:-1], self.facts.ndd)
        if reader not in self.locals or _reads(self.function, reader) != 1:
            raise _Refused  # a reader used elsewhere: checkpoints, metadata, a second loop
        self.exempt = {self.batch_size, reader}
        self.batches = _target_names(loop.target)
        self.loop = _Loop(len(body) - 1)
        ops = sum(self._statement(stmt) for stmt in _flattened(loop.body.body, self.locals))
        if not ops:
            raise _Refused  # nothing to capture: DALI would warn and run eagerly
        return self.loop

    def _epoch_call(self, expr: cst.BaseExpression) -> tuple[str, str]:
        """(reader, batch size name) of ``reader.next_epoch(batch_size=B[, ctx=C])``."""
        if not (
            isinstance(expr, cst.Call)
            and isinstance(expr.func, cst.Attribute)
            and expr.func.attr.value == "next_epoch"
            and isinstance(expr.func.value, cst.Name)
        ):
            raise _Refused
        keywords = {a.keyword.value: a.value for a in expr.args if a.keyword is not None}
        size = keywords.get("batch_size")
        if len(keywords) != len(expr.args) or set(keywords) - {"batch_size", "ctx"} or not isinstance(size, cst.Name):
            raise _Refused
        return expr.func.value.value, size.value

    def _statement(self, stmt: cst.BaseStatement) -> int:
        """The op calls of one statement of the loop (0 for the yield)."""
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            raise _Refused
        small = stmt.body[0]
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Yield):
            self._yielded(small.value.value)
            return 0
        if not isinstance(small, cst.Assign) or len(small.targets) != 1:
            raise _Refused
        targets = _target_names(small.targets[0].target)
        if not targets or targets & (self.params | set(self.locals) | self.outputs):
            raise _Refused
        if self._is_op(small.value):
            self._op_args(small.value)
            self.batches |= targets
            return 1
        self._yielded(small.value)  # `outputs = a.evaluate(), b.evaluate()`, then `yield outputs`
        self.outputs |= targets
        return 0

    def _is_op(self, expr: cst.BaseExpression) -> bool:
        """A call of a DALI operator (no reader, no ``ndd.math``: not captured); a random one must
        draw from the loader's ``rng=`` (the default generator is per thread)."""
        if not isinstance(expr, cst.Call):
            return False
        chain = []
        func = expr.func
        while isinstance(func, cst.Attribute):
            chain.append(func.attr.value)
            func = func.value
        if not (isinstance(func, cst.Name) and func.value == self.facts.ndd):
            return False
        info = _ndd_ops().get(".".join(reversed(chain)))
        if info is not None and info.random and cstutil.kwarg(expr, "rng") is None:
            raise _Refused
        return info is not None

    def _yielded(self, expr: cst.BaseExpression | None) -> None:
        """A yield of batches: ``a.evaluate()``, ``b.gpu().evaluate()``, a tuple of them, a name
        bound to one."""
        items = expr.elements if isinstance(expr, cst.Tuple) else [expr]
        for item in items:
            value = item.value if isinstance(item, cst.Element) else item
            while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and not value.args:
                if value.func.attr.value not in BATCH_METHODS:
                    raise _Refused
                value = value.func.value
            if not (isinstance(value, cst.Name) and value.value in self.batches | self.outputs):
                raise _Refused

    def _op_args(self, call: cst.Call) -> None:
        for arg in call.args:
            if arg.star:
                raise _Refused
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword == "batch_size":
                if not (isinstance(arg.value, cst.Name) and arg.value.value == self.batch_size):
                    raise _Refused  # another batch size: capture raises
            elif keyword == "rng":
                if not (isinstance(arg.value, cst.Name) and self.locals.get(arg.value.value) is not None):
                    raise _Refused
            else:
                self._argument(arg.value, positional=keyword is None)

    def _argument(self, expr: cst.BaseExpression, positional: bool) -> None:
        """Can this argument be captured? Notes the names to mark. An input (``positional``) must
        be a batch of the loop; a keyword argument a constant, or a name invariant in fact."""
        if isinstance(expr, cst.Name) and expr.value in self.batches:
            return
        if self._is_op(expr):  # `brightness=ndd.random.uniform(...)`: a batch of the loop too
            self._op_args(expr)
            return
        if positional:
            raise _Refused
        if isinstance(expr, (cst.List, cst.Tuple)):
            for element in expr.elements:
                if not isinstance(element, cst.Element):
                    raise _Refused
                self._argument(element.value, positional)
            return
        if _constant(expr, self.facts.dali_roots):
            return
        if not isinstance(expr, cst.Name) or expr.value in self.exempt | self.outputs:
            raise _Refused  # an expression, the loop's batch size or reader, an output
        self._mark(expr.value)

    def _mark(self, name: str) -> None:
        if name in self.params or self.locals.get(name):
            if name not in self.loop.marked:
                self.loop.marked.append(name)
        elif name in self.facts.constants:
            if name not in self.loop.aliases:
                taken = self.facts.names | self.params | set(self.locals) | set(self.loop.aliases.values())
                self.loop.aliases[name] = cstutil.fresh(name.lower(), set(taken))
        else:
            raise _Refused  # a global rebound or mutated, an import, a builtin: not invariant in fact


@functools.cache
def _ndd_ops() -> dict[str, tables.OpInfo]:
    """The dynamic-mode path of each DALI operator (``"decoders.image"``) → the operator; readers
    are no op of a loop."""
    infos = (tables.op_info(path) for path in tables.load_table()["ops"])
    return {info.ndd: info for info in infos if info is not None and info.ndd and not info.reader}


def _is_while_true(stmt: cst.BaseStatement) -> bool:
    return (
        isinstance(stmt, cst.While)
        and isinstance(stmt.test, cst.Name)
        and stmt.test.value == "True"
        and stmt.orelse is None
    )


def _build_time_locals(body: list, ndd: str) -> dict[str, bool]:
    """Name → may it be marked: bound before the loop, at the top of the function (``x = ...``),
    once, to no value of dynamic mode (a batch or tensor is an input, not an argument)."""
    found: dict[str, bool] = {}
    for stmt in body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                plain = not _calls(small.value, ndd)
                for name in _target_names(small.targets[0].target):
                    found[name] = plain and name not in found
    return found


def _calls(expr: cst.BaseExpression, root: str) -> bool:
    """Does ``expr`` call something of the module named ``root``?"""
    finder = _RootCalls(root)
    tree.visit(expr, finder)
    return finder.found


class _RootCalls(cst.CSTVisitor):
    def __init__(self, root: str) -> None:
        self.root = root
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        while isinstance(func, cst.Attribute):
            func = func.value
        self.found |= isinstance(func, cst.Name) and func.value == self.root


def _target_names(target: cst.BaseExpression) -> set[str]:
    """The names an assignment or ``for`` target binds (empty for one that is not names only)."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        names = [_target_names(e.value) if isinstance(e, cst.Element) else set() for e in target.elements]
        return set().union(*names) if all(names) else set()
    return set()


def _flattened(body, locals_: dict[str, bool]) -> list:
    """The loop's statements, ``with ctx:`` blocks (a context bound before the loop) opened."""
    out = []
    for stmt in body:
        if isinstance(stmt, cst.With):
            items = stmt.items
            if len(items) != 1 or items[0].asname is not None or not isinstance(items[0].item, cst.Name):
                raise _Refused
            if items[0].item.value not in locals_:
                raise _Refused
            out.extend(_flattened(stmt.body.body, locals_))
        else:
            out.append(stmt)
    return out


def _reads(node: cst.CSTNode, name: str) -> int:
    """How many times ``name`` appears in ``node`` besides being assigned."""
    counter = _NameCount(name)
    tree.visit(node, counter)
    return counter.count


class _NameCount(cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        self.name = name
        self.count = 0

    def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
        return not (isinstance(node.target, cst.Name) and node.target.value == self.name)

    def visit_Name(self, node: cst.Name) -> None:
        self.count += node.value == self.name


def _rewritten(function: cst.FunctionDef, decorator: int, loop: _Loop, ndd: str) -> cst.FunctionDef:
    """The function with its loop captured: the decorator told, the marks before the loop, the
    loop's globals read through their marked aliases, ``capture=True``."""
    decorators = list(function.decorators)
    expr = decorators[decorator].decorator
    call = expr if isinstance(expr, cst.Call) else cst.Call(expr)
    decorators[decorator] = decorators[decorator].with_changes(decorator=cstutil.add_kwarg(call, "capture", _true()))
    body = list(function.body.body)
    outer = body[loop.while_index]
    epoch = outer.body.body[0]
    inner = epoch.body.visit(_Renamer(loop.aliases))
    epoch = epoch.with_changes(iter=cstutil.add_kwarg(epoch.iter, "capture", _true()), body=inner)
    outer = outer.with_changes(body=outer.body.with_changes(body=[epoch]))
    marks = [_mark_line(name, name, ndd) for name in loop.marked]
    marks += [_mark_line(alias, name, ndd) for name, alias in loop.aliases.items()]
    comment = cst.EmptyLine(
        comment=cst.Comment(
            "# next_epoch(capture=True) runs these ops as one pipeline: the values they read, the same every batch, marked so."
        )
    )
    if marks:
        marks[0] = marks[0].with_changes(leading_lines=[*outer.leading_lines, comment])
        outer = outer.with_changes(leading_lines=[])
    body[loop.while_index : loop.while_index + 1] = [*marks, outer]
    return function.with_changes(decorators=decorators, body=function.body.with_changes(body=body))


def _true() -> cst.Name:
    return cst.Name("True")


def _mark_line(target: str, value: str, ndd: str) -> cst.SimpleStatementLine:
    return cstutil.statement(f"{target} = {ndd}.capture.invariant({value})\n")


class _Renamer(cst.CSTTransformer):
    """Each global of the loop read through its marked alias."""

    def __init__(self, aliases: dict[str, str]) -> None:
        self.aliases = aliases

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        alias = self.aliases.get(original.value)
        return updated.with_changes(value=alias) if alias else updated

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(keyword=original.keyword)  # `mean=`: a keyword, not the global

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        return updated.with_changes(attr=original.attr)
