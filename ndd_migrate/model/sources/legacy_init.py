"""Reading ``__init__`` of a legacy ``Pipeline`` subclass: the pipeline settings its
``super().__init__(...)`` gives, the operator objects it creates (``self.x = ops.X(...)``, in the
branches of an ``if``, ``... if c else None``, ``ops.PythonFunction``), the values it sets on
``self``, and the device names that say ``"mixed"``."""

from __future__ import annotations

from collections import Counter

import libcst as cst
from libcst.metadata import QualifiedNameProvider

from ndd_migrate.dali import pipeline_args
from ndd_migrate.dali.tables import OpInfo, fn_path_of_legacy_op, has_expression_form, op_info
from ndd_migrate.model import constructs
from ndd_migrate.model.features import python_operators
from ndd_migrate.model.sources.legacy import LegacyPipeline, OpObject, self_attr
from ndd_migrate.model.sources.legacy_syntax import MethodReader, SelfUses, flatten_targets, self_assignment, uses_self
from ndd_migrate.model.values import graph_constants, output_arity
from ndd_migrate.syntax import cstutil, names, tree
from ndd_migrate.syntax.cstutil import SkipsTrivia

_NO_FORM = {
    "PythonFunction": "`ops.PythonFunction` created in an `if` of `__init__` (or `... if c else None`): write its "
    "calls as plain Python over the samples by hand (`ndd.as_batch([f(np.asarray(s)) for s in x.tensors])`)",
    "ExternalSource": "`ops.ExternalSource` that `iter_setup` does not feed (none, or created in an `if`) has "
    "no dynamic-mode form: make the data a dynamic-mode batch where it is fed (`pipe.feed_input`, `source=`) and "
    "pass it to the ops",
}


class InitReader(MethodReader):
    """Reads ``__init__``; then, once ``define_graph`` is read too, the device names (:meth:`read_device_names`)."""

    def __init__(self, resolver: cst.MetadataDependent, pipeline: LegacyPipeline) -> None:
        super().__init__(resolver, pipeline)
        self.pending_nones: dict[str, list[cst.BaseExpression]] = {}  # `self.x = None` in a branch of `__init__`
        self.no_form: set[tuple[str, str]] = set()  # (attr, ops path) reported in a branch of `__init__`

    def read(self, init: cst.FunctionDef) -> None:
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
            target, value = self_assignment(stmt)
            if target is not None:
                self.read_attribute(index, stmt, target, value)
            elif isinstance(stmt, cst.If):
                self.read_if(stmt)
            elif uses_self(stmt) and not self.reads_values_only(stmt):
                self.problem(stmt, "this use of `self` in `__init__` has no counterpart in a generator function")
        for target in self.pending_nones:  # `None` in a branch, no operator in another: a value
            self.pipeline.data_attrs.add(target)
        self.read_constants(init)
        if not found_super:
            self.problem(init, "`__init__` does not call `super().__init__(batch_size, num_threads, device_id, ...)`")

    def read_constants(self, init: cst.FunctionDef) -> None:
        """``self.crop_shape = types.Constant(np.array(patch_size), dtype=types.INT64)``: a constant
        node made while ``__init__`` runs, outside any graph (DALI's ``__Constant_detached_``
        node), which ``define_graph`` then uses. Kept as a value in the generator's prologue, it
        would reach a dynamic-mode op as a pipeline-mode ``DataNode`` (``TypeError: Unexpected
        element type``). One that the support module's ``dali_constant`` makes (graph_constants),
        the whole value of a statement ``self.<attr> = ...`` of ``__init__``, with ``self.<attr>``
        neither assigned again nor read in ``__init__`` or ``iter_setup``, becomes that array in the
        prologue, unless ``define_graph`` gives it to anything but operators (legacy_graph reports
        that); any other is reported here, as in ``define_graph``."""
        targets = {id(value): attr for attr, value in map(self_assignment, init.body.body) if attr is not None}
        for call in (n for n in tree.walk(init.body) if isinstance(n, cst.Call)):
            dali = names.dali_name(self.resolver, call.func)
            if dali not in names.CONSTANTS:
                continue
            attr = targets.get(id(call))
            why = self.constant_obstacle(call, dali, attr)
            if why is None:
                self.pipeline.init_constants[attr] = call
                continue
            self.problem(
                call,
                f"`types.{dali.rsplit('.', 1)[-1]}(...)` made in `__init__` (a graph constant, detached from "
                f"any graph) {why}",
                about=constructs.NO_DYNAMIC_FORM,
            )

    def constant_obstacle(self, call: cst.Call, dali: str, attr: str | None) -> str | None:
        """Why the constant ``call``, the value of ``self.<attr> = ...`` (None: of no such statement),
        does not become an array in the generator's prologue."""
        if dali != names.CONSTANT or attr is None:
            return "has no dynamic-mode form: keep the Python value on `self` and pass it to the op"
        why = graph_constants.init_obstacle(call, self.qualnames)
        if why is not None:
            return f"{why} has no dynamic-mode form: make the numpy array in its place by hand"
        pipeline = self.pipeline
        methods = [pipeline.init, *([pipeline.setup] if pipeline.setup is not None else [])]
        if sum(self_attr(n) == attr for method in methods for n in tree.walk(method)) != 1:
            return f"as `self.{attr}`, assigned or read in `__init__` or `iter_setup` too, has no dynamic-mode form"
        return None

    def qualnames(self, node: cst.CSTNode) -> set[str]:
        return {q.name for q in self.resolver.get_metadata(QualifiedNameProvider, node, None) or ()}

    def reads_values_only(self, stmt: cst.CSTNode) -> bool:
        """Does ``stmt`` use ``self`` only to read values ``__init__`` set above it (``print(...
        self.dali_device)``, the ResNet-50 example's lineage)? Those become reads of the locals the
        values are kept in, as in the rest of the function."""
        found = SelfUses()
        tree.visit(stmt, found)
        if found.bare_self or found.calls or found.assigned:
            return False
        return all(attr in self.pipeline.data_attrs for _, attr in found.attributes)

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
            name = (
                arg.keyword.value
                if arg.keyword
                else pipeline_args.POSITIONAL[position]
                if position < len(pipeline_args.POSITIONAL)
                else None
            )
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
        tree.visit(self.pipeline.init.body, uses)
        if uses.created != 1 or uses.other or not uses.keys <= {"seed"}:
            return False
        if uses.keys:
            self.pipeline.settings["seed"] = cst.parse_expression(f'{name}.get("seed")')
        return True

    def ops_path(self, value: cst.BaseExpression) -> str | None:
        """``X`` of a call ``ops.X(...)`` (an operator object's class, ``readers.File``), else None."""
        dali = names.dali_name(self.resolver, value.func) if isinstance(value, cst.Call) else None
        if dali is None or not dali.startswith(names.OPS + "."):
            return None
        return dali[len(names.OPS) + 1 :]

    def read_attribute(self, index: int, stmt, target: str, value: cst.BaseExpression) -> None:
        """``self.<target> = value``, a statement of ``__init__``: an operator object, one or ``None``,
        or a value (a local of the generator)."""
        optional = _optional_call(value)
        if optional is not None and self.ops_path(optional) is not None:
            self.read_optional(stmt, target, value, optional)
            return
        ops_path = self.ops_path(value)
        if ops_path is None:
            self.pipeline.data_attrs.add(target)
            if isinstance(value, cst.Name) and value.value == target:
                self.pipeline.init_dropped.add(index)  # `self.x = x`: the parameter is the local
            return
        self.pipeline.init_dropped.add(index)
        self.read_op_object(index, stmt, target, value, ops_path)

    def read_op_object(self, index: int, stmt, target: str, value: cst.Call, ops_path: str) -> None:
        """``self.<target> = ops.<ops_path>(...)``: an operator object, an external source fed by
        ``iter_setup``, an ``ops.PythonFunction``, or a problem."""
        info = op_info(fn_path_of_legacy_op(ops_path) or "")
        if (
            ops_path == "ExternalSource"
            and self.pipeline.setup is not None
            and target not in self.pipeline.feeding.sources
        ):
            self.pipeline.feeding.sources[target] = value  # checked with its calls and `iter_setup` (read_setup)
        elif ops_path == "PythonFunction":
            self.read_python_function(index, stmt, target, value, info)
        elif (info is None or info.ndd is None) and not has_expression_form(info and info.fn_path):
            self.pipeline.other_ops.add(target)
            self.problem(
                stmt, _NO_FORM.get(ops_path, f"`ops.{ops_path}` has no dynamic-mode form"), about=constructs.OPS_OBJECT
            )
        elif any(a.keyword is None and a.star != "**" for a in value.args):
            self.problem(
                stmt, f"`ops.{ops_path}` with positional or `*` arguments cannot be read", about=constructs.OPS_OBJECT
            )
        elif target in self.pipeline.ops:
            self.problem(stmt, f"`self.{target}` is assigned more than one operator", about=constructs.OPS_OBJECT)
        else:
            op = self.pipeline.ops[target] = OpObject(target, ops_path, info, value)
            if _calls_in_arguments(value) and not info.reader and cstutil.kwarg(value, "seed") is None:
                # `anchors=boxes.as_ltrb_list()`: evaluated once, here, as `__init__` did, not at every
                # batch's call: `<attr>_args = dict(...)`, as for an operator made under an `if`
                op.conditional = True
                self._hold_arguments(op, value, value, info, ops_path)
                self.pipeline.init_dropped.discard(index)

    def read_python_function(self, index: int, stmt, target: str, value: cst.Call, info: OpInfo) -> None:
        """``self.f = ops.PythonFunction(function=..., ...)``: its calls become plain Python over the
        samples, as ``fn.python_function`` does (NDD422); what that cannot write out is reported here,
        with the constructor's own arguments (the calls' are checked with ``define_graph``, legacy_graph)."""
        why = python_operators.unsupported(list(value.args), "`ops.PythonFunction`", fixed_names(self.pipeline.init))
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

    def names_one_function(self, function: cst.BaseExpression) -> bool:
        """``function`` is a name that holds the same value wherever the generator reads it: not bound in
        ``__init__`` (a module-level name, a parameter), or bound there once and not a parameter."""
        if not isinstance(function, cst.Name):
            return False
        counter = _DeviceNames()
        tree.visit(self.pipeline.init.body, counter)
        params = {p.name.value for p in cstutil.all_params(self.pipeline.init.params)}
        bound = counter.bound[function.value]
        return bound == 0 or (bound == 1 and function.value not in params)

    def read_optional(self, stmt, target: str, value: cst.IfExp, ctor: cst.Call) -> None:
        """``self.resize = ops.Resize(...) if resize_shp else None``: ``resize_args = dict(...) if resize_shp
        else None``; ``if self.resize:`` in ``define_graph`` tests ``resize_args is not None``."""
        ops_path = self.ops_path(ctor)
        info = op_info(fn_path_of_legacy_op(ops_path) or "")
        self.pipeline.other_ops.add(target)
        if info is None or info.ndd is None:
            self.problem(
                stmt, _NO_FORM.get(ops_path, f"`ops.{ops_path}` has no dynamic-mode form"), about=constructs.OPS_OBJECT
            )
        elif any(a.keyword is None and a.star != "**" for a in ctor.args):
            self.problem(
                stmt, f"`ops.{ops_path}` with positional or `*` arguments cannot be read", about=constructs.OPS_OBJECT
            )
        elif target in self.pipeline.ops or target in self.pipeline.data_attrs:
            self.problem(stmt, f"`self.{target}` is assigned more than one operator", about=constructs.OPS_OBJECT)
        elif info.random and cstutil.kwarg(ctor, "seed") is not None:
            self.problem(
                stmt,
                f"`self.{target}`: a seeded random operator or `None`: rewrite it by hand",
                about=constructs.OPS_OBJECT,
            )
        else:
            self.pipeline.other_ops.discard(target)
            op = self.pipeline.ops[target] = OpObject(target, ops_path, info, ctor, conditional=True, optional=True)
            self._hold_arguments(op, ctor, value, info, ops_path)

    def _hold_arguments(self, op: OpObject, ctor: cst.Call, value: cst.BaseExpression, info, ops_path: str) -> None:
        """``ctor`` (assigned as ``value``) writes ``<attr>_args = dict(...)`` where it is, and ``op``'s
        calls take ``**<attr>_args`` (:class:`~ndd_migrate.model.sources.legacy.ConditionalOps`)."""
        op.ctors.append(ctor)
        op.infos[ctor], op.paths[ctor] = info, ops_path
        self.pipeline.conditional_ops.ctors[ctor] = op
        self.pipeline.conditional_ops.assigns[value] = op

    def read_if(self, stmt: cst.If) -> None:
        """An ``if`` of ``__init__`` (a condition fixed when the pipeline is built): it stays where it
        is, its ``self.x = value`` become locals and its operator objects ``<x>_args = dict(...)``."""
        test = SelfUses()
        tree.visit(stmt.test, test)
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
        """A statement of a branch of an ``if`` of ``__init__``; ``branch``: the attributes that the
        branch has assigned an operator so far."""
        if isinstance(stmt, cst.If):
            self.read_if(stmt)
            return
        target, value = self_assignment(stmt)
        if target is None:
            if uses_self(stmt) and not self.reads_values_only(stmt):
                self.problem(stmt, "this use of `self` in `__init__` has no counterpart in a generator function")
            return
        ops_path = self.ops_path(value)
        if ops_path is None:
            self.read_branch_value(stmt, target, value)
            return
        self.read_branch_op(stmt, target, value, ops_path, branch)
        branch.add(target)

    def read_branch_value(self, stmt, target: str, value: cst.BaseExpression) -> None:
        """``self.<target> = value`` in a branch: a value, or the ``None`` of an operator object that
        another branch creates (:meth:`make_optional`)."""
        if _is_none(value) and target not in self.pipeline.data_attrs:
            known = self.pipeline.ops.get(target)
            if known is None:  # perhaps an operator in another branch: decided when it is seen
                self.pending_nones.setdefault(target, []).append(value)
                return
            if self.make_optional(known, [value]):
                return
        if target in self.pipeline.ops:
            self.problem(
                stmt, f"`self.{target}` is an operator in one place and a value in another", about=constructs.OPS_OBJECT
            )
        self.pipeline.data_attrs.add(target)

    def read_branch_op(self, stmt, target: str, value: cst.Call, ops_path: str, branch: set[str]) -> None:
        """``self.<target> = ops.<ops_path>(...)`` in a branch: one constructor of an operator object
        created in the branches (:meth:`add_branch_ctor`), or a problem."""
        info = op_info(fn_path_of_legacy_op(ops_path) or "")
        known = self.pipeline.ops.get(target)
        self.pipeline.other_ops.add(target)  # its calls are not reported again when it is refused below
        if info is None or info.ndd is None:
            if (target, ops_path) not in self.no_form:  # once, not in each branch
                self.no_form.add((target, ops_path))
                self.problem(
                    stmt,
                    _NO_FORM.get(ops_path, f"`ops.{ops_path}` has no dynamic-mode form"),
                    about=constructs.OPS_OBJECT,
                )
        elif any(a.keyword is None and a.star != "**" for a in value.args):
            self.problem(
                stmt, f"`ops.{ops_path}` with positional or `*` arguments cannot be read", about=constructs.OPS_OBJECT
            )
        elif target in branch or (known is not None and not known.conditional) or target in self.pipeline.data_attrs:
            self.problem(stmt, f"`self.{target}` is assigned more than one operator", about=constructs.OPS_OBJECT)
        elif known is not None and _outputs_differ(known, info, value):
            self.pipeline.mixed_outputs.add(target)
            self.problem(
                stmt,
                f"`self.{target}` is `ops.{known.ops_path}` in one branch and `ops.{ops_path}` in another, "
                "with different outputs: one call cannot be both",
                about=constructs.OPS_OBJECT,
            )
        elif info.random and cstutil.kwarg(value, "seed") is not None:
            self.problem(
                stmt,
                f"`self.{target}` created in an `if` with its own `seed=`: give it its own RNG by hand",
                about=constructs.OPS_OBJECT,
            )
        else:
            self.add_branch_ctor(stmt, target, value, ops_path, info)

    def add_branch_ctor(self, stmt, target: str, value: cst.Call, ops_path: str, info: OpInfo) -> None:
        """``value``, one constructor of the operator object ``self.<target>`` created in the branches
        (the object made at the first): each becomes ``<target>_args = dict(...)`` where it is."""
        known = self.pipeline.ops.get(target)
        if known is None:
            known = self.pipeline.ops[target] = OpObject(target, ops_path, info, value, conditional=True)
        known.ctors.append(value)
        self.pipeline.conditional_ops.assigns[value] = known
        known.infos[value] = info
        known.paths[value] = ops_path
        known.several = known.several or known.info.ndd != info.ndd
        self.pipeline.conditional_ops.ctors[value] = known
        self.pipeline.other_ops.discard(target)
        if target in self.pending_nones and not self.make_optional(known, self.pending_nones.pop(target)):
            self.problem(
                stmt, f"`self.{target}` is an operator in one place and a value in another", about=constructs.OPS_OBJECT
            )

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
            self.pipeline.conditional_ops.assigns[value] = op
        return True

    def read_device_names(self) -> None:
        """``if cpu: dev = "cpu" else: dev = "mixed"`` then ``ops.X(device=dev)``: dynamic mode rejects
        ``"mixed"``, so such literals become ``"gpu"`` when the name does nothing else; a name read
        for more (or a parameter) is given to the ops as ``"gpu" if dev == "mixed" else dev``. A
        parameter given as ``device=`` (``pipeline.mixed_params``) may be "mixed" whoever calls: the
        operators with a mixed backend (the decoders) get it mapped so too."""
        pipeline = self.pipeline
        counter = _DeviceNames()
        tree.visit(pipeline.init.body, counter)
        tree.visit(pipeline.graph.body, counter)
        params = {p.name.value for p in cstutil.all_params(pipeline.init.params)}
        pipeline.mixed_params = {name for name in counter.device_args if name in params and not counter.bound[name]}
        for name in sorted(counter.device_args):
            literals = counter.literals.get(name, [])
            mixed = [
                leaf for value in literals for leaf in _string_leaves(value) if cstutil.string_value(leaf) == "mixed"
            ]
            if not mixed:
                continue
            only_device = (
                name not in params
                and counter.bound[name] == len(literals)
                and counter.reads[name] == counter.device_args[name]
            )
            if only_device:
                pipeline.mixed_literals.update(mixed)
            else:  # `padding = ... if decoder_device == "mixed" else 0` reads it too: keep its value
                pipeline.mixed_names.add(name)


def _calls_in_arguments(ctor: cst.Call) -> bool:
    """Does an argument of the operator's constructor call something (``boxes.as_ltrb_list()``,
    ``random.choice(...)``)? Made once in ``__init__``; inlined into the call in the loop, it would
    run at every batch."""
    return any(isinstance(node, cst.Call) for arg in ctor.args for node in tree.walk(arg.value))


def fixed_names(init: cst.FunctionDef) -> frozenset[str]:
    """The parameters of ``__init__`` that it does not bind again: the generator has them, with the
    value the operators were created with (``batch_processing=batch_processing``)."""
    counter = _DeviceNames()
    tree.visit(init.body, counter)
    params = {p.name.value for p in cstutil.all_params(init.params)[1:]}
    return frozenset(name for name in params if counter.bound[name] == 0)


def _outputs_differ(known: OpObject, info: OpInfo, ctor: cst.Call) -> bool:
    """Another operator than ``known`` (created in another branch) whose outputs differ from its
    own: a reader and a non-reader, or readers with a different number of outputs."""
    return known.info.ndd != info.ndd and (
        known.info.reader != info.reader
        or (info.reader and (_reader_count(known.info, known.ctor) or 0) != (_reader_count(info, ctor) or -1))
    )


def _reader_count(info: OpInfo, ctor: cst.Call) -> int | None:
    """The outputs of a reader created by ``ctor`` (``ops.CaffeReader(...)``): the table's count, or
    the one its arguments give (a Caffe reader has images and labels unless told otherwise); None
    when not known."""
    found = output_arity.op_outputs(info.fn_path, ctor)
    return found if isinstance(found, int) else None


def _string_leaves(value: cst.BaseExpression) -> list[cst.SimpleString] | None:
    """The strings a string literal, or a conditional expression of them (``"cpu" if cpu else
    "mixed"``, the shape of DALI's ImageNet example), may give; None for any other value."""
    if isinstance(value, cst.SimpleString):
        return [value]
    if isinstance(value, cst.IfExp):
        body, orelse = _string_leaves(value.body), _string_leaves(value.orelse)
        return body + orelse if body is not None and orelse is not None else None
    return None


class _DeviceNames(SkipsTrivia, cst.CSTVisitor):
    """Per name: how often it is read, bound, bound to a string literal, and given as ``device=``."""

    def __init__(self) -> None:
        self.reads: Counter = Counter()
        self.bound: Counter = Counter()
        self.device_args: Counter = Counter()
        # the values bound that are strings, or conditional expressions of strings
        self.literals: dict[str, list[cst.BaseExpression]] = {}
        self._targets: set[int] = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            for t in flatten_targets(target.target):
                if isinstance(t, cst.Name):
                    self._targets.add(id(t))
                    self.bound[t.value] += 1
                    if len(node.targets) == 1 and t is target.target and _string_leaves(node.value) is not None:
                        self.literals.setdefault(t.value, []).append(node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):
            self.bound[node.target.value] += 1

    def visit_For(self, node: cst.For) -> None:
        for t in flatten_targets(node.target):
            if isinstance(t, cst.Name):
                self._targets.add(id(t))
                self.bound[t.value] += 1

    def visit_Arg(self, node: cst.Arg) -> bool:
        if node.keyword is not None and node.keyword.value == "device" and isinstance(node.value, cst.Name):
            self.device_args[node.value.value] += 1
        tree.visit(node.value, self)
        return False  # the keyword is not a read

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        tree.visit(node.value, self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self._targets:
            self.reads[node.value] += 1


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
            if (
                isinstance(t, cst.Name)
                and t.value == self.name
                and len(node.targets) == 1
                and _is_empty_dict(node.value)
            ):
                self.created += 1
                self._seen.add(id(t))
            elif (
                isinstance(t, cst.Subscript)
                and isinstance(t.value, cst.Name)
                and t.value.value == self.name
                and len(t.slice) == 1
                and isinstance(t.slice[0].slice, cst.Index)
                and cstutil.string_value(t.slice[0].slice.value) is not None
            ):
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
    return (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value == "dict"
        and not value.args
    )


def _is_none(value) -> bool:
    return isinstance(value, cst.Name) and value.value == "None"


def _expr_call(stmt) -> cst.Call | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr):
        value = stmt.body[0].value
        return value if isinstance(value, cst.Call) else None
    return None
