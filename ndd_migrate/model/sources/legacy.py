"""Legacy ``Pipeline`` subclasses (``__init__`` creating ``ops.*`` objects, ``define_graph`` calling
them): what the analysis reads from one, so NDD401/NDD402 can turn it into the generator function
of docs/target-shape.md ("Legacy `Pipeline` subclasses").

A class is registered in the module model like a ``@pipeline_def`` function (its instances are
``Kind.PIPELINE``), so the call-site rules (``build()`` removed, ``run()`` → ``next()``, outputs)
apply to it unchanged. Everything that the rewrite cannot carry over faithfully becomes a
:class:`~ndd_migrate.model.analysis.Problem` and the class is left as it is, with a TODO.

Nodes here are *original* nodes: the rules map them to their rewritten counterparts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import QualifiedNameProvider

from ndd_migrate.syntax.cstutil import SkipsTrivia
from ndd_migrate.model.values import build_time, graph_constants, output_arity, outputs
from ndd_migrate.model import constructs
from ndd_migrate.syntax import cstutil, names
from ndd_migrate.dali import pipeline_args
from ndd_migrate.model.features import twin_readers
from ndd_migrate.model.values.returns import contains_return
from ndd_migrate.model.values.returns import read as read_returns
from ndd_migrate.model.types import PipelineFunction, Problem, constant_problem
from ndd_migrate.dali.tables import OpInfo, fn_path_of_legacy_op, has_expression_form, op_info
from ndd_migrate.model.features import python_operators


_INCOMPLETE = "a `Pipeline` subclass without both `__init__` and `define_graph`"


_NO_FORM = {
    "PythonFunction": "`ops.PythonFunction` created in an `if` of `__init__` (or `... if c else None`): write its "
    "calls as plain Python over the samples by hand (`ndd.as_batch([f(np.asarray(s)) for s in x.tensors])`)",
    "ExternalSource": "`ops.ExternalSource` that `iter_setup` does not feed (none, or created in an `if`) has "
    "no dynamic-mode form: make the data a dynamic-mode batch where it is fed (`pipe.feed_input`, `source=`) and "
    "pass it to the ops",
}

# `ops.ExternalSource` fed by `feed_input` in `iter_setup` (docs/target-shape.md, "Legacy `Pipeline`
# subclasses"): the arguments that only tune how the pipeline copies or queues the data, and those
# carried to `ndd.batch`.
_SOURCE_DROPPED = {"name", "ndim", "no_copy", "blocking", "cuda_stream", "use_copy_kernel",
                   "prefetch_queue_depth", "bytes_per_sample_hint", "preserve"}
SOURCE_CARRIED = ("layout", "dtype", "device")
_FEED_PARAMS = ("data_node", "data", "layout", "cuda_stream", "use_copy_kernel")


@dataclass(eq=False)
class OpObject:
    """``self.<attr> = ops.<ops_path>(...)`` in ``__init__``."""

    attr: str
    ops_path: str
    info: OpInfo
    ctor: cst.Call  # the first one when it is created in the branches of an `if`
    # Created in the branches of an ``if`` of ``__init__`` (``if dali_cpu: self.decode = ops.X(device="cpu")
    # else: self.decode = ops.X(device="mixed")``): each constructor becomes ``<args_name> = dict(...)``
    # where it is, and the calls take ``**<args_name>`` (docs/target-shape.md).
    ctors: list[cst.Call] = field(default_factory=list)
    conditional: bool = False
    args_name: str | None = None  # decided by NDD401
    # A different operator in each branch (`ops.Resize` or `ops.RandomResizedCrop`): each branch also
    # binds `<op_name>` to its ndd function (`resize_op, resize_args = ndd.resize, dict(...)`).
    infos: dict[cst.Call, OpInfo] = field(default_factory=dict)
    paths: dict[cst.Call, str] = field(default_factory=dict)  # each constructor's `ops.` path
    several: bool = False
    optional: bool = False  # `ops.X(...) if cond else None`: tested in define_graph (`if self.x:`)
    op_name: str | None = None  # decided by NDD401
    # `ops.PythonFunction(function=...)`: each call is written out as plain Python over the samples
    # (codegen/python_function.py). A function given by anything but a name (a lambda, a call) is
    # evaluated once, where the constructor was: `<function_name> = <function>` (name decided by NDD401).
    python: bool = False
    bind_function: bool = False
    function_name: str | None = None

    def keywords(self) -> set[str]:
        return {k for ctor in (self.ctors or [self.ctor]) for k in _keywords(ctor)}


@dataclass(eq=False)
class Feed:
    """``self.feed_input(self.<attr>, data, layout=...)`` in ``iter_setup``: a statement of its own
    that becomes ``<batch_name> = ndd.batch(data, layout=..., dtype=..., device=...)``."""

    stmt: cst.SimpleStatementLine
    attr: str  # the external source's output, `self.<attr> = self.<source>()` in define_graph
    data: int  # position of the data argument in the call's arguments
    layout: int | None  # position of the `layout` argument
    carried: dict[str, cst.BaseExpression]  # the source's constructor / call arguments for ndd.batch
    batch_name: str = ""  # decided by NDD401


@dataclass(eq=False)
class LegacyPipeline(PipelineFunction):
    """A ``Pipeline`` subclass; ``node`` is the ``ClassDef``."""

    init: cst.FunctionDef | None = None
    graph: cst.FunctionDef | None = None
    settings: dict[str, cst.BaseExpression] = field(default_factory=dict)
    dropped_settings: list[tuple[str, cst.Arg]] = field(default_factory=list)  # executor-only
    init_dropped: set[int] = field(default_factory=set)  # __init__ statements that disappear
    ops: dict[str, OpObject] = field(default_factory=dict)
    op_calls: dict[cst.Call, OpObject] = field(default_factory=dict)  # self.<op>(...) in define_graph
    cond_ctors: dict[cst.Call, OpObject] = field(default_factory=dict)  # ops.X(...) in an `if` of __init__
    cond_assigns: dict[cst.BaseExpression, OpObject] = field(default_factory=dict)  # their assigned values
    op_tests: dict[cst.Attribute, str] = field(default_factory=dict)  # `self.x` of an optional op: "truth" / "none"
    # `dev = "mixed"` in __init__ where `dev` only gives ops their `device=`: these literals become "gpu".
    mixed_literals: set[cst.SimpleString] = field(default_factory=set)
    data_attrs: set[str] = field(default_factory=set)  # self.<attr> that become the local <attr>
    # self.<attr> whose name a local already has (`self.device = "cpu"` beside a parameter `device`):
    # the local they become instead (`self_device`).
    renamed: dict[str, str] = field(default_factory=dict)
    reader_call: cst.Call | None = None
    # The reader called in every branch of an ``if`` of ``define_graph`` (a condition fixed when the
    # pipeline is built): each call → the target its statement binds (docs/target-shape.md).
    reader_branches: dict[cst.Call, cst.BaseAssignTargetExpression] = field(default_factory=dict)
    reader_if_index: int | None = None  # that ``if`` in ``define_graph``'s body
    other_ops: set[str] = field(default_factory=set)  # operator objects without a dynamic-mode form
    mixed_outputs: set[str] = field(default_factory=set)  # readers with other outputs in other branches
    super_index: int | None = None  # the `super().__init__(...)` statement
    # `iter_setup` feeding `ops.ExternalSource` outputs: it becomes a function nested in the
    # generator, called before `define_graph`'s body at each batch.
    setup: cst.FunctionDef | None = None
    sources: dict[str, cst.Call] = field(default_factory=dict)  # self.<attr> = ops.ExternalSource(...)
    fed: dict[str, cst.Call] = field(default_factory=dict)  # output attr → `self.<source>(...)` in define_graph
    source_indices: set[int] = field(default_factory=set)  # define_graph statements `self.x = self.<source>()`
    feeds: dict[cst.SimpleStatementLine, Feed] = field(default_factory=dict)
    setup_nonlocal: list[str] = field(default_factory=list)  # attrs `iter_setup` assigns
    batch_size_reads: set[cst.Attribute] = field(default_factory=set)  # `self.batch_size` in `iter_setup`
    setup_name: str = "iter_setup"  # decided by NDD401
    # Decided by NDD401 before the class's body is rewritten:
    op_rngs: dict[str, str] = field(default_factory=dict)  # op object with its own seed → its RNG's name
    ctx_name: str | None = None
    reader_name: str = "reader"
    twin_name: str = "reader_2"  # a second reader whose epochs line up (ndd_migrate.model.features.twin_readers)
    reader_outputs_name: str = "reader_outputs"  # what `next_epoch` yields, with `reader_branches`
    reader_creation: cst.BaseExpression | None = None  # the rewritten reader call, with `reader_branches`
    outputs_name: str = "outputs"
    batches_name: str = "batches"

    def given(self, name: str) -> bool:
        return name in self.settings

    def local_of(self, attr: str) -> str:
        """The local name ``self.<attr>`` (one of ``data_attrs``) becomes."""
        return self.renamed.get(attr, attr)


def owner(model, function_stack: list[cst.FunctionDef]) -> LegacyPipeline | None:
    """The legacy pipeline whose ``__init__``, ``define_graph`` or ``iter_setup`` is being visited. Asked by the
    rules for many nodes: the methods are indexed once per module (after the analysis)."""
    if not function_stack:
        return None
    methods = model.legacy_methods
    if methods is None:
        methods = model.legacy_methods = {}
        for pipeline in model.pipelines.values():
            if isinstance(pipeline, LegacyPipeline):
                for method in (pipeline.init, pipeline.graph, pipeline.setup):
                    if method is not None:
                        methods.setdefault(method, pipeline)
    for node in reversed(function_stack):
        pipeline = methods.get(node)
        if pipeline is not None:
            return pipeline
    return None


def names_once(pipeline: LegacyPipeline, name: str) -> bool:
    """``name`` appears once in the class (the ``def`` of the method of that name)."""
    finder = _NameCount(name)
    pipeline.node.visit(finder)
    return finder.count == 1


class _NameCount(SkipsTrivia, cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        self.name = name
        self.count = 0

    def visit_Name(self, node: cst.Name) -> None:
        self.count += node.value == self.name


def localize(expr: cst.BaseExpression, pipeline: LegacyPipeline) -> cst.BaseExpression:
    """``expr`` with ``self.<attr>`` of the class's values read from the local ``<attr>``."""
    return expr.visit(_Localize(pipeline))


class _Localize(SkipsTrivia, cst.CSTTransformer):
    def __init__(self, pipeline: LegacyPipeline) -> None:
        self.pipeline = pipeline

    def leave_Attribute(self, original: cst.Attribute, updated: cst.BaseExpression) -> cst.BaseExpression:
        attr = self_attr(original)
        return cst.Name(self.pipeline.local_of(attr)) if attr in self.pipeline.data_attrs else updated


def _subclassed(parent: LegacyPipeline, node: cst.ClassDef, refused=None) -> None:
    """One problem for all the subclasses of ``parent``, naming each (not one TODO per subclass).
    It replaces "without both `__init__` and `define_graph`" at the class: a base class that
    leaves a method to its subclasses is what it is for (one TODO at the class, not two).

    ``refused``: why the family could not be flattened into one generator per subclass, or why one
    of its classes did not convert once flattened (:mod:`ndd_migrate.model.sources.subclasses`): that is the problem."""
    name = node.name.value
    if refused is not None:
        if not any(getattr(p, "family", False) and p.node is parent.node for p in parent.problems):
            root = parent.node.name.value
            problem = Problem(
                refused.about, parent.node, refused.message,
                refused.hint or f"fix this (or write `{root}` as one `Pipeline` subclass of its own), then run ndd-migrate again",
                keeps=refused.keeps,
            )
            problem.family = True
            # The base's own problems are not what keeps the family; its classes' own reasons are.
            parent.problems[:] = [problem, *(p for p in parent.problems if getattr(p, "family", False))]
        if name in refused.reasons:  # a class left for a reason of its own, said at it
            parent.problems.append(_own_reason(node, refused.reasons[name]))
        return
    if any(p.message.startswith("subclassed by ") for p in parent.problems):
        for problem in parent.problems:
            if problem.message.startswith("subclassed by "):
                problem.message = problem.message.replace(": a function cannot be", f", `{name}`: a function cannot be")
        return
    parent.problems[:] = [p for p in parent.problems if not (p.node is parent.node and p.message == _INCOMPLETE)]
    parent.problems.append(Problem(
        constructs.PIPELINE_SUBCLASS, parent.node, f"subclassed by `{name}`: a function cannot be",
        f"write each subclass as one `Pipeline` subclass of its own, with the `__init__` and methods of "
        f"`{parent.node.name.value}` it uses, then run ndd-migrate again",
    ))


def _own_reason(node: cst.ClassDef, reason: tuple) -> Problem:
    """Why a class of a family left in part stays as it is, at the class (reported with its base)."""
    code, why, keeps, hint = reason
    problem = Problem(code, node, f"its subclass `{node.name.value}`: {why}", hint, keeps=keeps)
    problem.family = True
    return problem


def read_class(resolver: cst.MetadataDependent, node: cst.ClassDef, qualname: str, model) -> LegacyPipeline | None:
    """The legacy pipeline a class defines, or None when it does not derive from ``Pipeline``.

    A class deriving from a legacy pipeline of ``model`` keeps that one as it is: a function cannot
    be subclassed."""
    for base in node.bases:
        for qual in resolver.get_metadata(QualifiedNameProvider, base.value, None) or ():
            parent = model.pipelines.get(qual.name)
            if isinstance(parent, LegacyPipeline):
                _subclassed(parent, node, model.refused_families.get(parent.node.name.value))
            # A class further down a family left in part: its own reason, at it, reported with the base.
            for root, refused in model.refused_families.items():
                if node.name.value in refused.reasons and isinstance(model.pipelines.get(root), LegacyPipeline) and root != qual.name:
                    model.pipelines[root].problems.append(_own_reason(node, refused.reasons[node.name.value]))
    if not any(names.dali_name(resolver, base.value) == names.PIPELINE for base in node.bases):
        return None
    pipeline = LegacyPipeline(qualname=qualname, node=node, decorator=None)
    pipeline.local_names = _names_in(node)
    _Reader(resolver, pipeline, model.module_names).read()
    return pipeline


class _Reader:
    def __init__(self, resolver: cst.MetadataDependent, pipeline: LegacyPipeline, module_names: set[str]) -> None:
        self.resolver = resolver
        self.pipeline = pipeline
        self.refused_outputs: set[str] = set()  # external source outputs already reported
        self.module_names = module_names
        self.pending_nones: dict[str, list[cst.BaseExpression]] = {}  # `self.x = None` in a branch of `__init__`
        self.no_form: set[tuple[str, str]] = set()  # (attr, ops path) reported in a branch of `__init__`

    def problem(self, node: cst.CSTNode, message: str, about: str = constructs.PIPELINE_SUBCLASS, hint: str = "") -> None:
        self.pipeline.problems.append(Problem(about, node, message, hint))

    def read(self) -> None:
        pipeline = self.pipeline
        body = pipeline.node.body.body if isinstance(pipeline.node.body, cst.IndentedBlock) else ()
        for index, stmt in enumerate(body):
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__init__" and not stmt.decorators:
                pipeline.init = stmt
            elif isinstance(stmt, cst.FunctionDef) and stmt.name.value == "define_graph" and not stmt.decorators:
                pipeline.graph = stmt
            elif isinstance(stmt, cst.FunctionDef) and stmt.name.value == "iter_setup" and not stmt.decorators:
                pipeline.setup = stmt
            elif not (index == 0 and cstutil.is_docstring(stmt)):
                name = stmt.name.value if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) else None
                self.problem(
                    stmt,
                    f"`{name}` has no counterpart in a generator function"
                    if name
                    else "class-level statements have no counterpart in a generator function",
                )
        if pipeline.node.decorators:
            self.problem(pipeline.node, "a decorated `Pipeline` subclass: the decorator expects a class")
        if pipeline.init is None or pipeline.graph is None:
            self.problem(pipeline.node, _INCOMPLETE)
            return
        self.read_init(pipeline.init)
        init_attrs = set(pipeline.data_attrs)
        self.read_graph(pipeline.graph)
        self.read_setup(init_attrs)
        self.check_names()
        self.read_device_names()

    # -- __init__ ------------------------------------------------------------------------------
    def read_init(self, init: cst.FunctionDef) -> None:
        params = init.params
        if not params.params or params.params[0].name.value != "self" or params.posonly_params:
            self.problem(init, "`__init__` whose first parameter is not `self`")
            return
        found_super = False
        for index, stmt in enumerate(init.body.body):
            if index == 0 and cstutil.is_docstring(stmt):
                self.pipeline.init_dropped.add(index)
                continue
            call = _expr_call(stmt)
            if call is not None and self.is_super_init(call):
                found_super = True
                self.pipeline.super_index = index
                self.read_settings(call)
                continue
            target, value = _self_assignment(stmt)
            if target is not None:
                self.read_attribute(index, stmt, target, value)
            elif isinstance(stmt, cst.If):
                self.read_if(stmt)
            elif _uses_self(stmt):
                self.problem(stmt, "this use of `self` in `__init__` has no counterpart in a generator function")
        for target in self.pending_nones:  # `None` in a branch, no operator in another: a value
            self.pipeline.data_attrs.add(target)
        if not found_super:
            self.problem(init, "`__init__` does not call `super().__init__(batch_size, num_threads, device_id, ...)`")

    def is_super_init(self, call: cst.Call) -> bool:
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "__init__"):
            return False
        owner = func.value
        if isinstance(owner, cst.Call) and isinstance(owner.func, cst.Name) and owner.func.value == "super":
            return True
        return names.dali_name(self.resolver, owner) == names.PIPELINE

    def read_settings(self, call: cst.Call) -> None:
        args = list(call.args)
        if names.dali_name(self.resolver, call.func.value) == names.PIPELINE:
            args = args[1:]  # Pipeline.__init__(self, ...)
        for position, arg in enumerate(args):
            if arg.star == "**" and isinstance(arg.value, cst.Name) and self.read_settings_dict(arg.value.value):
                continue
            if arg.star:
                self.problem(arg, "`*args`/`**kwargs` passed to `Pipeline.__init__` cannot be read")
                continue
            name = arg.keyword.value if arg.keyword else pipeline_args.POSITIONAL[position] if position < len(pipeline_args.POSITIONAL) else None
            if name in pipeline_args.PARAMETERS:
                self.pipeline.settings[name] = arg.value
            elif name in pipeline_args.BLOCKING:
                self.problem(arg, f"`{name}`: {pipeline_args.BLOCKING[name]}")
            elif name in pipeline_args.EXECUTOR_ONLY or name == "exec_pipelined":
                self.pipeline.dropped_settings.append((name, arg))
            else:
                self.problem(arg, f"`Pipeline.__init__` argument `{name}` is not understood")
        if "batch_size" not in self.pipeline.settings:
            self.problem(call, "no `batch_size` given to `Pipeline.__init__`")

    def read_settings_dict(self, name: str) -> bool:
        """``kwargs = dict()``, ``if deterministic: kwargs["seed"] = 7``, ``super().__init__(...,
        **kwargs)``: a dict of ``__init__`` built for the settings, holding at most ``seed``, read as
        ``seed=kwargs.get("seed")`` (``RNG(seed=None)`` draws a random seed, as the pipeline did
        without one). False when the dict is used otherwise or holds other keys."""
        uses = _DictUses(name)
        self.pipeline.init.body.visit(uses)
        if uses.created != 1 or uses.other or not uses.keys <= {"seed"}:
            return False
        if uses.keys:
            self.pipeline.settings["seed"] = cst.parse_expression(f'{name}.get("seed")')
        return True

    def read_attribute(self, index: int, stmt, target: str, value: cst.BaseExpression) -> None:
        optional = _optional_call(value)
        if optional is not None and (names.dali_name(self.resolver, optional.func) or "").startswith(names.OPS + "."):
            self.read_optional(stmt, target, value, optional)
            return
        dali = names.dali_name(self.resolver, value.func) if isinstance(value, cst.Call) else None
        if dali is None or not dali.startswith(names.OPS + "."):
            self.pipeline.data_attrs.add(target)
            if isinstance(value, cst.Name) and value.value == target:
                self.pipeline.init_dropped.add(index)  # `self.x = x`: the parameter is the local
            return
        ops_path = dali[len(names.OPS) + 1:]
        info = op_info(fn_path_of_legacy_op(ops_path) or "")
        self.pipeline.init_dropped.add(index)
        if ops_path == "ExternalSource" and self.pipeline.setup is not None and target not in self.pipeline.sources:
            self.pipeline.sources[target] = value  # checked with its calls and `iter_setup` (read_setup)
        elif ops_path == "PythonFunction":
            self.read_python_function(index, stmt, target, value, info)
        elif (info is None or info.ndd is None) and not has_expression_form(info and info.fn_path):
            self.pipeline.other_ops.add(target)
            self.problem(stmt, _NO_FORM.get(ops_path, f"`ops.{ops_path}` has no dynamic-mode form"), about=constructs.OPS_OBJECT)
        elif any(a.keyword is None and a.star != "**" for a in value.args):
            self.problem(stmt, f"`ops.{ops_path}` with positional or `*` arguments cannot be read", about=constructs.OPS_OBJECT)
        elif target in self.pipeline.ops:
            self.problem(stmt, f"`self.{target}` is assigned more than one operator", about=constructs.OPS_OBJECT)
        else:
            self.pipeline.ops[target] = OpObject(target, ops_path, info, value)

    def read_python_function(self, index: int, stmt, target: str, value: cst.Call, info: OpInfo) -> None:
        """``self.f = ops.PythonFunction(function=..., ...)``: its calls become plain Python over the
        samples, as ``fn.python_function`` does (NDD422); what that cannot write out is reported here,
        with the constructor's own arguments (the calls' are checked in ``read_graph``)."""
        why = python_operators.unsupported(list(value.args), "`ops.PythonFunction`", self.fixed_names())
        if any(a.keyword is None for a in value.args):
            why = "`ops.PythonFunction` with positional arguments cannot be read: pass `function=`"
        if why is None and target in self.pipeline.ops:
            why = f"`self.{target}` is assigned more than one operator"
        if why is not None:
            self.pipeline.other_ops.add(target)
            self.problem(stmt, why, about=constructs.OPS_OBJECT)
            return
        op = self.pipeline.ops[target] = OpObject(target, "PythonFunction", info, value, python=True)
        if not self.names_one_function(cstutil.kwarg(value, "function").value):
            op.bind_function = True  # evaluated once, here: `<attr>_function = <function>`
            self.pipeline.init_dropped.discard(index)

    def fixed_names(self) -> frozenset[str]:
        """The parameters of ``__init__`` that it does not bind again: the generator has them, with the
        value the operators were created with (``batch_processing=batch_processing``)."""
        counter = _DeviceNames()
        self.pipeline.init.body.visit(counter)
        params = {p.name.value for p in cstutil.all_params(self.pipeline.init.params)[1:]}
        return frozenset(name for name in params if counter.bound[name] == 0)

    def names_one_function(self, function: cst.BaseExpression) -> bool:
        """``function`` is a name that holds the same value wherever the generator reads it: not bound in
        ``__init__`` (a module-level name, a parameter), or bound there once and not a parameter."""
        if not isinstance(function, cst.Name):
            return False
        counter = _DeviceNames()
        self.pipeline.init.body.visit(counter)
        params = {p.name.value for p in cstutil.all_params(self.pipeline.init.params)}
        bound = counter.bound[function.value]
        return bound == 0 or (bound == 1 and function.value not in params)

    def read_optional(self, stmt, target: str, value: cst.IfExp, ctor: cst.Call) -> None:
        """``self.resize = ops.Resize(...) if resize_shp else None``: ``resize_args = dict(...) if resize_shp
        else None``; ``if self.resize:`` in ``define_graph`` tests ``resize_args is not None``."""
        dali = names.dali_name(self.resolver, ctor.func)
        ops_path = dali[len(names.OPS) + 1:]
        info = op_info(fn_path_of_legacy_op(ops_path) or "")
        self.pipeline.other_ops.add(target)
        if info is None or info.ndd is None:
            self.problem(stmt, _NO_FORM.get(ops_path, f"`ops.{ops_path}` has no dynamic-mode form"), about=constructs.OPS_OBJECT)
        elif any(a.keyword is None and a.star != "**" for a in ctor.args):
            self.problem(stmt, f"`ops.{ops_path}` with positional or `*` arguments cannot be read", about=constructs.OPS_OBJECT)
        elif target in self.pipeline.ops or target in self.pipeline.data_attrs:
            self.problem(stmt, f"`self.{target}` is assigned more than one operator", about=constructs.OPS_OBJECT)
        elif info.reader or (info.random and cstutil.kwarg(ctor, "seed") is not None):
            self.problem(stmt, f"`self.{target}`: a reader or a seeded random operator or `None`: rewrite it by hand", about=constructs.OPS_OBJECT)
        else:
            self.pipeline.other_ops.discard(target)
            op = self.pipeline.ops[target] = OpObject(target, ops_path, info, ctor, conditional=True, optional=True)
            op.ctors.append(ctor)
            op.infos[ctor] = info
            op.paths[ctor] = ops_path
            self.pipeline.cond_ctors[ctor] = op
            self.pipeline.cond_assigns[value] = op

    def read_if(self, stmt: cst.If) -> None:
        """An ``if`` of ``__init__`` (a condition fixed when the pipeline is built): it stays where it
        is, its ``self.x = value`` become locals and its operator objects ``<x>_args = dict(...)``."""
        test = _SelfUses()
        stmt.test.visit(test)
        if test.bare_self or test.calls or test.assigned:
            self.problem(stmt.test, "this use of `self` in `__init__` has no counterpart in a generator function")
        for node, attr in test.attributes:
            if attr not in self.pipeline.data_attrs:
                self.problem(node, f"`self.{attr}` is tested before it is set")
        branch: set[str] = set()
        for inner in stmt.body.body:
            self.read_branch_statement(inner, branch)
        orelse = stmt.orelse
        if isinstance(orelse, cst.If):
            self.read_if(orelse)
        elif isinstance(orelse, cst.Else):
            branch = set()
            for inner in orelse.body.body:
                self.read_branch_statement(inner, branch)

    def read_branch_statement(self, stmt, branch: set[str]) -> None:
        if isinstance(stmt, cst.If):
            self.read_if(stmt)
            return
        target, value = _self_assignment(stmt)
        if target is None:
            if _uses_self(stmt):
                self.problem(stmt, "this use of `self` in `__init__` has no counterpart in a generator function")
            return
        dali = names.dali_name(self.resolver, value.func) if isinstance(value, cst.Call) else None
        if dali is None or not dali.startswith(names.OPS + "."):
            if _is_none(value) and target not in self.pipeline.data_attrs:
                known = self.pipeline.ops.get(target)
                if known is None:  # perhaps an operator in another branch: decided when it is seen
                    self.pending_nones.setdefault(target, []).append(value)
                    return
                if self.make_optional(known, [value]):
                    return
            if target in self.pipeline.ops:
                self.problem(stmt, f"`self.{target}` is an operator in one place and a value in another", about=constructs.OPS_OBJECT)
            self.pipeline.data_attrs.add(target)
            return
        ops_path = dali[len(names.OPS) + 1:]
        info = op_info(fn_path_of_legacy_op(ops_path) or "")
        known = self.pipeline.ops.get(target)
        if not (info is None or info.ndd is None):
            self.pipeline.other_ops.add(target)  # its calls are not reported again when it is refused below
        if info is None or info.ndd is None:
            self.pipeline.other_ops.add(target)
            if (target, ops_path) not in self.no_form:  # once, not in each branch
                self.no_form.add((target, ops_path))
                self.problem(stmt, _NO_FORM.get(ops_path, f"`ops.{ops_path}` has no dynamic-mode form"), about=constructs.OPS_OBJECT)
        elif any(a.keyword is None and a.star != "**" for a in value.args):
            self.problem(stmt, f"`ops.{ops_path}` with positional or `*` arguments cannot be read", about=constructs.OPS_OBJECT)
        elif target in branch or (known is not None and not known.conditional) or target in self.pipeline.data_attrs:
            self.problem(stmt, f"`self.{target}` is assigned more than one operator", about=constructs.OPS_OBJECT)
        elif known is not None and known.info.ndd != info.ndd and (
            known.info.reader != info.reader
            or (info.reader and (_reader_count(known.info, known.ctor) or 0) != (_reader_count(info, value) or -1))
        ):
            self.pipeline.mixed_outputs.add(target)
            self.problem(
                stmt, f"`self.{target}` is `ops.{known.ops_path}` in one branch and `ops.{ops_path}` in another, "
                "with different outputs: one call cannot be both", about=constructs.OPS_OBJECT,
            )
        elif info.random and cstutil.kwarg(value, "seed") is not None:
            self.problem(
                stmt, f"`self.{target}` created in an `if` with its own `seed=`: give it its own RNG by hand",
                about=constructs.OPS_OBJECT,
            )
        else:
            if known is None:
                known = self.pipeline.ops[target] = OpObject(target, ops_path, info, value, conditional=True)
            known.ctors.append(value)
            self.pipeline.cond_assigns[value] = known
            known.infos[value] = info
            known.paths[value] = ops_path
            known.several = known.several or known.info.ndd != info.ndd
            self.pipeline.cond_ctors[value] = known
            self.pipeline.other_ops.discard(target)
            if target in self.pending_nones and not self.make_optional(known, self.pending_nones.pop(target)):
                self.problem(stmt, f"`self.{target}` is an operator in one place and a value in another", about=constructs.OPS_OBJECT)
        branch.add(target)

    def make_optional(self, op: OpObject, nones: list[cst.BaseExpression]) -> bool:
        """``if c: self.cast = ops.Cast(...) else: self.cast = None``: the operator or ``None``, as
        with ``ops.Cast(...) if c else None`` (:meth:`read_optional`): each ``None`` becomes
        ``cast_args = None``. Not for a reader, a seeded random operator or a different operator in
        each branch (False)."""
        seeded = any(op.infos[c].random and cstutil.kwarg(c, "seed") is not None for c in op.ctors)
        if not op.conditional or op.several or op.info.reader or seeded:
            return False
        op.optional = True
        for value in nones:
            self.pipeline.cond_assigns[value] = op
        return True

    # -- define_graph --------------------------------------------------------------------------
    def read_graph(self, graph: cst.FunctionDef) -> None:
        pipeline = self.pipeline
        params = graph.params
        extra = isinstance(params.star_arg, (cst.Param, cst.ParamStar)) or isinstance(params.star_kwarg, cst.Param)
        if len(params.params) != 1 or params.kwonly_params or extra:
            self.problem(graph, "`define_graph` with parameters other than `self`")
        body = graph.body.body
        pipeline.returns = found = read_returns(graph)  # at its end, or ending `if` branches
        if not found.ends:
            self.problem(graph, "`define_graph` does not end with `return <outputs>`")
        for node, why in found.problems:
            self.problem(node, why)
        uses = _SelfUses()
        graph.visit(uses)
        readers: list[cst.Call] = []
        python_calls = [call for call, attr in uses.calls if attr in pipeline.ops and pipeline.ops[attr].python
                        and not python_operators.is_sink([*pipeline.ops[attr].ctor.args, *call.args])]
        for call, attr in uses.calls:
            op = pipeline.ops.get(attr)
            if attr in pipeline.sources:
                self.read_source_call(body, call, attr)
                continue
            if op is None and attr in pipeline.other_ops:
                continue  # reported where it is created
            if op is None:
                self.problem(call, f"`self.{attr}` is not an operator created in `__init__`", about=constructs.OPS_OBJECT)
                continue
            if any(a.star for a in call.args):
                self.problem(call, f"`self.{attr}(*...)`: inputs passed through `*`/`**` cannot be read", about=constructs.OPS_OBJECT)
            both = _keywords(call) & op.keywords()
            if both:
                self.problem(call, f"`self.{attr}(...)` repeats constructor arguments: {', '.join(sorted(both))}", about=constructs.OPS_OBJECT)
            if op.python and not both:
                what = f"`self.{attr}(...)` (`ops.PythonFunction`)"
                args = [*op.ctor.args, *call.args]
                fixed = frozenset() if cstutil.kwarg(call, "batch_processing") else self.fixed_names()
                why = python_operators.unsupported(args, what, fixed)
                if why is None and python_operators.is_sink(args):
                    why = python_operators.sink_obstacle(body, call, args, python_calls, what)
                if why:
                    self.problem(call, why, about=constructs.OPS_OBJECT)
            if op.several and not [a for a in call.args if a.keyword is None] and any(
                i.batch_size_arg for i in op.infos.values()
            ):
                self.problem(call, f"`self.{attr}()` without an input is a different operator in each branch: "
                             "pass `batch_size=` by hand", about=constructs.OPS_OBJECT)
            pipeline.op_calls[call] = op
            if op.info.reader:
                readers.append(call)
        if readers:
            self.read_reader_calls(body, readers)
        for node, attr in uses.attributes:
            if attr in pipeline.ops and pipeline.ops[attr].optional and id(node) in uses.tests:
                pipeline.op_tests[node] = uses.tests[id(node)]
            elif attr in pipeline.ops:
                self.problem(node, f"operator `self.{attr}` used other than by calling it", about=constructs.OPS_OBJECT)
            elif attr not in pipeline.data_attrs and attr not in uses.assigned:
                self.problem(node, f"`self.{attr}` is not set in this class")
        pipeline.data_attrs |= uses.assigned
        for node in uses.bare_self:
            self.problem(node, "`self` passed on: the pipeline object no longer exists")
        for call in uses.fn_calls:
            dali = names.dali_name(self.resolver, call.func)
            if dali in names.CONSTANTS:
                if self._array_input(call, uses.inputs.get(id(call))):
                    pipeline.input_constants.append(call)  # written as the array it wraps (NDD901)
                else:
                    self.problem(call, constant_problem(dali), about=constructs.NO_DYNAMIC_FORM)
                continue
            info = op_info(names.fn_path(dali) or "")
            if info is None or has_expression_form(info.fn_path):
                continue  # an expression form: written, or blocked, by NDD101
            if info.ndd is None:
                self.problem(call, f"`fn.{info.fn_path}` has no dynamic-mode form", about=constructs.NO_DYNAMIC_FORM)
            elif info.reader:
                self.problem(call, "an `fn.readers.*` call inside `define_graph`: create it once by hand")
            elif info.random:
                pipeline.random_calls.append(call)
        if found.ends and not found.problems:
            self.read_outputs(graph, found.all)
        self.place_build_time(body)

    def _array_input(self, constant: cst.Call, place: tuple[cst.Arg, cst.Call] | None) -> bool:
        """Is ``constant`` a ``types.Constant`` of a numpy array given as a positional input of an
        operator that dynamic mode has (``self.<op>(...)`` or ``fn.*``; ndd_migrate.model.values.graph_constants)?"""
        arg, call = place if place is not None else (None, None)
        qualnames = lambda node: {q.name for q in self.resolver.get_metadata(QualifiedNameProvider, node, None) or ()}  # noqa: E731
        if not graph_constants.op_input(arg, call, constant) or graph_constants.array_of(constant, qualnames) is None:
            return False
        op = self.pipeline.op_calls.get(call)
        if op is not None:
            info = None if op.python else op.info
        else:
            info = op_info(names.fn_path(names.dali_name(self.resolver, call.func)) or "")
        return info is not None and info.ndd is not None and not has_expression_form(info.fn_path)

    def place_build_time(self, body) -> None:
        """Statements of ``define_graph`` that act outside it (``self.count += 1``, ``print(...)``)
        run once, before the loop, or block (build_time)."""
        pipeline = self.pipeline

        def is_op_call(call: cst.Call) -> bool:
            attr = self_attr(call.func)
            if attr is not None:
                return attr in pipeline.ops or attr in pipeline.sources or attr in pipeline.other_ops
            return names.fn_path(names.dali_name(self.resolver, call.func)) is not None

        placed = build_time.place(list(body), is_op_call)
        pipeline.hoisted = placed.hoisted
        for node, why in placed.problems:
            self.problem(node, why)

    def read_outputs(self, graph: cst.FunctionDef, rets: list[cst.Return]) -> None:
        """What each ``return`` of ``define_graph`` gives (ndd_migrate.model.values.outputs): a list or tuple is
        unpacked into outputs (``Pipeline._build_graph``), an operator object's outputs (a list)
        included; anything else is one output, as before."""
        pipeline = self.pipeline

        def op_call(call: cst.Call):
            op = pipeline.op_calls.get(call)
            return (op.info.fn_path, _with_ctor(op, call)) if op is not None else None

        first = pipeline.reader_index if pipeline.reader_index is not None else pipeline.reader_if_index
        for stmt in graph.body.body[: first or 0]:
            if contains_return(stmt):
                self.problem(stmt, "a `return` before the reader: dynamic mode creates the reader once, before the loop")
        reader = outputs.Reader(self.resolver, pipeline.reader_call, op_call)
        forms = []
        for ret in rets:
            constant = outputs.constant_output(ret.value)
            if constant is not None:
                pipeline.problems.append(Problem(constructs.PIPELINE_SUBCLASS, ret, *constant))
            found = reader.returned(ret.value, graph)
            forms.append(found.form if isinstance(found, outputs.Outputs) and found.form != "dict" else None)
        final = pipeline.returns.final is not None
        pipeline.branch_forms = forms[:-1] if final else forms
        if final and forms[-1] is not None:
            pipeline.outputs = outputs.Outputs(None, forms[-1])
        if pipeline.reader_index is not None and pipeline.reader_outputs is None:
            stmt = graph.body.body[pipeline.reader_index]
            why = outputs.reader_name_used(graph, stmt, rets, lambda call: output_arity.canonical_path(pipeline.op_calls[call].info.fn_path))
            if why:
                pipeline.problems.append(Problem(constructs.PIPELINE_SUBCLASS, stmt, why, outputs.READER_HINT))

    def read_source_call(self, body, call: cst.Call, source: str) -> None:
        """``self.<attr> = self.<source>(...)``, a statement of ``define_graph``'s body: ``<attr>`` is
        bound to the batch ``iter_setup`` feeds, before the body runs."""
        pipeline = self.pipeline
        index = next((i for i, stmt in enumerate(body) if _assigned_value(stmt) is call), None)
        target = self_attr(body[index].body[0].targets[0].target) if index is not None else None
        if target is None:
            self.problem(call, f"`self.{source}()` (`ops.ExternalSource`) is not the value of a statement "
                         f"`self.<name> = self.{source}()` of `define_graph`: `feed_input` needs that name",
                         about=constructs.EXTERNAL_SOURCE)
            return
        self.refused_outputs.add(target)
        if target in pipeline.fed:
            self.problem(call, f"`self.{target}` is assigned more than one external source", about=constructs.EXTERNAL_SOURCE)
            return
        if any(other.func.attr.value == source for other in pipeline.fed.values()):
            self.problem(call, f"`self.{source}` (`ops.ExternalSource`) is called more than once: each call is "
                         "an input of its own", about=constructs.EXTERNAL_SOURCE)
            return
        why = _source_arguments(pipeline.sources[source], call)
        if why:
            self.problem(call, why, about=constructs.EXTERNAL_SOURCE)
            return
        self.refused_outputs.discard(target)
        pipeline.fed[target] = call
        pipeline.source_indices.add(index)

    def read_setup(self, init_attrs: set[str]) -> None:
        """``iter_setup`` runs before each batch; its ``feed_input`` calls give the external sources'
        batches. It becomes a function nested in the generator, so its locals stay its own; it may
        read the values ``__init__`` sets on ``self`` and assign them (``nonlocal``)."""
        pipeline = self.pipeline
        setup = pipeline.setup
        if setup is None:
            return
        params = setup.params
        extra = isinstance(params.star_arg, (cst.Param, cst.ParamStar)) or isinstance(params.star_kwarg, cst.Param)
        if len(params.params) != 1 or params.kwonly_params or params.posonly_params or extra:
            self.problem(setup, "`iter_setup` with parameters other than `self`", about=constructs.EXTERNAL_SOURCE)
            return
        found = _SetupUses()
        setup.body.visit(found)
        for node, why in found.problems:
            self.problem(node, why, about=constructs.EXTERNAL_SOURCE)
        reported = len(pipeline.problems)
        for stmt, call, nested in found.feeds:
            self.read_feed(stmt, call, nested)
        refused = len(pipeline.problems) > reported or bool(self.refused_outputs)  # "not fed" would repeat it
        fed = [feed.attr for feed in pipeline.feeds.values()]
        for attr in sorted({a for a in fed if fed.count(a) > 1}):
            self.problem(setup, f"`self.{attr}` is fed more than once in `iter_setup`: each `feed_input` queues "
                         "a batch", about=constructs.EXTERNAL_SOURCE)
        for attr in pipeline.fed:
            if attr not in fed and not refused:
                self.problem(setup, f"`self.{attr}` (an external source's output) is not fed in `iter_setup`",
                             about=constructs.EXTERNAL_SOURCE)
        graph = _SelfUses()
        pipeline.graph.visit(graph)
        reported: set[str] = set()
        for node, attr in found.reads:
            if attr == "batch_size" and attr not in init_attrs and attr not in pipeline.fed:
                pipeline.batch_size_reads.add(node)  # `Pipeline.batch_size`: the generator's `batch_size`
                continue
            if attr in reported:
                continue
            reported.add(attr)
            if attr in pipeline.fed:
                self.problem(node, f"`self.{attr}` is a graph node in `iter_setup`: only `feed_input` may take it",
                             about=constructs.EXTERNAL_SOURCE)
            elif attr not in init_attrs or attr in graph.assigned:
                self.problem(node, f"`self.{attr}` in `iter_setup` is not a value `__init__` sets"
                             + (" (`define_graph` sets it)" if attr in graph.assigned else ""),
                             about=constructs.EXTERNAL_SOURCE)
        for node, attr in found.stores:
            if attr not in init_attrs or attr in pipeline.fed:
                self.problem(node, f"`self.{attr}` is assigned in `iter_setup` but not set in `__init__`: set it "
                             "there first", about=constructs.EXTERNAL_SOURCE)
            elif attr not in pipeline.setup_nonlocal:
                pipeline.setup_nonlocal.append(attr)
        changed = {a for _, a in found.stores} | found.mutated
        for attr in sorted(changed & {a for _, a in graph.attributes}):
            # define_graph read it once, when the pipeline was built; the generator reads it per batch
            self.problem(setup, f"`self.{attr}` is changed in `iter_setup` and read in `define_graph`, which "
                         "read it once when the pipeline was built: give the graph its value in a name of its own",
                         about=constructs.EXTERNAL_SOURCE)
        clash = {a for _, a in (*found.reads, *found.stores)} & _bound_names(setup)
        for name in sorted(clash):
            self.problem(setup, f"`{name}` is a local of `iter_setup` and `self.{name}` a value of the class: "
                         "one function scope would merge them; rename one", about=constructs.EXTERNAL_SOURCE)

    def read_feed(self, stmt, call: cst.Call, nested: bool) -> None:
        pipeline = self.pipeline
        if nested:
            self.problem(call, "`feed_input` in a loop, `with`, `try` or an expression: only a statement of "
                         "`iter_setup` (or of an `if` in it) is rewritten, one batch per output", about=constructs.EXTERNAL_SOURCE)
            return
        given: dict[str, int] = {}
        for position, arg in enumerate(call.args):
            name = arg.keyword.value if arg.keyword else _FEED_PARAMS[position] if position < len(_FEED_PARAMS) and not arg.star else None
            if name not in _FEED_PARAMS:
                self.problem(call, "`feed_input` with arguments the migration does not read", about=constructs.EXTERNAL_SOURCE)
                return
            given[name] = position
        node = call.args[given["data_node"]].value if "data_node" in given else None
        attr = self_attr(node) if node is not None else None
        if attr in self.refused_outputs:
            return  # its external source is reported
        if attr is None or attr not in pipeline.fed or "data" not in given:
            self.problem(call, "`feed_input` of something else than `self.<name>` bound to an external source's "
                         "output in `define_graph`", about=constructs.EXTERNAL_SOURCE)
            return
        source = pipeline.fed[attr]
        carried = {a.keyword.value: a.value for a in [*pipeline.sources[source.func.attr.value].args, *source.args]
                   if a.keyword is not None and a.keyword.value in SOURCE_CARRIED}
        layout = given.get("layout")
        if layout is not None and "layout" in carried:
            self.problem(call, f"`self.{attr}` is given a layout both by its external source and by `feed_input`: "
                         "keep one", about=constructs.EXTERNAL_SOURCE)
            return
        pipeline.feeds[stmt] = Feed(stmt, attr, given["data"], layout, carried)

    def read_reader_calls(self, body, calls: list[cst.Call]) -> None:
        """The reader: one statement ``targets = self.<reader>(...)`` of ``define_graph``'s body, or
        one in each branch of one of its ``if`` statements (:meth:`read_reader_branches`)."""
        pipeline = self.pipeline
        pipeline.reader_call = calls[0]
        for index, stmt in enumerate(body):
            if _assigned_value(stmt) is calls[0]:
                pipeline.reader_index = index
                count = output_arity.op_outputs(pipeline.op_calls[calls[0]].info.fn_path, _with_ctor(pipeline.op_calls[calls[0]], calls[0]))
                pipeline.reader_outputs = count if isinstance(count, int) else None
                if len(calls) > 1:
                    self.read_twin(body, index, calls)
                return
        for index, stmt in enumerate(body):
            if _contains(stmt, calls[0]):
                if isinstance(stmt, cst.If):
                    self.read_reader_branches(index, stmt, calls)
                else:
                    self.problem(calls[0], f"a reader called inside {_place(stmt)} cannot be created once, before "
                                 "the batch loop", hint="assign its outputs in a statement of its own: `images, labels = "
                                 f"self.{pipeline.op_calls[calls[0]].attr}(...)`")
                return

    def read_twin(self, body, index: int, calls: list[cst.Call]) -> None:
        """A second call of the same reader object, ``jpegs2, labels2 = self.input()``: in pipeline
        mode an operator instance of its own, read beside the first when their epochs line up
        (ndd_migrate.model.features.twin_readers); anything else is reported."""
        pipeline = self.pipeline
        first, second = pipeline.op_calls[calls[0]], pipeline.op_calls[calls[1]]
        at = next((i for i, stmt in enumerate(body) if _assigned_value(stmt) is calls[1]), None)
        if len(calls) > 2:
            why = twin_readers.THIRD
        elif first is not second:
            why = "more than one reader call: decide how their epochs line up"  # two objects
        elif at is None:
            why = "a second reader call that is not a statement `targets = self.<reader>(...)` of `define_graph`'s body"
        elif first.ctors or first.conditional:
            why = "a second call of a reader created in an `if` of `__init__`: decide how their epochs line up"
        else:
            why = twin_readers.mismatch(_with_ctor(first, calls[0]), _with_ctor(second, calls[1]), body[index + 1 : at],
                                        per_call=list(calls[0].args))
        count = output_arity.op_outputs(second.info.fn_path, _with_ctor(second, calls[1]))
        if why is None and not (isinstance(count, int) and count == pipeline.reader_outputs):
            why = "two readers whose number of outputs the migration cannot read: decide how their epochs line up"
        if why is not None:
            self.problem(calls[1], why)
            return
        pipeline.twin_index = at
        pipeline.twin_outputs = count

    def read_reader_branches(self, index: int, stmt: cst.If, calls: list[cst.Call]) -> None:
        """``if self.labels: jpegs, labels = self.input() else: jpegs = self.input()``: the same reader,
        with the same arguments, assigned at the top of every branch of an ``if`` chain whose tests
        call nothing (fixed when the pipeline is built). The reader is created once, before the loop,
        and each branch unpacks the tuple ``next_epoch`` yields its own way."""
        pipeline = self.pipeline
        branches = _branches(stmt)
        found: dict[cst.Call, cst.BaseAssignTargetExpression] = {}
        for block in branches:
            for inner in block:
                value = _assigned_value(inner)
                if any(value is call for call in calls):
                    found[value] = inner.body[0].targets[0].target
        attrs = {pipeline.op_calls[call].attr for call in calls}
        code = {cst.Module([]).code_for_node(call) for call in calls}
        where = "in the branches of an `if`"
        if len(attrs) > 1:
            why = "more than one reader call: decide how their epochs line up"
        elif len(found) != len(calls) or len(found) != len(branches) or not isinstance(_last_orelse(stmt), cst.Else):
            why = (f"a reader called {where} is created once, before the batch loop, only when every branch (an `else` "
                   "included) assigns its outputs in a statement of its own")
        elif len(code) > 1:
            why = f"the reader is called {where} with different arguments: one reader cannot be created with both"
        elif _calls_in_tests(stmt):
            why = f"the reader is called {where} whose test calls a function: the test is evaluated anew for each batch"
        else:
            why = None
        if why:
            self.problem(calls[0], why)
            return
        op = pipeline.op_calls[calls[0]]
        count = output_arity.op_outputs(op.info.fn_path, _with_ctor(op, calls[0]))
        if op.attr in pipeline.mixed_outputs:
            count = None  # a reader with other outputs in each branch of `__init__`: reported there (NDD402)
        for call, target in found.items():
            if isinstance(target, cst.Name) and isinstance(count, int) and count > 1:
                self.problem(call, f"`{target.value}` holds all {count} outputs of the reader, as a list",
                             hint=outputs.READER_HINT)
                return
        pipeline.reader_branches = found
        pipeline.reader_if_index = index
        pipeline.reader_outputs = count if isinstance(count, int) else None

    def check_names(self) -> None:
        """Both methods become one function: a name bound in both would change meaning."""
        pipeline = self.pipeline
        init_bound = _bound_names(pipeline.init) | {p.name.value for p in cstutil.all_params(pipeline.init.params)[1:]}
        graph_bound = _bound_names(pipeline.graph)
        for name in sorted(init_bound & graph_bound):
            self.problem(pipeline.graph, f"`{name}` is bound in both `__init__` and `define_graph`: rename one")
        for attr in sorted(pipeline.data_attrs & (init_bound | graph_bound)):
            trivial = attr in init_bound and attr not in graph_bound and _is_trivial_attr(pipeline.init, attr)
            if not trivial:  # a fresh local: `self.device` beside the parameter `device` → `self_device`
                pipeline.renamed[attr] = cstutil.fresh(f"self_{attr}", pipeline.local_names | self.module_names)
                pipeline.local_names.add(pipeline.renamed[attr])
                pipeline.init_dropped -= {i for i, stmt in enumerate(pipeline.init.body.body) if _self_assignment(stmt)[0] == attr}
        batch = pipeline.settings.get("batch_size")  # None: no `super().__init__` (reported on its own)
        if "batch_size" in (init_bound | graph_bound) and batch is not None and not _is_name(batch, "batch_size"):
            self.problem(pipeline.init, "`batch_size` names something else than the pipeline's batch size: rename it")


    def read_device_names(self) -> None:
        """``if cpu: dev = "cpu" else: dev = "mixed"`` then ``ops.X(device=dev)``: dynamic mode rejects
        ``"mixed"``, so such literals become ``"gpu"`` when the name does nothing else."""
        pipeline = self.pipeline
        counter = _DeviceNames()
        pipeline.init.body.visit(counter)
        pipeline.graph.body.visit(counter)
        params = {p.name.value for p in cstutil.all_params(pipeline.init.params)}
        for name in sorted(counter.device_args):
            literals = counter.literals.get(name, [])
            mixed = [lit for lit in literals if cstutil.string_value(lit) == "mixed"]
            if not mixed:
                continue
            only_device = (
                name not in params
                and counter.bound[name] == len(literals)
                and counter.reads[name] == counter.device_args[name]
            )
            if only_device:
                pipeline.mixed_literals.update(mixed)
            else:
                self.problem(
                    mixed[0], f'`{name}` may be `"mixed"`, which dynamic mode rejects as a device, and is used for '
                    'more than `device=`: give the ops `"gpu"` instead', about=constructs.OPS_OBJECT,
                )


# -- small readers -------------------------------------------------------------------------------


def _reader_count(info: OpInfo, ctor: cst.Call) -> int | None:
    """The outputs of a reader created by ``ctor`` (``ops.CaffeReader(...)``): the table's count, or
    the one its arguments give (a Caffe reader has images and labels unless told otherwise); None
    when not known."""
    found = output_arity.op_outputs(info.fn_path, ctor)
    return found if isinstance(found, int) else None


class _SelfUses(SkipsTrivia, cst.CSTVisitor):
    """``self.<op>(...)`` calls, other ``self.<attr>`` loads, attributes assigned, bare ``self``,
    ``return`` statements and other calls (``fn.*``) of ``define_graph``."""

    def __init__(self) -> None:
        self.calls: list[tuple[cst.Call, str]] = []
        self.attributes: list[tuple[cst.Attribute, str]] = []
        self.assigned: set[str] = set()
        self.bare_self: list[cst.Name] = []
        self.returns: list[cst.Return] = []
        self.fn_calls: list[cst.Call] = []
        self.inputs: dict[int, tuple[cst.Arg, cst.Call]] = {}  # each argument's value → its Arg and call
        self.tests: dict[int, str] = {}  # `if self.x:` ("truth"), `self.x is None` / `is not None` ("none")
        self._handled: set[int] = set()

    def visit_If(self, node: cst.If) -> None:
        if self_attr(node.test) is not None:
            self.tests[id(node.test)] = "truth"

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if (
            self_attr(node.left) is not None
            and len(node.comparisons) == 1
            and isinstance(node.comparisons[0].operator, (cst.Is, cst.IsNot))
            and isinstance(node.comparisons[0].comparator, cst.Name)
            and node.comparisons[0].comparator.value == "None"
        ):
            self.tests[id(node.left)] = "none"

    def visit_Return(self, node: cst.Return) -> None:
        self.returns.append(node)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        for target in _flatten(node.target):
            attr = self_attr(target)
            if attr is not None:
                self.assigned.add(attr)
                self._handled.add(id(target))

    def visit_Call(self, node: cst.Call) -> None:
        for arg in node.args:
            self.inputs[id(arg.value)] = (arg, node)
        attr = self_attr(node.func)
        if attr is not None:
            self.calls.append((node, attr))
            self._handled.add(id(node.func))
        else:
            self.fn_calls.append(node)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        attr = self_attr(node)
        if attr is None:
            return True
        if id(node) not in self._handled:
            self.attributes.append((node, attr))
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == "self":
            self.bare_self.append(node)

    def visit_Param(self, node: cst.Param) -> bool:
        return False


def _source_arguments(ctor: cst.Call, call: cst.Call) -> str | None:
    """Why the arguments of an ``ops.ExternalSource`` and of its call cannot be carried, or None."""
    args = [*ctor.args, *call.args]
    if any(a.star or a.keyword is None for a in args):
        return "`ops.ExternalSource` with positional or `*` arguments cannot be read"
    unknown = sorted({a.keyword.value for a in args} - _SOURCE_DROPPED - set(SOURCE_CARRIED))
    if unknown:
        return (f"`ops.ExternalSource` with {', '.join(f'`{k}=`' for k in unknown)}: only an external source "
                "fed by `feed_input` in `iter_setup` is rewritten")
    repeated = sorted(_keywords(ctor) & _keywords(call))
    if repeated:
        return f"an external source's call repeats constructor arguments: {', '.join(repeated)}"
    return None


class _SetupUses(SkipsTrivia, cst.CSTVisitor):
    """In ``iter_setup``: ``self.feed_input(...)`` calls (with their statement, and whether they are
    nested in an expression, a loop, ``with`` or ``try``), ``self.<attr>`` reads and stores, and what
    has no counterpart in a nested function (``self`` passed on, other methods, ``return``, ``yield``)."""

    def __init__(self) -> None:
        self.feeds: list[tuple[cst.CSTNode, cst.Call, bool]] = []
        self.reads: list[tuple[cst.Attribute, str]] = []
        self.stores: list[tuple[cst.Attribute, str]] = []
        self.mutated: set[str] = set()  # changed in place (`self.x[i] = ...`)
        self.problems: list[tuple[cst.CSTNode, str]] = []
        self._statement: cst.CSTNode | None = None
        self._blocks = 0  # loops, `with`, `try`, nested functions around the current node
        self._functions = 0  # nested functions, lambdas and classes around it
        self._handled: set[int] = set()

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._statement = node

    def _enter(self, node) -> None:
        self._blocks += 1

    def _leave(self, node) -> None:
        self._blocks -= 1

    def _enter_function(self, node) -> None:
        self._blocks += 1
        self._functions += 1

    def _leave_function(self, node) -> None:
        self._blocks -= 1
        self._functions -= 1

    visit_For = visit_While = visit_With = visit_Try = visit_TryStar = _enter
    leave_For = leave_While = leave_With = leave_Try = leave_TryStar = _leave
    visit_Lambda = visit_FunctionDef = visit_ClassDef = _enter_function
    leave_Lambda = leave_FunctionDef = leave_ClassDef = _leave_function

    def visit_Return(self, node: cst.Return) -> None:
        if not self._functions:
            self.problems.append((node, "a `return` in `iter_setup`: write the batch's set-up without it"))

    def visit_Yield(self, node: cst.Yield) -> None:
        if not self._functions:
            self.problems.append((node, "a `yield` in `iter_setup`"))

    def visit_Call(self, node: cst.Call) -> None:
        attr = self_attr(node.func)
        if attr is None:
            return
        self._handled.add(id(node.func))
        stmt = self._statement
        if attr != "feed_input":
            self.problems.append((node, f"`self.{attr}(...)` in `iter_setup`: the pipeline object no longer exists"))
            return
        whole = (
            stmt is not None and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr) and stmt.body[0].value is node
        )
        self.feeds.append((stmt, node, self._blocks > 0 or not whole))
        for position, arg in enumerate(node.args):  # the node fed: not a read of a value
            if (arg.keyword.value == "data_node" if arg.keyword else position == 0) and self_attr(arg.value):
                self._handled.add(id(arg.value))

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        for target in _flatten(node.target):
            attr = self_attr(target)
            if attr is not None:
                self.stores.append((target, attr))
                self._handled.add(id(target))
            else:
                self._mutates(target)

    def _mutates(self, target: cst.BaseExpression) -> None:
        """``self.x[i] = ...``, ``self.x.y += ...``: the value of ``self.x`` changes in place."""
        while isinstance(target, (cst.Subscript, cst.Attribute)) and self_attr(target) is None:
            target = target.value
        attr = self_attr(target)
        if attr is not None:
            self.mutated.add(attr)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._mutates(node.target)
        attr = self_attr(node.target)
        if attr is not None:
            self.stores.append((node.target, attr))
            self.reads.append((node.target, attr))
            self._handled.add(id(node.target))

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        attr = self_attr(node)
        if attr is None:
            return True
        if id(node) not in self._handled:
            self.reads.append((node, attr))
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == "self":
            self.problems.append((node, "`self` passed on in `iter_setup`: the pipeline object no longer exists"))

    def visit_Param(self, node: cst.Param) -> bool:
        return False


class _DeviceNames(SkipsTrivia, cst.CSTVisitor):
    """Per name: how often it is read, bound, bound to a string literal, and given as ``device=``."""

    def __init__(self) -> None:
        self.reads: Counter = Counter()
        self.bound: Counter = Counter()
        self.device_args: Counter = Counter()
        self.literals: dict[str, list[cst.SimpleString]] = {}
        self._targets: set[int] = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            for t in _flatten(target.target):
                if isinstance(t, cst.Name):
                    self._targets.add(id(t))
                    self.bound[t.value] += 1
                    if len(node.targets) == 1 and t is target.target and isinstance(node.value, cst.SimpleString):
                        self.literals.setdefault(t.value, []).append(node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):
            self.bound[node.target.value] += 1

    def visit_For(self, node: cst.For) -> None:
        for t in _flatten(node.target):
            if isinstance(t, cst.Name):
                self._targets.add(id(t))
                self.bound[t.value] += 1

    def visit_Arg(self, node: cst.Arg) -> bool:
        if node.keyword is not None and node.keyword.value == "device" and isinstance(node.value, cst.Name):
            self.device_args[node.value.value] += 1
        node.value.visit(self)
        return False  # the keyword is not a read

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self._targets:
            self.reads[node.value] += 1


def _contains(node: cst.CSTNode, target: cst.CSTNode) -> bool:
    finder = _Finds(target)
    node.visit(finder)
    return finder.found


class _Finds(SkipsTrivia, cst.CSTVisitor):
    def __init__(self, target: cst.CSTNode) -> None:
        self.target = target
        self.found = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.found = self.found or node is self.target
        return not self.found and super().on_visit(node)


_BLOCKS = {cst.For: "a `for` loop", cst.While: "a `while` loop", cst.With: "a `with` block", cst.Try: "a `try` block"}


def _place(stmt: cst.CSTNode) -> str:
    """What the top-level statement ``stmt`` that holds a reader call is: a block, or an expression."""
    for kind, words in _BLOCKS.items():
        if isinstance(stmt, kind):
            return words
    return "an expression"


def _branches(stmt: cst.If) -> list[list]:
    """The statements of each branch of an ``if``/``elif``/``else`` chain."""
    out = [list(stmt.body.body)]
    orelse = stmt.orelse
    while isinstance(orelse, cst.If):
        out.append(list(orelse.body.body))
        orelse = orelse.orelse
    if isinstance(orelse, cst.Else):
        out.append(list(orelse.body.body))
    return out


def _last_orelse(stmt: cst.If):
    orelse = stmt.orelse
    while isinstance(orelse, cst.If):
        orelse = orelse.orelse
    return orelse


class _HasCall(SkipsTrivia, cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        self.found = True


def _calls_in_tests(stmt: cst.If) -> bool:
    finder = _HasCall()
    node = stmt
    while isinstance(node, cst.If):
        node.test.visit(finder)
        node = node.orelse
    return finder.found


def self_attr(node: cst.CSTNode) -> str | None:
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return node.attr.value
    return None


def _with_ctor(op: OpObject, call: cst.Call) -> cst.Call:
    """The call with the constructor's arguments too (what decides an operator's outputs)."""
    positional = [a for a in call.args if a.keyword is None and not a.star]
    rest = [a for a in call.args if a.keyword is not None or a.star]
    return call.with_changes(args=[*positional, *op.ctor.args, *rest])


def _optional_call(value) -> cst.Call | None:
    """The call of ``call if cond else None`` (or ``None if cond else call``)."""
    if not isinstance(value, cst.IfExp):
        return None
    for side, other in ((value.body, value.orelse), (value.orelse, value.body)):
        if isinstance(side, cst.Call) and isinstance(other, cst.Name) and other.value == "None":
            return side
    return None


class _DictUses(SkipsTrivia, cst.CSTVisitor):
    """How ``__init__`` uses the local ``name``: created empty (``dict()``, ``{}``), items stored
    with literal keys, passed as ``**name``, or otherwise (``other``)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.created = 0
        self.keys: set[str] = set()
        self.other = 0
        self._seen: set[int] = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            t = target.target
            if isinstance(t, cst.Name) and t.value == self.name and len(node.targets) == 1 and _is_empty_dict(node.value):
                self.created += 1
                self._seen.add(id(t))
            elif (isinstance(t, cst.Subscript) and isinstance(t.value, cst.Name) and t.value.value == self.name
                  and len(t.slice) == 1 and isinstance(t.slice[0].slice, cst.Index)
                  and cstutil.string_value(t.slice[0].slice.value) is not None):
                self.keys.add(cstutil.string_value(t.slice[0].slice.value))
                self._seen.add(id(t.value))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.star == "**" and isinstance(node.value, cst.Name) and node.value.value == self.name:
            self._seen.add(id(node.value))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name and id(node) not in self._seen:
            self.other += 1


def _is_empty_dict(value) -> bool:
    if isinstance(value, cst.Dict):
        return not value.elements
    return isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "dict" and not value.args


def _is_none(value) -> bool:
    return isinstance(value, cst.Name) and value.value == "None"


def _keywords(call: cst.Call) -> set[str]:
    return {a.keyword.value for a in call.args if a.keyword is not None}


def _flatten(target: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(target, (cst.Tuple, cst.List)):
        return [t for el in target.elements for t in _flatten(el.value)]
    return [target]


def _self_assignment(stmt) -> tuple[str | None, cst.BaseExpression | None]:
    value = _assigned_value(stmt)
    if value is None:
        return None, None
    return self_attr(stmt.body[0].targets[0].target), value


def _assigned_value(stmt) -> cst.BaseExpression | None:
    if (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Assign)
        and len(stmt.body[0].targets) == 1
    ):
        return stmt.body[0].value
    return None


def _expr_call(stmt) -> cst.Call | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr):
        value = stmt.body[0].value
        return value if isinstance(value, cst.Call) else None
    return None


def _uses_self(node: cst.CSTNode) -> bool:
    finder = _SelfUses()
    node.visit(finder)
    return bool(finder.bare_self or finder.attributes or finder.calls or finder.assigned)


def _is_name(expr, name: str) -> bool:
    return isinstance(expr, cst.Name) and expr.value == name


def _is_trivial_attr(init: cst.FunctionDef, attr: str) -> bool:
    """Every ``self.<attr> = ...`` in ``__init__`` is ``self.<attr> = <attr>``."""
    values = [v for t, v in map(_self_assignment, init.body.body) if t == attr]
    return bool(values) and all(_is_name(v, attr) for v in values)


class _Bound(SkipsTrivia, cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.names |= {t.value for t in _flatten(node.target) if isinstance(t, cst.Name)}

    def visit_For(self, node: cst.For) -> None:
        self.names |= {t.value for t in _flatten(node.target) if isinstance(t, cst.Name)}

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):
            self.names.add(node.target.value)


def _bound_names(pipeline: cst.FunctionDef) -> set[str]:
    finder = _Bound()
    pipeline.body.visit(finder)
    return finder.names


class _Names(SkipsTrivia, cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def _names_in(node: cst.CSTNode) -> set[str]:
    finder = _Names()
    node.visit(finder)
    return finder.names
