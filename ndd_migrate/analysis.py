"""One read of a module before any rewrite: its pipeline functions, their call sites, and what each
local name holds (a pipeline object, one batch, a tuple of batches).

Rules consult this model instead of re-deriving facts, so every rule sees the same answers and a
file is analysed once. Nodes in the model are *original* nodes (libcst metadata is keyed by them).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import QualifiedNameProvider, ScopeProvider

from ndd_migrate import names, pipeline_args
from ndd_migrate.rules.tables import op_info


class Kind(enum.Enum):
    PIPELINE = "pipeline"  # what a @pipeline_def function returns
    BATCHES = "batches"  # what pipe.run() returns: one TensorList per output
    BATCH = "batch"  # one output of pipe.run()


@dataclass
class Problem:
    """Why a pipeline function is left as it is (reported as a TODO at ``node``)."""

    code: str
    node: cst.CSTNode
    message: str


@dataclass(eq=False)
class PipelineFunction:
    qualname: str
    node: cst.FunctionDef
    decorator: cst.Decorator
    decorator_args: dict[str, cst.Arg] = field(default_factory=dict)
    call_site_args: set[str] = field(default_factory=set)
    problems: list[Problem] = field(default_factory=list)
    reader_index: int | None = None
    reader_outputs: int | None = None
    random_calls: list[cst.Call] = field(default_factory=list)
    top_level_readers: list[cst.Call] = field(default_factory=list)
    local_names: set[str] = field(default_factory=set)
    convert: bool = False  # decided by the engine: no problems and NDD001 may apply

    def parameters(self) -> list[tuple[str, cst.BaseExpression | None]]:
        """Pipeline-level settings that become keyword-only parameters, with their defaults."""
        out = []
        for name in pipeline_args.PARAMETERS:
            if name in self.decorator_args:
                out.append((name, self.decorator_args[name].value))
            elif name in self.call_site_args:
                out.append((name, None))
        return out

    def given(self, name: str) -> bool:
        return name in self.decorator_args or name in self.call_site_args


@dataclass
class ModuleModel:
    pipelines: dict[str, PipelineFunction] = field(default_factory=dict)
    by_node: dict[cst.FunctionDef, PipelineFunction] = field(default_factory=dict)
    call_sites: dict[cst.Call, PipelineFunction] = field(default_factory=dict)
    kinds: dict[tuple[object, str], tuple[Kind, PipelineFunction]] = field(default_factory=dict)
    ndd_alias: str | None = None
    numpy_alias: str | None = None
    module_names: set[str] = field(default_factory=set)


class Analyzer(cst.CSTVisitor):
    """Builds a :class:`ModuleModel` in one traversal (plus a cheap resolution of assignments)."""

    METADATA_DEPENDENCIES = (QualifiedNameProvider, ScopeProvider)

    def __init__(self) -> None:
        super().__init__()
        self.model = ModuleModel()
        self._stack: list[PipelineFunction] = []
        self._depth: list[cst.FunctionDef] = []
        self._calls: list[tuple[cst.Call, str]] = []
        self._assigns: list[tuple[object, cst.BaseAssignTargetExpression, cst.BaseExpression]] = []

    # -- helpers -----------------------------------------------------------------------------
    def _qualnames(self, node: cst.CSTNode) -> set[str]:
        return {q.name for q in self.get_metadata(QualifiedNameProvider, node, None) or ()}

    # -- imports ------------------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = names.dotted(alias.name)
            bound = alias.asname.name.value if alias.asname else None
            if full == names.NDD and bound:
                self.model.ndd_alias = self.model.ndd_alias or bound
            if full == "numpy":
                self.model.numpy_alias = self.model.numpy_alias or bound or "numpy"

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = names.dotted(node.module) if node.module else None
        if isinstance(node.names, cst.ImportStar) or module is None:
            return
        for alias in node.names:
            bound = alias.asname.name.value if alias.asname else alias.name.value
            if f"{module}.{alias.name.value}" == names.NDD:
                self.model.ndd_alias = self.model.ndd_alias or bound

    def visit_Name(self, node: cst.Name) -> None:
        if not self._depth:
            self.model.module_names.add(node.value)
        for fn in self._stack:
            fn.local_names.add(node.value)

    # -- pipeline functions -------------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        decorator = next(
            (d for d in node.decorators if self._decorator_name(d) == names.PIPELINE_DEF), None
        )
        if decorator is not None:
            qual = next(iter(self._qualnames(node.name)), node.name.value)
            fn = PipelineFunction(qualname=qual, node=node, decorator=decorator)
            self._read_decorator(fn)
            self._read_body(fn)
            self.model.pipelines[qual] = fn
            self.model.by_node[node] = fn
            self._stack.append(fn)
        self._depth.append(node)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._depth.pop()
        if self._stack and self._stack[-1].node is node:
            self._stack.pop()

    def _decorator_name(self, decorator: cst.Decorator) -> str | None:
        expr = decorator.decorator
        if isinstance(expr, cst.Call):
            expr = expr.func
        return names.dali_name(self, expr)

    def _read_decorator(self, fn: PipelineFunction) -> None:
        expr = fn.decorator.decorator
        if not isinstance(expr, cst.Call):
            return
        for arg in expr.args:
            if arg.keyword is None:
                fn.problems.append(
                    Problem("NDD001", fn.node, "decorator arguments that are not `name=value` cannot be read")
                )
                continue
            fn.decorator_args[arg.keyword.value] = arg
            self._check_blocking(fn, arg.keyword.value)

    def _check_blocking(self, fn: PipelineFunction, name: str) -> None:
        reason = pipeline_args.BLOCKING.get(name)
        if reason:
            fn.problems.append(Problem("NDD001", fn.node, f"`{name}`: {reason}"))

    def _read_body(self, fn: PipelineFunction) -> None:
        body = fn.node.body.body if isinstance(fn.node.body, cst.IndentedBlock) else ()
        last = body[-1] if body else None
        if not (
            isinstance(last, cst.SimpleStatementLine)
            and len(last.body) == 1
            and isinstance(last.body[0], cst.Return)
            and last.body[0].value is not None
        ):
            fn.problems.append(
                Problem("NDD001", fn.node, "the function does not end with `return <outputs>`")
            )
        for index, stmt in enumerate(body):
            call = _assigned_call(stmt)
            if call is not None and self._is_reader(call):
                fn.top_level_readers.append(call)
                if fn.reader_index is not None:
                    fn.problems.append(
                        Problem("NDD001", stmt, "more than one reader: decide how their epochs line up")
                    )
                    continue
                fn.reader_index = index
                info = op_info(names.fn_path(names.dali_name(self, call.func)) or "")
                fn.reader_outputs = info.num_outputs if info else None

    def _is_reader(self, call: cst.Call) -> bool:
        info = op_info(names.fn_path(names.dali_name(self, call.func)) or "")
        return bool(info and info.reader)

    def visit_Return(self, node: cst.Return) -> None:
        fn = self._innermost_pipeline()
        if fn is None:
            return
        body = fn.node.body.body
        last = body[-1] if body else None
        if not (isinstance(last, cst.SimpleStatementLine) and last.body and last.body[0] is node):
            fn.problems.append(Problem("NDD001", node, "a `return` before the end of the function"))

    def visit_Yield(self, node: cst.Yield) -> None:
        fn = self._innermost_pipeline()
        if fn is not None:
            fn.problems.append(Problem("NDD001", node, "`yield` inside a pipeline function"))

    def _innermost_pipeline(self) -> PipelineFunction | None:
        """The pipeline function whose own body (not a nested function) we are in."""
        if self._stack and self._depth and self._depth[-1] is self._stack[-1].node:
            return self._stack[-1]
        return None

    # -- calls -----------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        dali = names.dali_name(self, node.func)
        path = names.fn_path(dali)
        fn = self._stack[-1] if self._stack else None
        if path is not None and fn is not None:
            info = op_info(path)
            if info is None or info.ndd is None:
                fn.problems.append(Problem("NDD901", node, f"`fn.{path}` has no dynamic-mode form"))
            else:
                if info.reader and not self._is_hoistable_reader(fn, node):
                    fn.problems.append(
                        Problem("NDD001", node, "a reader called inside an expression cannot be created once")
                    )
                if info.random:
                    fn.random_calls.append(node)
        for qual in self._qualnames(node.func):
            self._calls.append((node, qual))

    def _is_hoistable_reader(self, fn: PipelineFunction, call: cst.Call) -> bool:
        return self._innermost_pipeline() is fn and any(call is c for c in fn.top_level_readers)

    # -- assignments (for Kind) ----------------------------------------------------------------
    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1:
            return
        scope = self.get_metadata(ScopeProvider, node, None)
        self._assigns.append((scope, node.targets[0].target, node.value))

    def leave_Module(self, original_node: cst.Module) -> None:
        for call, qual in self._calls:
            fn = self.model.pipelines.get(qual)
            if fn is None:
                continue
            self.model.call_sites[call] = fn
            for arg in call.args:
                if arg.keyword is not None:
                    if arg.keyword.value in pipeline_args.PARAMETERS:
                        fn.call_site_args.add(arg.keyword.value)
                    self._check_blocking(fn, arg.keyword.value)
        self._resolve_kinds()

    def _resolve_kinds(self) -> None:
        """Give each local name one Kind when every binding of it agrees; otherwise none.

        Flow-insensitive on purpose: a name rebound to something else anywhere in its scope is
        not rewritten (no guessing)."""
        found: dict[tuple[object, str], list] = {}
        for scope, target, value in self._assigns:  # source order: `pipe` is known before `pipe.run()`
            for name, kind in self._value_kinds(scope, target, value):
                seen = found.setdefault((scope, name), [])
                seen.append(kind)
                if kind is not None and all(k == kind for k in seen):
                    self.model.kinds[(scope, name)] = kind
                else:
                    self.model.kinds.pop((scope, name), None)
        for (scope, name), kinds in found.items():
            bindings = len(scope.assignments[name]) if scope is not None else 0
            if len(kinds) != bindings:
                self.model.kinds.pop((scope, name), None)

    def _value_kinds(self, scope, target, value) -> list[tuple[str, tuple | None]]:
        kind = expr_kind(self.model, value, lambda name: scope, self._qualnames)
        if isinstance(target, cst.Name):
            return [(target.value, kind)]
        if isinstance(target, (cst.Tuple, cst.List)):
            element = (Kind.BATCH, kind[1]) if kind and kind[0] is Kind.BATCHES else None
            return [
                (el.value.value, element) for el in target.elements if isinstance(el.value, cst.Name)
            ]
        return []


# Methods that give a batch back from a batch, in both modes (``as_cpu`` is pipeline mode's ``cpu``).
_BATCH_TO_BATCH = {"cpu", "gpu", "as_cpu"}


def expr_kind(model: ModuleModel, expr: cst.BaseExpression, scope_of, qualnames) -> tuple | None:
    """What an (original) expression holds: ``(Kind, PipelineFunction)`` or None when unknown.

    ``scope_of(name_node)`` gives the scope a name is looked up from; ``qualnames(node)`` its
    qualified names. One function for the analysis and for the rules, so both agree.
    """
    if isinstance(expr, cst.Name):
        return lookup(model, scope_of(expr), expr)
    if isinstance(expr, cst.Call):
        for qual in qualnames(expr.func):
            if qual in model.pipelines:
                return (Kind.PIPELINE, model.pipelines[qual])
        func = expr.func
        if isinstance(func, cst.Attribute) and not expr.args:
            recv = expr_kind(model, func.value, scope_of, qualnames)
            if recv and recv[0] is Kind.PIPELINE and func.attr.value == "run":
                return (Kind.BATCHES, recv[1])
            if recv and recv[0] is Kind.BATCH and func.attr.value in _BATCH_TO_BATCH:
                return recv
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
        recv = expr_kind(model, expr.value, scope_of, qualnames)
        if recv and recv[0] is Kind.BATCHES:
            return (Kind.BATCH, recv[1])
    return None


def lookup(model: ModuleModel, scope, expr: cst.BaseExpression) -> tuple | None:
    """The Kind of a plain name as seen from ``scope`` (walking out to enclosing scopes)."""
    if not isinstance(expr, cst.Name) or scope is None:
        return None
    current = scope
    while True:
        if (current, expr.value) in model.kinds:
            return model.kinds[(current, expr.value)]
        if current.assignments[expr.value]:
            return None  # bound here, but not to something we understand
        parent = current.parent
        if parent is current:
            return None
        current = parent


def _assigned_call(stmt: cst.CSTNode) -> cst.Call | None:
    """``targets = call(...)`` as a whole statement → the call."""
    if (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Assign)
        and len(stmt.body[0].targets) == 1
        and isinstance(stmt.body[0].value, cst.Call)
    ):
        return stmt.body[0].value
    return None
