"""Checkpointing (NDD415): what a pipeline's ``enable_checkpointing``/``checkpoint=`` become.

Pipeline mode checkpoints the whole pipeline (``pipe.checkpoint()`` → bytes; ``checkpoint=`` at
creation restores it). Dynamic mode checkpoints objects: an ``ndd.checkpoint.Checkpoint`` in which
readers and RNGs are registered by name; a state loaded into it is applied when the object is
registered, so registration must come before the first ``next_epoch``. The migrated function takes
the checkpoint as ``checkpoint=`` and registers its reader and RNGs right after creating them; each
call site gets its own ``<pipe>_checkpoint``. The two formats are not interchangeable: a checkpoint
saved by the pipeline cannot be restored into the migrated code.

The settings may come from the decorator, the call site or both (the call site wins, as in
``pipeline_def``). What cannot be rewritten faithfully blocks the function with one problem
(:func:`blocked`), decided before any rule runs, so that no call site or use is half rewritten.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import GlobalScope

from ndd_migrate.model.features.iterators import plain_call_sites, taken_name
from ndd_migrate.syntax import cstutil, tree

ENABLE, RESTORE = "enable_checkpointing", "checkpoint"


def name(pipe: str) -> str:
    """The checkpoint that goes with the pipeline object ``pipe``."""
    return f"{pipe}_checkpoint"


def _given(pipeline, call: cst.Call | None, keyword: str) -> cst.BaseExpression | None:
    """``keyword``'s value at the call site, else in the decorator (``pipeline_def`` merges them so)."""
    arg = cstutil.kwarg(call, keyword) if call is not None else None
    if arg is None:
        arg = pipeline.decorator_args.get(keyword)
    return arg.value if arg is not None else None


def creation_args(call: cst.Call, pipeline) -> tuple[bool, cst.BaseExpression | None]:
    """(checkpointing enabled for the pipeline ``call`` creates, the state it restores), from the
    call site and ``fn``'s decorator. ``checkpoint=None`` restores nothing."""
    enable = _given(pipeline, call, ENABLE)
    restore = _given(pipeline, call, RESTORE)
    if restore is not None and cstutil.literal_value(restore) is None:
        restore = None
    enabled = enable is not None and cstutil.literal_value(enable) is not False
    return enabled or restore is not None, restore


def restored_from_decorator(call: cst.Call, pipeline) -> bool:
    return cstutil.kwarg(call, RESTORE) is None and RESTORE in pipeline.decorator_args


def blocked(analyzer, module: cst.Module):
    """(pipeline, node, why, what to write) for checkpointing pipelines that cannot be migrated, at
    most one for each: every call site must be ``name = f(...)`` (the checkpoint is created next to
    it), a state restored in the decorator must be one every call site sees, the pipeline must not
    depend on an external source's position, and every ``pipe.checkpoint(...)`` of a pipeline of the
    module (with checkpointing or not: without, it fails in pipeline mode too) must be one that NDD415
    rewrites."""
    model = analyzer.model
    plain = plain_call_sites(model, analyzer.assigns)
    found: dict = {}
    for pipeline in model.pipelines.values():
        if pipeline.checkpointing:
            why = _creation_blocker(analyzer, pipeline, plain)
            if why is not None:
                found[pipeline] = (pipeline.node, *why)
    _block_checkpoint_calls(analyzer, module, found)
    for pipeline, (node, why, hint) in found.items():
        yield pipeline, node, why, hint


def _creation_blocker(analyzer, pipeline, plain: set) -> tuple[str, str] | None:
    """``(why, what to write)`` when the checkpointing ``pipeline`` cannot be created with its
    checkpoint: the decorator's state, its call sites (none in the module, or one not ``name =
    f(...)``; ``plain``: the pipelines without such), an external source; else None."""
    state = pipeline.decorator_args.get(RESTORE)
    sites = [call for call, f in analyzer.model.call_sites.items() if f is pipeline]
    if state is not None and not _seen_by_call_sites(analyzer, state.value, sites):
        return (
            f"the decorator restores `checkpoint={cstutil.code(state.value)}`, which its call sites do not all see",
            f"give it at each call site instead: `pipe = {pipeline.node.name.value}(..., checkpoint={cstutil.code(state.value)})`",
        )
    if not sites:
        return (
            "checkpointing, but no pipeline is created in this module: call sites in other modules get no checkpoint",
            f"create and checkpoint it in this module (`pipe = {pipeline.node.name.value}(...)`), or keep it in pipeline mode",
        )
    if pipeline not in plain:
        bound = {id(value) for _, target, value in analyzer.assigns if isinstance(target, cst.Name)}
        site = next(call for call in sites if id(call) not in bound)
        return (
            f"checkpointing with a call site that is not `name = f(...)`: `{cstutil.code(site)}`",
            f"bind each call to a name of its own (`pipe = {pipeline.node.name.value}(...)`) and use that name",
        )
    taken = taken_name(analyzer.model, sites, name, "its checkpoint")
    if taken is not None:
        return taken, "rename the program's name, which the migration needs for the checkpoint"
    if pipeline.external_sources:
        return (
            "checkpointing a pipeline with an external source: dynamic mode does not save its position",
            "checkpoint the source yourself, or keep this pipeline in pipeline mode",
        )
    return None


def _block_checkpoint_calls(analyzer, module: cst.Module, found: dict) -> None:
    """Add to ``found`` (pipeline → (node, why, what to write)) each pipeline of the module, not in
    it yet, with a ``pipe.checkpoint(...)`` that NDD415 does not rewrite."""
    from ndd_migrate.model.kinds import expr_kind
    from ndd_migrate.model.types import Kind, PipelineFunction, PipelineGroup

    # the walk of the module only when there is an `x.checkpoint(...)` call
    uses = _checkpoint_calls(module) if any(q.endswith(".checkpoint") for _, q in analyzer.calls) else []
    for call, form in uses:
        kind = expr_kind(analyzer.model, call.func.value, analyzer.scope_of, analyzer.qualnames)
        if not kind or kind[0] is not Kind.PIPELINE:
            continue
        members = kind[1].members if isinstance(kind[1], PipelineGroup) else (kind[1],)
        for pipeline in members:
            if isinstance(pipeline, PipelineFunction) and pipeline not in found:
                why = _unsupported_use(analyzer, call, form, pipeline, len(members) > 1)
                if why is not None:
                    found[pipeline] = (pipeline.node, *why)


def _seen_by_call_sites(analyzer, state: cst.BaseExpression, sites) -> bool:
    """A decorator's ``checkpoint=state`` can be restored at each call site when every call site
    sees the value the decorator saw: a literal, or a module-level name bound once."""
    if isinstance(state, (cst.SimpleString, cst.ConcatenatedString)) or cstutil.literal_value(state) is None:
        return True
    if not isinstance(state, cst.Name):
        return False
    scope = analyzer.scope_of(state)
    if not isinstance(scope, GlobalScope) or len(scope.assignments[state.value]) != 1:
        return False  # not a module-level name (a class or function scope), or rebound
    for call in sites:
        current = analyzer.scope_of(call)
        while current is not None and current is not scope:
            if current.assignments[state.value]:
                return False  # shadowed where the pipeline is created
            current = current.parent
        if current is None:
            return False
    return True


class _Uses(cst.CSTVisitor):
    """Every ``x.checkpoint(...)`` call with where it stands: ``"statement"`` (the whole
    expression statement), ``"assign"`` (the whole value of ``name = ...``), ``"inline"`` (inside a
    one-statement line), ``"lambda"``, or ``"header"`` (a compound statement's header, a one-line
    suite, a line of several statements)."""

    def __init__(self) -> None:
        self.found: list[tuple[cst.Call, str]] = []
        self._statements: list[cst.CSTNode] = []
        self._lambdas = 0

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            self._statements.append(node)
        elif isinstance(node, cst.Lambda):
            self._lambdas += 1
        elif isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value == "checkpoint":
                self.found.append((node, self._form(node)))
        return True

    def on_leave(self, original: cst.CSTNode) -> None:
        if isinstance(original, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            self._statements.pop()
        elif isinstance(original, cst.Lambda):
            self._lambdas -= 1

    def _form(self, call: cst.Call) -> str:
        stmt = self._statements[-1] if self._statements else None
        if self._lambdas:
            return "lambda"
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return "header"
        small = stmt.body[0]
        if isinstance(small, cst.Expr) and small.value is call:
            return "statement"
        if (
            isinstance(small, cst.Assign)
            and small.value is call
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
        ):
            return "assign"
        return "inline"


def _checkpoint_calls(module: cst.Module) -> list[tuple[cst.Call, str]]:
    uses = _Uses()
    tree.visit(module, uses)
    return uses.found


def _unsupported_use(analyzer, call: cst.Call, form: str, pipeline, several: bool) -> tuple[str, str] | None:
    """Why NDD415 cannot rewrite this ``pipe.checkpoint(...)`` of ``fn`` (and what to write), or None."""
    pipe = call.func.value
    use = f"`{cstutil.code(call)}`"
    if not pipeline.checkpointing:
        return (
            f"{use}, but `{pipeline.node.name.value}` is never created with checkpointing (this fails in pipeline mode too)",
            f"create it with `{cstutil.code(pipe)} = {pipeline.node.name.value}(..., enable_checkpointing=True)`",
        )
    if several or not isinstance(pipe, cst.Name):
        return (
            f"{use} on an object that is not one name bound by `name = {pipeline.node.name.value}(...)`",
            "bind the pipeline to a name of its own and call `.checkpoint()` on that name",
        )
    args = call.args
    if len(args) > 1 or any(a.star or (a.keyword is not None and a.keyword.value != "filename") for a in args):
        return (
            f"{use} with arguments other than a file name",
            "call `pipe.checkpoint()` or `pipe.checkpoint(filename)`",
        )
    if form == "lambda":
        return (f"{use} inside a lambda", "call it in a statement of its own (a `def` instead of the lambda)")
    if form == "header" or (args and form == "inline"):
        return (
            f"{use} inside a larger statement",
            f"assign it first, on a line of its own: `state = {cstutil.code(call)}`, then use `state`",
        )
    sites = _sites_of(analyzer, pipe)
    if not sites:
        return (
            f"{use} on a pipeline created elsewhere",
            f"create it where it is checkpointed: `{pipe.value} = {pipeline.node.name.value}(..., enable_checkpointing=True)`",
        )
    if not all(creation_args(site, pipeline)[0] for site in sites):
        return (
            f"{use}, but `{pipe.value}` is created without checkpointing (this fails in pipeline mode too)",
            f"create it with `{pipe.value} = {pipeline.node.name.value}(..., enable_checkpointing=True)`",
        )
    if pipeline.reader_index is None and not pipeline.random_calls:
        return (
            f"{use} of a pipeline with no reader and no random op: dynamic mode has no state to save",
            "drop the checkpoint, or keep this pipeline in pipeline mode",
        )
    return None


def _sites_of(analyzer, name: cst.Name) -> list[cst.Call]:
    """The pipeline calls bound to ``name`` (``name = f(...)``) in the scope it resolves to."""
    scope = analyzer.scope_of(name)
    while scope is not None and not scope.assignments[name.value]:
        scope = None if scope.parent is scope else scope.parent
    return [
        value
        for s, target, value in analyzer.assigns
        if s is scope
        and isinstance(target, cst.Name)
        and target.value == name.value
        and value in analyzer.model.call_sites
    ]


def registrations(reader_call: cst.Call | None, reader: str | None, rngs: list[str]) -> list:
    """``if checkpoint is not None: checkpoint.register(obj, key)`` for the reader and the RNGs."""
    objects = []
    if reader is not None:
        key = cstutil.kwarg(reader_call, "name")
        literal = cstutil.literal_value(key.value) if key is not None else None
        objects.append((reader, literal if isinstance(literal, str) else "reader"))
    objects += [(rng, rng) for rng in rngs]
    if not objects:
        return []
    body = [
        cst.SimpleStatementLine(
            [
                cst.Expr(
                    cst.Call(
                        cst.Attribute(cst.Name("checkpoint"), cst.Name("register")),
                        [
                            cst.Arg(cst.Name(obj), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                            cst.Arg(cst.SimpleString(f'"{key}"')),
                        ],
                    )
                )
            ]
        )
        for obj, key in objects
    ]
    test = cst.Comparison(cst.Name("checkpoint"), [cst.ComparisonTarget(cst.IsNot(), cst.Name("None"))])
    return [cst.If(test=test, body=cst.IndentedBlock(body))]


def restore(ck: str, state: cst.BaseExpression) -> cst.BaseStatement:
    """``ck.deserialize(state)``; guarded by ``if state is not None:`` when ``state`` is a name, an
    attribute or a subscript (``checkpoint=None`` restored nothing in pipeline mode). A literal needs
    no guard, and other expressions are not evaluated twice (a ``None`` from them fails loudly)."""
    load = cst.SimpleStatementLine(
        [cst.Expr(cst.Call(cst.Attribute(cst.Name(ck), cst.Name("deserialize")), [cst.Arg(state)]))]
    )
    if not isinstance(state, (cst.Name, cst.Attribute, cst.Subscript)):
        return load
    test = cst.Comparison(state.deep_clone(), [cst.ComparisonTarget(cst.IsNot(), cst.Name("None"))])
    return cst.If(test=test, body=cst.IndentedBlock([load]))


def save_to_file(path: cst.BaseExpression, data: cst.BaseExpression, handle: str) -> cst.With:
    """``with open(path, "wb") as handle: handle.write(data)``: what ``pipe.checkpoint(path)`` also did."""
    opened = cst.Call(
        cst.Name("open"),
        [cst.Arg(path, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), cst.Arg(cst.SimpleString('"wb"'))],
    )
    write = cst.Call(cst.Attribute(cst.Name(handle), cst.Name("write")), [cst.Arg(data)])
    return cst.With(
        items=[cst.WithItem(opened, asname=cst.AsName(cst.Name(handle)))],
        body=cst.IndentedBlock([cst.SimpleStatementLine([cst.Expr(write)])]),
    )
