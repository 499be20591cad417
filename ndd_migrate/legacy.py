"""Legacy ``Pipeline`` subclasses (``__init__`` creating ``ops.*`` objects, ``define_graph`` calling
them): what the analysis reads from one, so NDD401/NDD402 can turn it into the generator function
of docs/target-shape.md ("Legacy `Pipeline` subclasses").

A class is registered in the module model like a ``@pipeline_def`` function (its instances are
``Kind.PIPELINE``), so the call-site rules (``build()`` removed, ``run()`` → ``next()``, outputs)
apply to it unchanged. Everything that the rewrite cannot carry over faithfully becomes a
:class:`~ndd_migrate.analysis.Problem` and the class is left as it is, with a TODO.

Nodes here are *original* nodes: the rules map them to their rewritten counterparts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import QualifiedNameProvider

from ndd_migrate.cstutil import SkipsTrivia
from ndd_migrate import constructs, cstutil, names, outputs, pipeline_args
from ndd_migrate.returns import contains_return
from ndd_migrate.returns import read as read_returns
from ndd_migrate.analysis import PipelineFunction, Problem
from ndd_migrate.codegen import shape
from ndd_migrate.rules.tables import OpInfo, fn_path_of_legacy_op, op_info


_METHOD_HINTS = {
    "iter_setup": "`iter_setup` feeds external input (`feed_input`) every iteration: call the ndd ops on "
    "the data you would feed instead (see NDD42x)",
}


_NO_FORM = {
    "ExternalSource": "`ops.ExternalSource` has no dynamic-mode form: pass the data you feed to the ndd ops "
    "directly (see NDD42x)",
}


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

    def keywords(self) -> set[str]:
        return {k for ctor in (self.ctors or [self.ctor]) for k in _keywords(ctor)}


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
    reader_call: cst.Call | None = None
    other_ops: set[str] = field(default_factory=set)  # operator objects without a dynamic-mode form
    super_index: int | None = None  # the `super().__init__(...)` statement
    # Decided by NDD401 before the class's body is rewritten:
    op_rngs: dict[str, str] = field(default_factory=dict)  # op object with its own seed → its RNG's name
    ctx_name: str | None = None
    reader_name: str = "reader"
    outputs_name: str = "outputs"
    batches_name: str = "batches"

    def given(self, name: str) -> bool:
        return name in self.settings


def owner(model, function_stack: list[cst.FunctionDef]) -> LegacyPipeline | None:
    """The legacy pipeline whose ``__init__`` or ``define_graph`` is being visited. Asked by the
    rules for many nodes: the methods are indexed once per module (after the analysis)."""
    if not function_stack:
        return None
    methods = model.legacy_methods
    if methods is None:
        methods = model.legacy_methods = {}
        for fn in model.pipelines.values():
            if isinstance(fn, LegacyPipeline):
                for method in (fn.init, fn.graph):
                    if method is not None:
                        methods.setdefault(method, fn)
    for node in reversed(function_stack):
        fn = methods.get(node)
        if fn is not None:
            return fn
    return None


def localize(expr: cst.BaseExpression, fn: LegacyPipeline) -> cst.BaseExpression:
    """``expr`` with ``self.<attr>`` of the class's values read from the local ``<attr>``."""
    return expr.visit(_Localize(fn.data_attrs))


class _Localize(SkipsTrivia, cst.CSTTransformer):
    def __init__(self, attrs: set[str]) -> None:
        self.attrs = attrs

    def leave_Attribute(self, original: cst.Attribute, updated: cst.BaseExpression) -> cst.BaseExpression:
        attr = self_attr(original)
        return cst.Name(attr) if attr in self.attrs else updated


def _subclassed(parent: LegacyPipeline, name: str) -> None:
    """One problem for all the subclasses of ``parent``, naming each (not one TODO per subclass)."""
    for problem in parent.problems:
        if problem.message.startswith("subclassed by "):
            problem.message = problem.message.replace(": a function cannot be", f", `{name}`: a function cannot be")
            return
    parent.problems.append(Problem(constructs.PIPELINE_SUBCLASS, parent.node, f"subclassed by `{name}`: a function cannot be"))


def read_class(resolver: cst.MetadataDependent, node: cst.ClassDef, qualname: str, model) -> LegacyPipeline | None:
    """The legacy pipeline a class defines, or None when it does not derive from ``Pipeline``.

    A class deriving from a legacy pipeline of ``model`` keeps that one as it is: a function cannot
    be subclassed."""
    for base in node.bases:
        for qual in resolver.get_metadata(QualifiedNameProvider, base.value, None) or ():
            parent = model.pipelines.get(qual.name)
            if isinstance(parent, LegacyPipeline):
                _subclassed(parent, node.name.value)
    if not any(names.dali_name(resolver, base.value) == names.PIPELINE for base in node.bases):
        return None
    fn = LegacyPipeline(qualname=qualname, node=node, decorator=None)
    fn.local_names = _names_in(node)
    _Reader(resolver, fn).read()
    return fn


class _Reader:
    def __init__(self, resolver: cst.MetadataDependent, fn: LegacyPipeline) -> None:
        self.resolver = resolver
        self.fn = fn

    def problem(self, node: cst.CSTNode, message: str, about: str = constructs.PIPELINE_SUBCLASS) -> None:
        self.fn.problems.append(Problem(about, node, message))

    def read(self) -> None:
        fn = self.fn
        body = fn.node.body.body if isinstance(fn.node.body, cst.IndentedBlock) else ()
        for index, stmt in enumerate(body):
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__init__" and not stmt.decorators:
                fn.init = stmt
            elif isinstance(stmt, cst.FunctionDef) and stmt.name.value == "define_graph" and not stmt.decorators:
                fn.graph = stmt
            elif not (index == 0 and is_docstring(stmt)):
                name = stmt.name.value if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) else None
                self.problem(
                    stmt,
                    _METHOD_HINTS.get(name or "", f"`{name}` has no counterpart in a generator function")
                    if name
                    else "class-level statements have no counterpart in a generator function",
                )
        if fn.node.decorators:
            self.problem(fn.node, "a decorated `Pipeline` subclass: the decorator expects a class")
        if fn.init is None or fn.graph is None:
            self.problem(fn.node, "a `Pipeline` subclass without both `__init__` and `define_graph`")
            return
        self.read_init(fn.init)
        self.read_graph(fn.graph)
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
            if index == 0 and is_docstring(stmt):
                self.fn.init_dropped.add(index)
                continue
            call = _expr_call(stmt)
            if call is not None and self.is_super_init(call):
                found_super = True
                self.fn.super_index = index
                self.read_settings(call)
                continue
            target, value = _self_assignment(stmt)
            if target is not None:
                self.read_attribute(index, stmt, target, value)
            elif isinstance(stmt, cst.If):
                self.read_if(stmt)
            elif _uses_self(stmt):
                self.problem(stmt, "this use of `self` in `__init__` has no counterpart in a generator function")
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
            if arg.star:
                self.problem(arg, "`*args`/`**kwargs` passed to `Pipeline.__init__` cannot be read")
                continue
            name = arg.keyword.value if arg.keyword else pipeline_args.POSITIONAL[position] if position < len(pipeline_args.POSITIONAL) else None
            if name in pipeline_args.PARAMETERS:
                self.fn.settings[name] = arg.value
            elif name in pipeline_args.BLOCKING:
                self.problem(arg, f"`{name}`: {pipeline_args.BLOCKING[name]}")
            elif name in pipeline_args.EXECUTOR_ONLY or name == "exec_pipelined":
                self.fn.dropped_settings.append((name, arg))
            else:
                self.problem(arg, f"`Pipeline.__init__` argument `{name}` is not understood")
        if "batch_size" not in self.fn.settings:
            self.problem(call, "no `batch_size` given to `Pipeline.__init__`")

    def read_attribute(self, index: int, stmt, target: str, value: cst.BaseExpression) -> None:
        optional = _optional_call(value)
        if optional is not None and (names.dali_name(self.resolver, optional.func) or "").startswith(names.OPS + "."):
            self.read_optional(stmt, target, value, optional)
            return
        dali = names.dali_name(self.resolver, value.func) if isinstance(value, cst.Call) else None
        if dali is None or not dali.startswith(names.OPS + "."):
            self.fn.data_attrs.add(target)
            if isinstance(value, cst.Name) and value.value == target:
                self.fn.init_dropped.add(index)  # `self.x = x`: the parameter is the local
            return
        ops_path = dali[len(names.OPS) + 1:]
        info = op_info(fn_path_of_legacy_op(ops_path) or "")
        self.fn.init_dropped.add(index)
        if info is None or info.ndd is None:
            self.fn.other_ops.add(target)
            self.problem(stmt, _NO_FORM.get(ops_path, f"`ops.{ops_path}` has no dynamic-mode form"), about=constructs.OPS_OBJECT)
        elif any(a.keyword is None and a.star != "**" for a in value.args):
            self.problem(stmt, f"`ops.{ops_path}` with positional or `*` arguments cannot be read", about=constructs.OPS_OBJECT)
        elif target in self.fn.ops:
            self.problem(stmt, f"`self.{target}` is assigned more than one operator", about=constructs.OPS_OBJECT)
        else:
            self.fn.ops[target] = OpObject(target, ops_path, info, value)

    def read_optional(self, stmt, target: str, value: cst.IfExp, ctor: cst.Call) -> None:
        """``self.resize = ops.Resize(...) if resize_shp else None``: ``resize_args = dict(...) if resize_shp
        else None``; ``if self.resize:`` in ``define_graph`` tests ``resize_args is not None``."""
        dali = names.dali_name(self.resolver, ctor.func)
        ops_path = dali[len(names.OPS) + 1:]
        info = op_info(fn_path_of_legacy_op(ops_path) or "")
        self.fn.other_ops.add(target)
        if info is None or info.ndd is None:
            self.problem(stmt, _NO_FORM.get(ops_path, f"`ops.{ops_path}` has no dynamic-mode form"), about=constructs.OPS_OBJECT)
        elif any(a.keyword is None and a.star != "**" for a in ctor.args):
            self.problem(stmt, f"`ops.{ops_path}` with positional or `*` arguments cannot be read", about=constructs.OPS_OBJECT)
        elif target in self.fn.ops or target in self.fn.data_attrs:
            self.problem(stmt, f"`self.{target}` is assigned more than one operator", about=constructs.OPS_OBJECT)
        elif info.reader or (info.random and cstutil.kwarg(ctor, "seed") is not None):
            self.problem(stmt, f"`self.{target}`: a reader or a seeded random operator or `None`: rewrite it by hand", about=constructs.OPS_OBJECT)
        else:
            self.fn.other_ops.discard(target)
            op = self.fn.ops[target] = OpObject(target, ops_path, info, ctor, conditional=True, optional=True)
            op.ctors.append(ctor)
            op.infos[ctor] = info
            op.paths[ctor] = ops_path
            self.fn.cond_ctors[ctor] = op
            self.fn.cond_assigns[value] = op

    def read_if(self, stmt: cst.If) -> None:
        """An ``if`` of ``__init__`` (a condition fixed when the pipeline is built): it stays where it
        is, its ``self.x = value`` become locals and its operator objects ``<x>_args = dict(...)``."""
        test = _SelfUses()
        stmt.test.visit(test)
        if test.bare_self or test.calls or test.assigned:
            self.problem(stmt.test, "this use of `self` in `__init__` has no counterpart in a generator function")
        for node, attr in test.attributes:
            if attr not in self.fn.data_attrs:
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
            if target in self.fn.ops:
                self.problem(stmt, f"`self.{target}` is an operator in one place and a value in another", about=constructs.OPS_OBJECT)
            self.fn.data_attrs.add(target)
            return
        ops_path = dali[len(names.OPS) + 1:]
        info = op_info(fn_path_of_legacy_op(ops_path) or "")
        known = self.fn.ops.get(target)
        if not (info is None or info.ndd is None):
            self.fn.other_ops.add(target)  # its calls are not reported again when it is refused below
        if info is None or info.ndd is None:
            self.fn.other_ops.add(target)
            self.problem(stmt, _NO_FORM.get(ops_path, f"`ops.{ops_path}` has no dynamic-mode form"), about=constructs.OPS_OBJECT)
        elif any(a.keyword is None and a.star != "**" for a in value.args):
            self.problem(stmt, f"`ops.{ops_path}` with positional or `*` arguments cannot be read", about=constructs.OPS_OBJECT)
        elif target in branch or (known is not None and not known.conditional) or target in self.fn.data_attrs:
            self.problem(stmt, f"`self.{target}` is assigned more than one operator", about=constructs.OPS_OBJECT)
        elif known is not None and known.info.ndd != info.ndd and (
            known.info.reader != info.reader or (info.reader and known.info.num_outputs != info.num_outputs)
        ):
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
                known = self.fn.ops[target] = OpObject(target, ops_path, info, value, conditional=True)
            known.ctors.append(value)
            self.fn.cond_assigns[value] = known
            known.infos[value] = info
            known.paths[value] = ops_path
            known.several = known.several or known.info.ndd != info.ndd
            self.fn.cond_ctors[value] = known
            self.fn.other_ops.discard(target)
        branch.add(target)

    # -- define_graph --------------------------------------------------------------------------
    def read_graph(self, graph: cst.FunctionDef) -> None:
        fn = self.fn
        params = graph.params
        extra = isinstance(params.star_arg, (cst.Param, cst.ParamStar)) or isinstance(params.star_kwarg, cst.Param)
        if len(params.params) != 1 or params.kwonly_params or extra:
            self.problem(graph, "`define_graph` with parameters other than `self`")
        body = graph.body.body
        fn.returns = found = read_returns(graph)  # at its end, or ending `if` branches
        if not found.ends:
            self.problem(graph, "`define_graph` does not end with `return <outputs>`")
        for node, why in found.problems:
            self.problem(node, why)
        uses = _SelfUses()
        graph.visit(uses)
        for call, attr in uses.calls:
            op = fn.ops.get(attr)
            if op is None and attr in fn.other_ops:
                continue  # reported where it is created
            if op is None:
                self.problem(call, f"`self.{attr}` is not an operator created in `__init__`", about=constructs.OPS_OBJECT)
                continue
            if any(a.star for a in call.args):
                self.problem(call, f"`self.{attr}(*...)`: inputs passed through `*`/`**` cannot be read", about=constructs.OPS_OBJECT)
            both = _keywords(call) & op.keywords()
            if both:
                self.problem(call, f"`self.{attr}(...)` repeats constructor arguments: {', '.join(sorted(both))}", about=constructs.OPS_OBJECT)
            if op.several and not [a for a in call.args if a.keyword is None] and any(
                i.batch_size_arg for i in op.infos.values()
            ):
                self.problem(call, f"`self.{attr}()` without an input is a different operator in each branch: "
                             "pass `batch_size=` by hand", about=constructs.OPS_OBJECT)
            fn.op_calls[call] = op
            if op.info.reader:
                self.read_reader_call(body, call)
        for node, attr in uses.attributes:
            if attr in fn.ops and fn.ops[attr].optional and id(node) in uses.tests:
                fn.op_tests[node] = uses.tests[id(node)]
            elif attr in fn.ops:
                self.problem(node, f"operator `self.{attr}` used other than by calling it", about=constructs.OPS_OBJECT)
            elif attr not in fn.data_attrs and attr not in uses.assigned:
                self.problem(node, f"`self.{attr}` is not set in this class")
        fn.data_attrs |= uses.assigned
        for node in uses.bare_self:
            self.problem(node, "`self` passed on: the pipeline object no longer exists")
        for call in uses.fn_calls:
            info = op_info(names.fn_path(names.dali_name(self.resolver, call.func)) or "")
            if info is None:
                continue
            if info.ndd is None:
                self.problem(call, f"`fn.{info.fn_path}` has no dynamic-mode form", about=constructs.NO_DYNAMIC_FORM)
            elif info.reader:
                self.problem(call, "an `fn.readers.*` call inside `define_graph`: create it once by hand")
            elif info.random:
                fn.random_calls.append(call)
        if found.ends and not found.problems:
            self.read_outputs(graph, found.all)

    def read_outputs(self, graph: cst.FunctionDef, rets: list[cst.Return]) -> None:
        """What each ``return`` of ``define_graph`` gives (ndd_migrate.outputs): a list or tuple is
        unpacked into outputs (``Pipeline._build_graph``), an operator object's outputs (a list)
        included; anything else is one output, as before."""
        fn = self.fn

        def op_call(call: cst.Call):
            op = fn.op_calls.get(call)
            return (op.info.fn_path, _with_ctor(op, call)) if op is not None else None

        for stmt in graph.body.body[: fn.reader_index or 0]:
            if contains_return(stmt):
                self.problem(stmt, "a `return` before the reader: dynamic mode creates the reader once, before the loop")
        reader = outputs.Reader(self.resolver, fn.reader_call, op_call)
        forms = []
        for ret in rets:
            constant = outputs.constant_output(ret.value)
            if constant is not None:
                fn.problems.append(Problem(constructs.PIPELINE_SUBCLASS, ret, *constant))
            found = reader.returned(ret.value, graph)
            forms.append(found.form if isinstance(found, outputs.Outputs) and found.form != "dict" else None)
        final = fn.returns.final is not None
        fn.branch_forms = forms[:-1] if final else forms
        if final and forms[-1] is not None:
            fn.outputs = outputs.Outputs(None, forms[-1])
        if fn.reader_index is not None and fn.reader_outputs is None:
            stmt = graph.body.body[fn.reader_index]
            why = outputs.reader_name_used(graph, stmt, rets, lambda call: outputs.canonical_path(fn.op_calls[call].info.fn_path))
            if why:
                fn.problems.append(Problem(constructs.PIPELINE_SUBCLASS, stmt, why, outputs.READER_HINT))

    def read_reader_call(self, body, call: cst.Call) -> None:
        fn = self.fn
        if fn.reader_call is not None:
            self.problem(call, "more than one reader call: decide how their epochs line up")
            return
        fn.reader_call = call
        for index, stmt in enumerate(body):
            if _assigned_value(stmt) is call:
                fn.reader_index = index
                count = outputs.op_outputs(fn.op_calls[call].info.fn_path, _with_ctor(fn.op_calls[call], call))
                fn.reader_outputs = count if isinstance(count, int) else None
                return
        self.problem(call, "a reader called inside an expression cannot be created once")

    def check_names(self) -> None:
        """Both methods become one function: a name bound in both would change meaning."""
        fn = self.fn
        init_bound = _bound_names(fn.init) | {p.name.value for p in shape.all_params(fn.init.params)[1:]}
        graph_bound = _bound_names(fn.graph)
        for name in sorted(init_bound & graph_bound):
            self.problem(fn.graph, f"`{name}` is bound in both `__init__` and `define_graph`: rename one")
        for attr in sorted(fn.data_attrs & (init_bound | graph_bound)):
            trivial = attr in init_bound and attr not in graph_bound and _is_trivial_attr(fn.init, attr)
            if not trivial:
                self.problem(fn.node, f"`self.{attr}` would become the local `{attr}`, which is already used")
        if "batch_size" in (init_bound | graph_bound) and not _is_name(fn.settings.get("batch_size"), "batch_size"):
            self.problem(fn.init, "`batch_size` names something else than the pipeline's batch size: rename it")


    def read_device_names(self) -> None:
        """``if cpu: dev = "cpu" else: dev = "mixed"`` then ``ops.X(device=dev)``: dynamic mode rejects
        ``"mixed"``, so such literals become ``"gpu"`` when the name does nothing else."""
        fn = self.fn
        counter = _DeviceNames()
        fn.init.body.visit(counter)
        fn.graph.body.visit(counter)
        params = {p.name.value for p in shape.all_params(fn.init.params)}
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
                fn.mixed_literals.update(mixed)
            else:
                self.problem(
                    mixed[0], f'`{name}` may be `"mixed"`, which dynamic mode rejects as a device, and is used for '
                    'more than `device=`: give the ops `"gpu"` instead', about=constructs.OPS_OBJECT,
                )


# -- small readers -------------------------------------------------------------------------------


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


def is_docstring(stmt) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


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


def _bound_names(fn: cst.FunctionDef) -> set[str]:
    finder = _Bound()
    fn.body.visit(finder)
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
