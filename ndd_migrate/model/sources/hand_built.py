"""Pipelines built by hand: ``pipe = Pipeline(...)`` + ``with pipe:`` + ``pipe.set_outputs(...)`` (as in
DALI's notebooks), read as the ``@pipeline_def`` function they stand for.

Before the analysis, :func:`desugar` turns each such graph of the module's body (or a function's) into

    @pipeline_def(batch_size=..., num_threads=..., device_id=...)   # was: pipe = Pipeline(...)
    def pipe_batches():                                             # was: with pipe:
        <the statements of the block>
        return <what set_outputs got>                               # was: pipe.set_outputs(...)
    pipe = pipe_batches()

so the module model, the migration plan and every rule see an ordinary pipeline function and its one
call site: NDD001 writes the generator, the uses of ``pipe`` are claimed or block it (NDD008). Lines
keep their numbers up to the block's end (the decorator takes the lines of ``Pipeline(...)``, the
``def`` the line of ``with``); the added call line reports at the ``Pipeline(...)`` line and the lines
after it move up by one (:meth:`Desugared.original_line`). When the pipeline is not converted,
:func:`resugar` puts the original statements back (with the TODOs the rules placed), so the file
is unchanged apart from them.

In a function's body (a factory returning ``pipe``) the generated function is nested there. NDD301
is told (:func:`import_reads`) what the module will read once the graphs that stay are put back.

A graph that cannot be read this way stays as it is (NDD403 reports why): not in the body of a module
or a function, ``with`` not right after the assignment, ``set_outputs`` not the block's last statement or
given keywords, ``pipe`` used in the block otherwise, a name bound in the block and used outside it
before being bound again (the function makes it local), a name the block reads rebound after it (the generator reads it
later than the graph did), ``*args`` to ``Pipeline(...)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider, QualifiedNameProvider

from ndd_migrate.dali import pipeline_args
from ndd_migrate.syntax import cstutil, names, tree
from ndd_migrate.syntax.cstutil import ReadsValues, SkipsTrivia


@dataclass(eq=False)
class Graph:
    """One hand-built pipeline, desugared."""

    var: str  # `pipe`
    func: str  # the generated function's name
    assign: cst.SimpleStatementLine  # `pipe = Pipeline(...)`, original
    block: cst.With  # `with pipe:`, original
    definition: cst.FunctionDef  # the synthetic `@pipeline_def` function
    call: cst.SimpleStatementLine  # the synthetic `pipe = func()`
    assign_line: int  # of `pipe = Pipeline(...)` in the original text
    top: bool = True  # at the module's top level (else in a function's body)


@dataclass(eq=False)
class Desugared:
    graphs: list[Graph] = field(default_factory=list)
    imports: dict[cst.CSTNode, cst.CSTNode] = field(default_factory=dict)  # synthetic → original statement
    removed_reads: set[str] = field(default_factory=set)  # names the original read that the synthetic does not
    refused: dict[int, str] = field(default_factory=dict)  # line of a `Pipeline(...)` left alone → why
    added_pipeline_def: bool = False  # `pipeline_def` added to the import of `Pipeline`
    call_lines: list[int] = field(default_factory=list)  # lines of the synthetic calls, in the desugared text
    def_lines: list[int] = field(default_factory=list)  # lines of the synthetic `def`s (was: `with pipe:`)

    def original_line(self, line: int) -> int:
        shift = 0
        for graph, call_line, def_line in zip(self.graphs, self.call_lines, self.def_lines):
            if line in (call_line, def_line):
                return graph.assign_line
            if line > call_line:
                shift += 1
        return line - shift


_SET_OUTPUTS_CALL = re.compile(r"\.\s*set_outputs\s*\(")


def desugar(module: cst.Module, source: str | None = None) -> tuple[cst.Module, Desugared]:
    """``module`` with its hand-built graphs (in its body and its functions' bodies) as ``@pipeline_def``
    functions (the same module when it has none), and what was done. ``source``, when given, is the
    text ``module`` was parsed from: the same as ``module.code``, without generating it again (a
    tenth of the parse's cost on a large file)."""
    done = Desugared()
    # A graph ends with `pipe.set_outputs(...)`. Not the bare word: the TODOs this migration writes
    # mention `set_outputs`, and a second run must find what the first found.
    if not _SET_OUTPUTS_CALL.search(module.code if source is None else source):
        return module, done
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    finder = _Finder()
    tree.visit_wrapped(wrapper, finder)
    if not finder.pipelines:
        return module, done
    used = _all_names(module)
    top = list(module.body)

    def process(body: list) -> list | None:
        """``body`` (a module's or a function's statements) with its graphs desugared; None: unchanged."""
        changed = False
        for index, stmt in enumerate(body):
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) and isinstance(stmt.body, cst.IndentedBlock):
                inner = process(list(stmt.body.body))
                if inner is not None:
                    body[index] = stmt.with_changes(body=stmt.body.with_changes(body=inner))
                    changed = True
        replacements: dict[int, list] = {}
        for index, stmt in enumerate(body):
            call = _pipeline_call(stmt, finder)
            if call is None:
                continue
            line = finder.positions[stmt].start.line
            reason = _refusal(body, index)
            if reason:
                done.refused[line] = reason
                continue
            var = stmt.body[0].targets[0].target.value
            block: cst.With = body[index + 1]
            decorator = _decorator(call, finder, done, top)
            if decorator is None:
                done.refused[line] = "`Pipeline` is not imported by name from `nvidia.dali`: the graph cannot be read"
                continue
            func = cstutil.fresh(f"{var}_batches", used)
            *statements, last = block.body.body
            outputs = last.body[0].value.args
            if len(outputs) == 1 and not outputs[0].star:
                value = outputs[0].value
            else:  # `set_outputs(*outputs)`: `return (*outputs,)`
                value = cst.Tuple([cst.StarredElement(a.value) if a.star else cst.Element(a.value) for a in outputs])
                if not any(a.star for a in outputs):
                    value = value.with_changes(lpar=[], rpar=[])
            ret = last.with_changes(body=[cst.Return(value=value)])
            definition = cst.FunctionDef(
                name=cst.Name(func),
                params=cst.Parameters(),
                body=block.body.with_changes(body=[*statements, ret]),
                decorators=[decorator.with_changes(trailing_whitespace=stmt.trailing_whitespace)],
                leading_lines=stmt.leading_lines,
                lines_after_decorators=block.leading_lines,
            )
            synthetic_call = cst.SimpleStatementLine(
                [cst.Assign(targets=[cst.AssignTarget(cst.Name(var))], value=cst.Call(cst.Name(func)))]
            )
            done.graphs.append(Graph(var, func, stmt, block, definition, synthetic_call, line, body is top))
            done.removed_reads.add(names.dotted(call.func).split(".")[0])
            replacements[index] = [definition, synthetic_call]
        if not replacements:
            return body if changed else None
        out: list = []
        for index, stmt in enumerate(body):
            if index - 1 in replacements:
                continue  # the `with` block, now the function
            out.extend(replacements.get(index, [stmt]))
        return out

    new_body = process(top)
    if not done.graphs:
        return module, done
    new_body = [done_import(s, done) for s in new_body]
    return module.with_changes(body=new_body), done


def done_import(stmt, done: Desugared):
    return next((new for new, old in done.imports.items() if old is stmt), stmt)


def resugar(module: cst.Module, done: Desugared, converted: set[str]) -> cst.Module:
    """Put back the original statements of every graph whose function was not converted (its TODOs
    kept), and the original imports when none was."""
    if not done.graphs:
        return module
    module = _spaced(
        module,
        {g.func for g in done.graphs if g.func in converted and g.top},
        {g.func for g in done.graphs if g.func in converted and not g.top},
    )
    keep = [g for g in done.graphs if g.func not in converted]
    if not keep:
        return module
    by_name = {g.func: g for g in keep}

    def put_back(body: list) -> list:
        out: list = []
        drop_next = False
        for stmt in body:
            if drop_next:
                drop_next = False
                if _is_call_of(stmt, by_name):
                    continue
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value in by_name:
                graph = by_name[stmt.name.value]
                *statements, ret = stmt.body.body
                outputs = graph.block.body.body[-1]
                block = graph.block.with_changes(
                    leading_lines=stmt.lines_after_decorators,
                    body=stmt.body.with_changes(
                        body=[*statements, outputs.with_changes(leading_lines=ret.leading_lines)]
                    ),
                )
                out.append(graph.assign.with_changes(leading_lines=stmt.leading_lines))
                out.append(block)
                drop_next = True
                continue
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) and isinstance(stmt.body, cst.IndentedBlock):
                stmt = stmt.with_changes(body=stmt.body.with_changes(body=put_back(list(stmt.body.body))))
            out.append(stmt)
        return out

    out = put_back(list(module.body))
    if len(keep) == len(done.graphs):
        out = [_restore_import(s, done) for s in out]
    return module.with_changes(body=out)


def import_reads(done: Desugared | None, kept: list[Graph]) -> tuple[set[str], set[str]]:
    """For NDD301: the names the final module reads that the rewritten tree does not show (the
    ``Pipeline`` of the graphs put back), and the one it shows that the final module does not read
    (the ``pipeline_def`` imported only for the desugaring)."""
    if done is None:
        return set(), set()
    extra = {names.dotted(g.assign.body[0].value.func).split(".")[0] for g in kept}
    return extra, {"pipeline_def"} if done.added_pipeline_def else set()


def _spaced(module: cst.Module, top: set[str], nested: set[str]) -> cst.Module:
    """Blank lines around each generated function, as around any other: two at the module's top
    level, one after a function's nested one."""

    def space(body: list) -> list:
        body = list(body)
        for index, stmt in enumerate(body):
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value in top:
                if index and not _is_pass(
                    body[index - 1]
                ):  # `pass`: a notebook's cell marker (ndd_migrate.io.notebooks)
                    body[index] = stmt.with_changes(leading_lines=_blank(stmt.leading_lines, 2))
                if index + 1 < len(body):
                    body[index + 1] = body[index + 1].with_changes(
                        leading_lines=_blank(body[index + 1].leading_lines, 2)
                    )
            elif isinstance(stmt, cst.FunctionDef) and stmt.name.value in nested:
                if index + 1 < len(body):
                    body[index + 1] = body[index + 1].with_changes(
                        leading_lines=_blank(body[index + 1].leading_lines, 1)
                    )
            elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) and isinstance(stmt.body, cst.IndentedBlock):
                body[index] = stmt.with_changes(body=stmt.body.with_changes(body=space(stmt.body.body)))
        return body

    return module.with_changes(body=space(module.body))


def _is_pass(stmt) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Pass)


def _blank(lines, count: int) -> list:
    lines = list(lines)
    blank = 0
    while blank < len(lines) and lines[blank].comment is None:
        blank += 1
    return [cst.EmptyLine(indent=False)] * max(0, count - blank) + lines


def _restore_import(stmt, done: Desugared):
    """The original import statement where the synthetic one is still as it was written."""
    for new, old in done.imports.items():
        if stmt.deep_equals(new):
            return old.with_changes(leading_lines=stmt.leading_lines)
    return stmt


def _is_call_of(stmt, by_name) -> bool:
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign)):
        return False
    value = stmt.body[0].value
    return isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in by_name


# -- reading ------------------------------------------------------------------------------------


class _Finder(SkipsTrivia, cst.CSTVisitor):
    """Module-level ``name = Pipeline(...)`` statements, and positions."""

    METADATA_DEPENDENCIES = (QualifiedNameProvider, PositionProvider)

    def __init__(self) -> None:
        super().__init__()
        self.pipelines: set[cst.Call] = set()
        self.positions: dict = {}
        self.pipeline_def_names: set[str] = set()  # module-level names bound to `pipeline_def`

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        call = _assigned_call(node)
        if call is not None and names.dali_name(self, call.func) == names.PIPELINE:
            self.positions[node] = self.get_metadata(PositionProvider, node)
            self.pipelines.add(call)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        bound = node.asname.name if node.asname else node.name
        if isinstance(bound, cst.Name) and names.dali_name(self, bound) == names.PIPELINE_DEF:
            self.pipeline_def_names.add(bound.value)


def _assigned_call(stmt) -> cst.Call | None:
    if (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Assign)
        and len(stmt.body[0].targets) == 1
        and isinstance(stmt.body[0].targets[0].target, cst.Name)
        and isinstance(stmt.body[0].value, cst.Call)
    ):
        return stmt.body[0].value
    return None


def _pipeline_call(stmt, finder: _Finder) -> cst.Call | None:
    call = _assigned_call(stmt)
    return call if call is not None and call in finder.pipelines else None


def _refusal(body, index: int) -> str | None:
    """Why ``<var> = Pipeline(...)`` at ``body[index]``, with the ``with <var>:`` block after it,
    cannot be desugared into a pipeline function, or None."""
    stmt = body[index]
    var = stmt.body[0].targets[0].target.value
    block = body[index + 1] if index + 1 < len(body) else None
    return _call_refusal(stmt.body[0].value) or _block_refusal(block, var) or _names_refusal(body, index, block, var)


def _call_refusal(call: cst.Call) -> str | None:
    """What of the arguments of ``Pipeline(...)`` cannot be read."""
    if any(a.star for a in call.args):
        return "`*args`/`**kwargs` passed to `Pipeline(...)` cannot be read"
    if len([a for a in call.args if a.keyword is None]) > len(pipeline_args.POSITIONAL):
        return "`Pipeline(...)` with more positional arguments than it takes"
    return None


def _block_refusal(block, var: str) -> str | None:
    """Why the statement after ``<var> = Pipeline(...)`` is not the graph's block: ``with <var>:``
    ending in ``<var>.set_outputs(<outputs>)``."""
    if not _is_with_of(block, var):
        return f"`with {var}:` does not follow `{var} = Pipeline(...)`"
    if not _is_set_outputs(block.body.body[-1], var):
        return f"the block does not end with `{var}.set_outputs(<outputs>)`"
    return None


def _is_with_of(block, var: str) -> bool:
    return (
        isinstance(block, cst.With)
        and block.asynchronous is None
        and len(block.items) == 1
        and isinstance(block.items[0].item, cst.Name)
        and block.items[0].item.value == var
        and block.items[0].asname is None
        and isinstance(block.body, cst.IndentedBlock)
    )


def _is_set_outputs(last, var: str) -> bool:
    return (
        isinstance(last, cst.SimpleStatementLine)
        and len(last.body) == 1
        and isinstance(last.body[0], cst.Expr)
        and isinstance(last.body[0].value, cst.Call)
        and names.dotted(last.body[0].value.func) == f"{var}.set_outputs"
        and bool(last.body[0].value.args)
        and all(a.keyword is None and a.star != "**" for a in last.body[0].value.args)
    )


def _names_refusal(body, index: int, block: cst.With, var: str) -> str | None:
    """What the block's names would change once it is the body of a function: ``<var>`` used
    inside it, ``global``/``return``/..., a name shared with the code around it."""
    last = block.body.body[-1]
    inside = _Names()
    for inner in block.body.body[:-1]:
        tree.visit(inner, inside)
    for arg in last.body[0].value.args:
        tree.visit(arg, inside)
    if var in inside.read or var in inside.bound:
        return f"`{var}` is used inside its own `with` block other than by `set_outputs`"
    if inside.scoped:
        return f"`{inside.scoped}` in the block has no counterpart in a function"
    before = _Names()
    for other in body[:index]:
        tree.visit(other, before)
    after = _Names()
    for other in body[index + 2 :]:
        tree.visit(other, after)
    # A name of the block may be used again after it when it is bound again first (`images, labels =
    # pipe.run()` after `images = fn.decoders.image(...)` in the block): the function makes it local.
    first: dict[str, str] = {}
    for name, how in after.events:
        first.setdefault(name, how)
    # Before it, only a function that reads the name later (a closure over the module) would notice.
    shared = sorted(n for n in inside.bound if n in before.deferred or first.get(n) == "read")
    if shared:
        return f"`{shared[0]}` is bound in the `with {var}:` block and used outside it: rename it"
    rebound = sorted((inside.read - inside.bound) & after.bound)
    if rebound:
        return f"`{rebound[0]}` is read by the graph and bound again after it: the generator would read the new value"
    return None


class _Names(ReadsValues, SkipsTrivia, cst.CSTVisitor):
    """Names read and bound (assignment, loop, import, def, class, with, except targets)."""

    def __init__(self) -> None:
        self.read: set[str] = set()
        self.bound: set[str] = set()
        self.scoped: str | None = None  # `global`/`nonlocal`/`return`/`yield` found
        self.events: list[tuple[str, str]] = []  # ("name", "read" | "bound"), in source order
        self.deferred: set[str] = set()  # read inside a function or lambda: when it runs, not here
        self._depth = 0
        self._store: set[int] = set()

    def _targets(self, target) -> None:
        if isinstance(target, cst.Name):
            self.bound.add(target.value)
            self.events.append((target.value, "bound"))
            self._store.add(id(target))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                self._targets(el.value)
        elif isinstance(target, cst.StarredElement):
            self._targets(target.value)

    def visit_AssignTarget(self, node) -> None:
        self._targets(node.target)

    def visit_AnnAssign(self, node) -> None:
        self._targets(node.target)

    def visit_AugAssign(self, node) -> None:
        if isinstance(node.target, cst.Name):
            self.read.add(node.target.value)
            self.events.append((node.target.value, "read"))
        self._targets(node.target)

    def visit_For(self, node) -> None:
        self._targets(node.target)

    def visit_CompFor(self, node) -> None:
        self._targets(node.target)

    def visit_AsName(self, node) -> None:
        self._targets(node.name)

    def visit_NamedExpr(self, node) -> None:
        self._targets(node.target)

    def visit_FunctionDef(self, node) -> None:
        self._targets(node.name)
        self._depth += 1

    def leave_FunctionDef(self, node) -> None:
        self._depth -= 1

    def visit_Lambda(self, node) -> None:
        self._depth += 1

    def leave_Lambda(self, node) -> None:
        self._depth -= 1

    def visit_ClassDef(self, node) -> None:
        self._targets(node.name)

    def visit_ImportAlias(self, node) -> None:
        if node.asname is None:
            name = names.dotted(node.name) or ""
            self.bound.add(name.split(".")[0])

    def visit_Global(self, node) -> None:
        self.scoped = self.scoped or "global"

    def visit_Nonlocal(self, node) -> None:
        self.scoped = self.scoped or "nonlocal"

    def visit_Return(self, node) -> None:
        if not self._depth:  # a function defined in the block returns from itself
            self.scoped = self.scoped or "return"

    def visit_Yield(self, node) -> None:
        if not self._depth:
            self.scoped = self.scoped or "yield"

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self._store:
            self.read.add(node.value)
            self.events.append((node.value, "read"))
            if self._depth:
                self.deferred.add(node.value)


def _all_names(module: cst.Module) -> set[str]:
    found = _Names()
    tree.visit(module, found)
    return found.read | found.bound


# -- writing ------------------------------------------------------------------------------------


def _decorator(call: cst.Call, finder: _Finder, done: Desugared, body: list) -> cst.Decorator | None:
    """``@pipeline_def(<the Pipeline(...) arguments as keywords>)``, laid out as the call was; the
    name ``pipeline_def`` imported next to ``Pipeline`` when the module does not import it."""
    func = _pipeline_def_ref(call.func, finder, done, body)
    if func is None:
        return None
    args = []
    for position, arg in enumerate(call.args):
        if arg.keyword is None:
            arg = arg.with_changes(
                keyword=cst.Name(pipeline_args.POSITIONAL[position]),
                equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
            )
        args.append(arg)
    return cst.Decorator(decorator=call.with_changes(func=func, args=args))


def _pipeline_def_ref(func: cst.BaseExpression, finder: _Finder, done: Desugared, body: list):
    if isinstance(func, cst.Attribute):  # `dali.Pipeline`, `nvidia.dali.pipeline.Pipeline`
        return func.with_changes(attr=cst.Name("pipeline_def"))
    if finder.pipeline_def_names:
        return cst.Name(sorted(finder.pipeline_def_names)[0])
    if not isinstance(func, cst.Name):
        return None
    for stmt in body:  # `from nvidia.dali import Pipeline` → `from nvidia.dali import Pipeline, pipeline_def`
        if not (
            isinstance(stmt, cst.SimpleStatementLine)
            and len(stmt.body) == 1
            and isinstance(stmt.body[0], cst.ImportFrom)
        ):
            continue
        imp = stmt.body[0]
        if isinstance(imp.names, cst.ImportStar) or imp.relative:
            continue
        alias = next((a for a in imp.names if (a.asname.name.value if a.asname else a.name.value) == func.value), None)
        if alias is None or names.dotted(imp.module) not in ("nvidia.dali", "nvidia.dali.pipeline"):
            continue
        if stmt in done.imports.values():
            return cst.Name("pipeline_def")
        elements = list(imp.names)
        last = elements[-1]
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        added = cst.ImportAlias(
            cst.Name("pipeline_def"),
            comma=last.comma if last.comma != cst.MaybeSentinel.DEFAULT else cst.MaybeSentinel.DEFAULT,
        )
        elements[-1] = last.with_changes(comma=comma)
        new = stmt.with_changes(body=[imp.with_changes(names=[*elements, added])])
        done.imports[new] = stmt
        done.added_pipeline_def = True
        return cst.Name("pipeline_def")
    return None
