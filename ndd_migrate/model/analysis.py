"""One read of a module before any rewrite: its pipeline functions, their call sites, and what each
local name holds (a pipeline object, one batch, a tuple of batches).

Rules consult this model instead of re-deriving facts, so every rule sees the same answers and a
file is analysed once. Nodes in the model are *original* nodes (libcst metadata is keyed by them).
"""

from __future__ import annotations

from collections import Counter

import libcst as cst
from libcst.metadata import QualifiedNameProvider, ScopeProvider

from ndd_migrate.dali import pipeline_args
from ndd_migrate.dali.tables import has_expression_form, op_info
from ndd_migrate.model import constructs
from ndd_migrate.model.features import (
    assigned_aliases,
    checkpoints,
    expected_errors,
    foreign,
    framework_consumers,
    iterator_subclasses,
    iterators,
    keeps,
    library_helpers,
    manual_uses,
    twin_readers,
)
from ndd_migrate.model.kinds import expr_kind, imported
from ndd_migrate.model.types import (
    READER_BLOCKS,
    CrossFile,
    Kind,
    ModuleModel,
    ModuleNames,
    PipelineFunction,
    Problem,
    constant_problem,
    one_of,
)
from ndd_migrate.model.values import (
    attributes,
    build_time,
    external_source,
    graph_constants,
    name_kinds,
    output_arity,
    outputs,
    outside_nodes,
    self_methods,
    source_parameters,
)
from ndd_migrate.model.values.ndd_flow import record_binding
from ndd_migrate.model.values.returns import read as read_returns
from ndd_migrate.syntax import cstutil, names
from ndd_migrate.syntax.cstutil import TRIVIA, SkipsTrivia
from ndd_migrate.syntax.scopes import references


class Analyzer(SkipsTrivia, cst.CSTVisitor):
    """Builds a :class:`ModuleModel` in one traversal (plus a cheap resolution of assignments)."""

    METADATA_DEPENDENCIES = (QualifiedNameProvider, ScopeProvider)

    def __init__(
        self,
        imported: dict[str, bool] | None = None,
        module_names: set[str] | None = None,
        outside: dict[str, str] | None = None,
        on_disk: dict[str, str] | None = None,
        self_calls: dict | None = None,
        iterator_classes: dict | None = None,
        epochs: frozenset[str] = frozenset(),
        requested: dict[str, str] | None = None,
        requested_args: dict[str, tuple[str, ...]] | None = None,
        shared: dict[str, str] | None = None,
    ) -> None:
        """``self_calls``: the module's followable ``self.name()`` calls, when an earlier analysis of
        the same tree found them (they depend on the tree alone: :mod:`self_methods`)."""
        super().__init__()
        self._self_calls = self_calls
        self.model = ModuleModel(
            crossfile=CrossFile(
                imported=imported or {},
                outside=outside or {},
                on_disk=on_disk or {},
                iterator_classes=iterator_classes or {},
                epochs=epochs,
                requested=requested or {},
                requested_args=requested_args or {},
                shared=shared or {},
            ),
            names=ModuleNames(module_level=module_names or set()),
        )
        self._stack: list[PipelineFunction] = []
        self._depth: list[cst.FunctionDef] = []
        self._calls: list[tuple[cst.Call, str]] = []
        self.assigns: list[tuple[object, cst.BaseAssignTargetExpression, cst.BaseExpression]] = []
        self._returns: dict[cst.FunctionDef, list[cst.Return]] = {}  # of functions other than pipelines
        self._every_return: list[
            cst.Return
        ] = []  # all of the module's, pipelines' too (ndd_migrate.model.features.iterators)
        self._consumed: list[tuple[cst.Call, str, cst.BaseExpression, tuple[str, str]]] = []  # see manual_uses
        self._generators: set[cst.FunctionDef] = set()
        self._pipeline_methods: list[tuple[cst.Name, str]] = []  # `name.build()` / `name.run()`
        self._epoch_uses: list[cst.BaseExpression] = []  # see ndd_migrate.model.features.iterators
        self._length_uses: list[cst.BaseExpression] = []  # `pipe` of `len(pipe)`: the same
        self._in_import = False
        self._defined: Counter = Counter()  # qualified name → how many `def`/`class` statements bind it
        self._not_read: set[cst.Name] = set()  # attribute names and keywords: not reads of a name
        # Parameters of the module's functions that hold a pipeline's value at every call (found by
        # ndd_migrate.plan.uses): (scope, name) → (Kind, pipeline), kept when the kinds are resolved again.
        self.parameter_kinds: dict[tuple[object, str], tuple] = {}
        # Each node's parent (trivia left out): the plan follows values upwards (ndd_migrate.plan.uses).
        self.parents: dict[cst.CSTNode, cst.CSTNode] = self.model.parents
        self._open: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if type(node) in TRIVIA:
            return False
        if self._open:
            self.parents[node] = self._open[-1]
        self._open.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if type(original_node) not in TRIVIA:
            self._open.pop()
        super().on_leave(original_node)

    @property
    def calls(self) -> list[tuple[cst.Call, str]]:
        """The module's calls, each with one of its callee's qualified names (a call may be listed
        once per name)."""
        return self._calls

    # -- helpers -----------------------------------------------------------------------------
    # -- the public index: what other modules of the model and the plan ask of a finished analysis --
    def qualnames(self, node: cst.CSTNode) -> set[str]:
        """The qualified names ``node`` may stand for (libcst's, resolved once for the module)."""
        return {q.name for q in self.get_metadata(QualifiedNameProvider, node, None) or ()}

    # -- imports ------------------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        self._in_import = True
        for alias in node.names:
            full = names.dotted(alias.name)
            bound = alias.asname.name.value if alias.asname else None
            if full and full.split(".")[0] == "nvidia":
                self.model.names.dali_roots.add(bound or "nvidia")
            if full == names.NDD and bound:
                self.model.names.ndd = self.model.names.ndd or bound
            if full == "numpy":
                self.model.names.numpy = self.model.names.numpy or bound or "numpy"
            if full == "math" and not self._depth:
                self.model.names.math = self.model.names.math or bound or "math"

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self._in_import = True
        module = names.dotted(node.module) if node.module else None
        if isinstance(node.names, cst.ImportStar) or module is None:
            return
        for alias in node.names:
            bound = alias.asname.name.value if alias.asname else alias.name.value
            if not node.relative and module.split(".")[0] == "nvidia":
                self.model.names.dali_roots.add(bound)
            if f"{module}.{alias.name.value}" == names.NDD:
                self.model.names.ndd = self.model.names.ndd or bound

    def leave_Import(self, node: cst.Import) -> None:
        self._in_import = False

    def leave_ImportFrom(self, node: cst.ImportFrom) -> None:
        self._in_import = False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._not_read.add(node.attr)

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._not_read.add(node.keyword)

    def visit_Name(self, node: cst.Name) -> None:
        for pipeline in self._stack:
            pipeline.local_names.add(node.value)
        if not self._in_import and node not in self._not_read:
            self.model.names.read.add(node.value)

    # -- legacy Pipeline subclasses (ndd_migrate.model.sources.legacy) ---------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        from ndd_migrate.model.sources import legacy_read  # imported here: it builds on this module's classes

        qual = next(iter(self.qualnames(node.name)), node.name.value)
        self._defined[qual] += 1
        found = legacy_read.read_class(self, node, qual, self.model)
        if found is not None:
            self.model.pipelines[qual] = found  # its instances are Kind.PIPELINE, like a @pipeline_def's
            if found.graph is not None:
                self.model.by_node[found.graph] = found  # fn.* calls in define_graph see their pipeline

    # -- pipeline functions -------------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        qual = next(iter(self.qualnames(node.name)), node.name.value)
        self._defined[qual] += 1
        decorator = next((d for d in node.decorators if self._decorator_name(d) == names.PIPELINE_DEF), None)
        if decorator is not None:
            pipeline = PipelineFunction(qualname=qual, node=node, decorator=decorator)
            self._read_decorator(pipeline)
            self._read_body(pipeline)
            autoserialize = manual_uses.autoserialize_decorator(self, node)
            if autoserialize is not None:
                pipeline.problems.append(
                    Problem(constructs.AUTOSERIALIZED, autoserialize, *manual_uses.AUTOSERIALIZE, keeps=True)
                )
            self.model.pipelines[qual] = pipeline
            self.model.by_node[node] = pipeline
            self._stack.append(pipeline)
        else:
            self.model.functions[qual] = node
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

    def _read_decorator(self, pipeline: PipelineFunction) -> None:
        expr = pipeline.decorator.decorator
        if not isinstance(expr, cst.Call):
            return
        for arg in expr.args:
            if arg.keyword is None:
                pipeline.problems.append(
                    Problem(
                        constructs.PIPELINE_FUNCTION,
                        pipeline.node,
                        "decorator arguments that are not `name=value` cannot be read",
                    )
                )
                continue
            pipeline.decorator_args[arg.keyword.value] = arg
            self._check_blocking(pipeline, arg.keyword.value)

    def _check_blocking(self, pipeline: PipelineFunction, name: str) -> None:
        pipeline.checkpointing = pipeline.checkpointing or name in pipeline_args.CHECKPOINTING
        if name == "enable_conditionals":  # NDD423: rewritten, or blocked where and why (its blockers())
            pipeline.conditionals_enabled = True
            return
        reason = pipeline_args.BLOCKING.get(name)
        if reason:
            pipeline.problems.append(Problem(constructs.PIPELINE_FUNCTION, pipeline.node, f"`{name}`: {reason}"))

    def _read_body(self, pipeline: PipelineFunction) -> None:
        body = pipeline.node.body.body if isinstance(pipeline.node.body, cst.IndentedBlock) else ()
        pipeline.returns = found = read_returns(pipeline.node)
        if not found.ends:
            pipeline.problems.append(
                Problem(
                    constructs.PIPELINE_FUNCTION, pipeline.node, "the function does not end with `return <outputs>`"
                )
            )
        pipeline.problems.extend(Problem(constructs.PIPELINE_FUNCTION, node, why) for node, why in found.problems)
        for index, stmt in enumerate(body):
            call = cstutil.assigned_call(stmt)
            if call is not None and self._is_reader(call):
                pipeline.top_level_readers.append(call)
                count = output_arity.op_outputs(names.fn_path(names.dali_name(self, call.func)) or "", call)
                if pipeline.reader_index is not None:
                    self._read_twin(pipeline, body, index, count)
                    continue
                pipeline.reader_index = index
                pipeline.reader_outputs = count if isinstance(count, int) else None
        if found.ends and not found.problems:  # ndd_migrate.model.values.outputs: what each `return` gives
            pipeline.problems.extend(
                Problem(constructs.PIPELINE_FUNCTION, *problem)
                for problem in outputs.read_function(self, pipeline, self._is_reader)
            )
        self._place_build_time(pipeline, list(body))

    def _read_twin(self, pipeline: PipelineFunction, body: list, index: int, count) -> None:
        """A second reader statement: read with the first when their epochs line up
        (ndd_migrate.model.features.twin_readers), else the reason blocks the function."""
        first, second = pipeline.top_level_readers[0], pipeline.top_level_readers[-1]
        if pipeline.twin_index is not None:
            why = twin_readers.THIRD
        else:
            why = twin_readers.mismatch(first, second, body[pipeline.reader_index + 1 : index])
        if why is None and not (isinstance(count, int) and count == pipeline.reader_outputs):
            why = "two readers whose number of outputs the migration cannot read: decide how their epochs line up"
        if why is not None:
            pipeline.problems.append(Problem(constructs.PIPELINE_FUNCTION, body[index], why))
            return
        pipeline.twin_index = index
        pipeline.twin_outputs = count

    def _place_build_time(self, pipeline: PipelineFunction, body: list) -> None:
        """Statements that act outside the body run once, before the loop, or block (build_time);
        those before the reader without an op call already run once (NDD001)."""

        is_op_call = self._is_op_call
        anchor = pipeline.reader_index
        once = frozenset(i for i in range(anchor or 0) if not build_time.calls_op(body[i], is_op_call))
        placed = build_time.place(body, is_op_call, once, build_time.unshadowed(self.scope_of), self._is_draw)
        pipeline.hoisted, pipeline.dropped = placed.hoisted - once, placed.dropped
        pipeline.problems.extend(Problem(constructs.PIPELINE_FUNCTION, node, why) for node, why in placed.problems)
        if self._depth:  # built in a function (a factory, a method): checked once its source is known
            pipeline.built_in = self._depth[-1].name.value

    def _is_op_call(self, call: cst.Call) -> bool:
        """Does ``call`` build the graph (``fn.*``, ``dali.math.*``)?"""
        dali = names.dali_name(self, call.func)
        return bool(dali and (names.fn_path(dali) or names.math_function(dali)))

    def _is_draw(self, call: cst.Call) -> bool:
        """Is ``call`` a draw of Python's or numpy's random generators (``random.choice``)?"""
        found = {q.name for q in self.get_metadata(QualifiedNameProvider, call.func, None) or ()}
        return any(name.startswith(("random.", "numpy.random.")) for name in found)

    def _is_reader(self, call: cst.Call) -> bool:
        info = op_info(names.fn_path(names.dali_name(self, call.func)) or "")
        return bool(info and info.reader)

    def visit_Return(self, node: cst.Return) -> None:
        self._every_return.append(node)
        pipeline = self._innermost_pipeline()
        if pipeline is None:
            if self._depth:
                self._returns.setdefault(self._depth[-1], []).append(node)
            return
        # Where a pipeline function may return is read with its body (ndd_migrate.model.values.returns).

    def visit_Yield(self, node: cst.Yield) -> None:
        if self._depth:
            self._generators.add(self._depth[-1])
        pipeline = self._innermost_pipeline()
        if pipeline is not None:
            pipeline.problems.append(Problem(constructs.PIPELINE_FUNCTION, node, "`yield` inside a pipeline function"))

    def _array_input(self, constant: cst.Call) -> bool:
        """Is ``constant`` a ``types.Constant`` of a numpy array given as a positional input of an
        ``fn.*`` operator that dynamic mode has (ndd_migrate.model.values.graph_constants)?"""
        arg = self.parents.get(constant)
        call = self.parents.get(arg)
        if (
            not graph_constants.op_input(arg, call, constant)
            or graph_constants.array_of(constant, self.qualnames) is None
        ):
            return False
        info = op_info(names.fn_path(names.dali_name(self, call.func)) or "")
        return info is not None and info.ndd is not None and not has_expression_form(info.fn_path)

    def _innermost_pipeline(self) -> PipelineFunction | None:
        """The pipeline function whose own body (not a nested function) we are in."""
        if self._stack and self._depth and self._depth[-1] is self._stack[-1].node:
            return self._stack[-1]
        return None

    # -- calls -----------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        dali = names.dali_name(self, node.func)
        if dali == names.PIPELINE:
            self.model.explicit_pipelines.append(node)
        elif dali == names.PIPELINE_DEF and not isinstance(self.parents.get(node), cst.Decorator):
            self.model.called_pipeline_defs.append(node)  # `pipeline_def(body, ...)`: kept (NDD001)
        pipeline = self._stack[-1] if self._stack else None
        if pipeline is not None:
            self._read_graph_call(pipeline, node, dali)
        elif self._depth and self._is_reader(node):
            self.model.outside_readers.setdefault(self._depth[0], []).append(node)
        for qual in self.qualnames(node.func):
            self._calls.append((node, qual))
        self._record_pipeline_use(node)

    def _read_graph_call(self, pipeline: PipelineFunction, node: cst.Call, dali: str | None) -> None:
        """A call in a pipeline function: a ``types.Constant``, or an ``fn.*`` operator."""
        if dali in names.CONSTANTS:
            if self._array_input(node):
                pipeline.input_constants.append(node)  # written as the array it wraps (NDD901)
            else:
                pipeline.problems.append(Problem(constructs.NO_DYNAMIC_FORM, node, constant_problem(dali)))
        path = names.fn_path(dali)
        if path is None:
            return
        info = op_info(path)
        if path == "external_source":
            pipeline.external_sources.append(node)  # resolved in leave_Module (NDD421)
        elif path == "python_function":  # written out as plain Python (NDD422) when it can be
            pipeline.python_functions.append(node)
        elif has_expression_form(path):
            pass  # written as an expression (NDD101), which blocks the call it cannot write
        elif info is None or info.ndd is None:
            pipeline.problems.append(Problem(constructs.NO_DYNAMIC_FORM, node, f"`fn.{path}` has no dynamic-mode form"))
        else:
            # A helper's reader, already reported where the returned value is read (ndd_migrate.model.values.outputs).
            known = any(p.hint == outputs.HELPER_READER_HINT and p.node.deep_equals(node) for p in pipeline.problems)
            if info.reader and not known and not self._is_hoistable_reader(pipeline, node):
                pipeline.problems.append(
                    Problem(constructs.PIPELINE_FUNCTION, node, *self._reader_place(pipeline, node))
                )
            if info.random:
                pipeline.random_calls.append(node)

    def _record_pipeline_use(self, node: cst.Call) -> None:
        """What a call may do with a pipeline object: an iterator or ``epoch_size``/``reader_meta``
        that needs the reader's metadata (iterators), ``name.build()``/``name.run()`` (NDD007), a
        use that keeps it in pipeline mode (manual_uses)."""
        by_reader = cstutil.kwarg(iterators.keyworded(node, None), "reader_name") is not None  # not `size=` alone
        epoch_use = (
            by_reader and iterators.epoch_aware(node, names.dali_name(self, node.func))
        ) or iterators.metadata_receiver(node)
        if epoch_use is not None:
            self._epoch_uses.append(epoch_use)
        length = iterators.length_receiver(node)
        if length is not None and "builtins.len" in self.qualnames(node.func):
            self._length_uses.append(length)  # `len(pipe)`: a metadata use where `__len__` asks it
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.attr.value in ("build", "run"):
            self._pipeline_methods.append((func.value, func.attr.value))  # NDD007
        consumed = manual_uses.consumed_pipeline(self, node)
        if consumed is not None:
            self._consumed.append((node, *consumed))

    def _is_hoistable_reader(self, pipeline: PipelineFunction, call: cst.Call) -> bool:
        return self._innermost_pipeline() is pipeline and any(call is c for c in pipeline.top_level_readers)

    def _reader_place(self, pipeline: PipelineFunction, call: cst.Call) -> tuple[str, str]:
        """Why a reader call cannot become the generator's loop, from where it is, and what to do."""
        if self._innermost_pipeline() is not pipeline:
            return (
                "a reader called in a function nested in the pipeline function would be created anew at each call",
                "create the reader in the pipeline function and pass its outputs on",
            )
        node, kind = call, None
        while node in self.parents and node is not pipeline.node:
            node = self.parents[node]
            kind = READER_BLOCKS.get(type(node), kind)
        if kind is not None and pipeline.top_level_readers:
            return (
                f"a second reader, called inside {kind} beside the one at the top of the function: "
                "decide how their epochs line up",
                "rewrite the function by hand, with one loop over both readers' epochs",
            )
        if kind is not None:
            return (
                f"a reader called inside {kind} cannot be created once, before the batch loop",
                "call the reader at the top of the function, outside any block, and use its outputs there",
            )
        return (
            "a reader called inside an expression cannot be created once",
            "assign its outputs in a statement of its own: `images, labels = fn.readers.X(...)`",
        )

    # -- assignments (for Kind) ----------------------------------------------------------------
    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        record_binding(node, self.model.bindings)

    def visit_For(self, node: cst.For) -> None:
        record_binding(node, self.model.bindings)
        self.assigns.append((self.get_metadata(ScopeProvider, node.target, None), node.target, node))

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self.assigns.append((self.get_metadata(ScopeProvider, node.target, None), node.target, node))

    def visit_Assign(self, node: cst.Assign) -> None:
        record_binding(node, self.model.bindings)
        assigned_aliases.note(self, node)

    def leave_Assign(self, original_node: cst.Assign) -> None:
        # Recorded when left, after the comprehensions of its value (`outs = [o.cpu() for o in (a, b)]`):
        # the kinds are resolved in this order, and the comprehension's target comes first.
        if len(original_node.targets) != 1:
            return
        scope = self.get_metadata(ScopeProvider, original_node, None)
        self.assigns.append((scope, original_node.targets[0].target, original_node.value))

    def visit_Module(self, node: cst.Module) -> None:
        # Before the functions are read: their graph code may call such methods (outputs, graph_code).
        found = self._self_calls
        self.model.self_calls = found if found is not None else self_methods.calls(node, self.qualnames)

    def leave_Module(self, original_node: cst.Module) -> None:
        """Once the whole module is read: the call sites and what the pipelines read from outside,
        the kinds of names (with the factories found on the way), the uses that keep a pipeline in
        pipeline mode, the epoch-aware shape, checkpointing."""
        for qual, pipeline in self.model.pipelines.items():  # a call makes whichever is bound then
            if self._defined[qual] > 1:
                about = (
                    constructs.PIPELINE_FUNCTION
                    if isinstance(pipeline, PipelineFunction)
                    else constructs.PIPELINE_SUBCLASS
                )
                why = f"`{qual}` is defined more than once in this module, and each call makes the one bound then: rename one"
                pipeline.problems.append(Problem(about, pipeline.node, why))
        assigned_aliases.block(self.model)
        for call, qual in self._calls:
            pipeline = self.model.pipelines.get(qual)
            if pipeline is None:
                other = imported(self.model, qual) if self.model.crossfile.imported else None
                if other is not None and other.convert:
                    self.model.imported_sites[call] = other
                continue
            self.model.call_sites[call] = pipeline
            self._read_call_site_args(pipeline, call)
        for pipeline in self.model.pipelines.values():
            self._resolve_external_source(pipeline, original_node)
            self._check_outer_stores(pipeline)
            self._check_outside_nodes(pipeline)
        self._calls.extend(self.model.self_calls.items())  # followed as calls of the method
        self._find_self_attributes()
        self.resolve_kinds()
        while self._find_factories():
            self.resolve_kinds()
        self._find_calls_through_names()
        self._consumed.extend(iterator_subclasses.subclass_uses(self, original_node, self._calls))  # NDD411
        self._epoch_uses.extend(iterator_subclasses.epoch_uses(self.model))
        self._consumed.extend(framework_consumers.framework_uses(self, self._every_return, self._calls))  # NDD411
        self._consumed.extend(expected_errors.uses(original_node, self.parents))  # NDD905
        keeps.record(self, self._consumed, self._returns)
        foreign.find(self, self._pipeline_methods)
        iterators.mark(self, self._epoch_uses, self._length_uses)
        iterators.mark_requested(self, self.model.crossfile.requested_args)
        iterators.mark_restarts(self, self._calls)
        twin_readers.check_late(self.model, original_node)
        for pipeline, node, why, hint in checkpoints.blocked(self, original_node):
            pipeline.problems.append(Problem(constructs.CHECKPOINTING, node, why, hint))
        library_helpers.record(self, original_node, self._calls)

    def _read_call_site_args(self, pipeline: PipelineFunction, call: cst.Call) -> None:
        """The pipeline settings a call site of ``pipeline`` gives by keyword."""
        for arg in call.args:
            if arg.keyword is not None:
                if arg.keyword.value in pipeline_args.PARAMETERS:
                    pipeline.call_site_args.add(arg.keyword.value)
                self._check_blocking(pipeline, arg.keyword.value)

    def _find_self_attributes(self) -> None:
        """The ``self`` attributes followed like names (ndd_migrate.model.values.attributes)."""
        classes = {
            pipeline.node for pipeline in self.model.pipelines.values() if isinstance(pipeline.node, cst.ClassDef)
        }
        for found in attributes.find(self.parents, classes):
            self.model.attributes.stores[found.target] = found
            self.model.attributes.reads.update(dict.fromkeys(found.reads, found))

    def _find_calls_through_names(self) -> None:
        """``cls(...)`` where ``cls`` holds a pipeline function (Kind.FUNCTION): a call site of each
        pipeline it may be, whose settings the migrated functions take as at any other call."""
        for (scope, name), (kind, held) in self.model.kinds.items():
            if kind is not Kind.FUNCTION:
                continue
            for access in references(scope, name):
                call = self.parents.get(access.node)
                if not (isinstance(call, cst.Call) and call.func is access.node):
                    continue
                self.model.made_through[call] = held
                for pipeline in getattr(held, "members", (held,)):
                    self._read_call_site_args(pipeline, call)

    def _resolve_external_source(self, pipeline: PipelineFunction, module: cst.Module) -> None:
        """One external source that can play the reader's role becomes ``pipeline.source``; any other
        blocks the rewrite with the reason (NDD421)."""

        def parameter(name: str, none_allowed: bool) -> tuple[str, int | None] | str | None:
            function = source_parameters.source_parameter(self, pipeline.node, name)
            if function is None:
                return None
            return source_parameters.passed_source_kind(self, function, module, name, none_allowed)

        for call in pipeline.external_sources:
            where = external_source.place(pipeline.node, call, self.parents)
            found = external_source.analyse(
                pipeline.node, module, call, where, pipeline.reader_index is not None, parameter, self._is_reader
            )
            if pipeline.source is not None:
                found = "more than one external source: decide how their epochs line up"
            elif not isinstance(found, str) and found.batch is not True and not pipeline.given("batch_size"):
                found = "`batch=False` (or a `batch=` decided at run time) needs the pipeline's `batch_size`, which neither the decorator nor a call gives"
            if isinstance(found, str):
                pipeline.problems.append(Problem(constructs.EXTERNAL_SOURCE, call, found))
            else:
                pipeline.source = found

    def _check_outer_stores(self, pipeline: PipelineFunction) -> None:
        """A graph defined in a function ran when the function built it, so code run after the
        function returned may read what the graph code stored on an outside object (``self.length
        = len(source)``); the generator runs those statements only at its first batch: blocks, unless
        they come first and can run where the graph was built (:meth:`_lifts`)."""
        if pipeline.built_in is None or not isinstance(pipeline, PipelineFunction) or pipeline.node is None:
            return
        body = list(pipeline.node.body.body)
        anchor = (
            pipeline.reader_index
            if pipeline.reader_index is not None
            else pipeline.source.index
            if pipeline.source
            else 0
        )
        params = pipeline.node.params
        local = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
        local |= {name for stmt in body for name in build_time.bound_names(stmt)}
        stores = [i for i in sorted(pipeline.hoisted | set(range(anchor))) if build_time.outer_store(body[i], local)]
        if stores and stores[-1] < anchor and self._lifts(pipeline, stores[-1] + 1):
            return
        if stores:
            target = build_time.outer_store(body[stores[0]], local)
            pipeline.problems.append(
                Problem(
                    constructs.PIPELINE_FUNCTION,
                    body[stores[0]],
                    f"`{target} = ...` runs when `{pipeline.built_in}` builds the graph; in the generator it would run "
                    f"only at the first batch, after `{pipeline.built_in}` has returned: code that reads it in between "
                    "(a length, a size) would not find it",
                    "compute it in the function, before the graph is built",
                )
            )

    def _check_outside_nodes(self, pipeline: PipelineFunction) -> None:
        """A graph node made outside the function and read in it blocks (:mod:`outside_nodes`)."""
        if not isinstance(pipeline, PipelineFunction) or not isinstance(pipeline.node, cst.FunctionDef):
            return
        found = outside_nodes.made_outside(pipeline.node, self.scope_of, self.parents, self._is_op_call)
        if found is not None:
            name, call = found
            pipeline.problems.append(
                Problem(
                    constructs.PIPELINE_FUNCTION,
                    name,
                    f"`{name.value}` is the output of `{cstutil.code(call.func)}` called outside "
                    f"`{pipeline.node.name.value}`: pipeline mode puts that node into the graph that uses it; "
                    "dynamic mode would run it once, where it is made",
                    "make the operator's call inside the pipeline function",
                )
            )

    def _lifts(self, pipeline: PipelineFunction, count: int) -> bool:
        """Can the first ``count`` statements of ``pipeline``'s body, which store on an outside
        object, run where the graph was built (:func:`build_time.lift_refusal`)? Then NDD001 writes
        them there (``pipeline.lifted``)."""
        block = self.parents.get(pipeline.node)
        function = self.parents.get(block)
        if not isinstance(function, cst.FunctionDef) or function.body is not block:
            return False
        if build_time.lift_refusal(function, pipeline.node, count, self._is_op_call) is not None:
            return False
        pipeline.lifted = count
        return True

    def scope_of(self, node: cst.CSTNode):
        """The scope ``node`` is in (None for a node the scope analysis did not see)."""
        return self.get_metadata(ScopeProvider, node, None)

    def _find_factories(self) -> bool:
        """Record functions whose every ``return`` gives a pipeline (they build and return it:
        ``pipe = train_pipe(...); return pipe``), so that what they return is a PIPELINE too.
        True when new ones were found: names bound from them need resolving again."""
        new = False
        for node, returns in self._returns.items():
            qual = next(iter(self.qualnames(node.name)), node.name.value)
            if qual in self.model.factories or node in self._generators or not _ends_with_return(node):
                continue
            found = [self._return_kind(r) for r in returns]
            if all(kind is not None and kind[0] is Kind.PIPELINE for kind in found):
                self.model.factories[qual] = one_of(kind[1] for kind in found)
                new = True
        return new

    def _return_kind(self, ret: cst.Return) -> tuple | None:
        return expr_kind(self.model, ret.value, self.scope_of, self.qualnames) if ret.value else None

    def resolve_kinds(self) -> None:
        """Kinds of names, then of the ``self`` attributes bound from them (ndd_migrate.model.values.attributes),
        then of the names bound from those attributes again, until nothing new is found."""
        self.model.attributes.kinds.clear()
        name_kinds.resolve(self)
        for _ in range(3):
            before = dict(self.model.attributes.kinds)
            for found in set(self.model.attributes.stores.values()):
                kind = expr_kind(self.model, found.value, self.scope_of, self.qualnames)
                if kind is None:
                    self.model.attributes.kinds.pop(found, None)
                else:
                    self.model.attributes.kinds[found] = kind
            if self.model.attributes.kinds == before:
                return
            name_kinds.resolve(self)


def _ends_with_return(node: cst.FunctionDef) -> bool:
    """The body's last statement is a ``return``: no path falls off the end returning None."""
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    last = body[-1] if body else None
    return isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Return)
