"""The code that runs while a pipeline graph is defined, and what its values are.

A ``@pipeline_def`` body, a legacy ``define_graph`` and every function of the module they call by
name (transitively) run with ``DataNode`` objects: an op's output, arithmetic of outputs, a reader's
outputs. Some Python looks the same on a ``DataNode`` and on a plain Python value but means something
else once migrated (``x[0]`` indexes inside every sample of a ``DataNode``, NDD108), and some only
works while a graph is defined (``Pipeline.current()``, NDD109). That code is found by
:mod:`ndd_migrate.model.values.graph_functions`; this module answers "is this expression a
``DataNode``?" from where each name is bound, never from its spelling:

* ``NODE``: a ``DataNode`` (``fn.<op>(...)`` with one output, ``nvidia.dali.math.*``, ``x.gpu()``,
  arithmetic or a comparison with a ``DataNode``, a subscript of one, a single-output reader);
* ``NODES``: a Python tuple/list whose elements are ``DataNode`` objects (a multi-output op or reader
  bound to one name, ``(a, b)`` of nodes);
* ``PY``: a Python value holding no ``DataNode`` (literals, the pipeline function's parameters,
  module-level names, builtins' and numpy's results): a ``DataNode`` exists only while a graph is
  defined, so nothing made before can be one;
* ``BOX``: some other Python container (a dict of nodes, mixed bindings of containers);
* ``None``: unknown.

A name has a kind only when every binding of it agrees (flow-insensitive, as :mod:`ndd_migrate.model.values.ndd_flow`);
a helper's parameter has the kind of the arguments of every call of the helper in the module.
:func:`analyse` runs once per module, at the end of the analysis, and hands the facts to the rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import BuiltinAssignment, GlobalScope, ScopeProvider

from ndd_migrate.model.values import external_source
from ndd_migrate.model.values.graph_functions import Function, GraphFunctions, self_attr
from ndd_migrate.syntax import names

NODE, NODES, PY, BOX = "node", "nodes", "py", "box"

# Builtins whose result holds no DataNode whatever the argument; and those that keep the kind of a
# container argument.
_PY_BUILTINS = frozenset(
    {"len", "int", "float", "str", "bool", "range", "abs", "round", "repr", "isinstance", "hash", "ord", "chr"}
)
_SEQ_BUILTINS = frozenset({"list", "tuple"})
#: Literal expressions: Python values (read by model.values.devices too).
LITERALS = (
    cst.Integer,
    cst.Float,
    cst.Imaginary,
    cst.SimpleString,
    cst.ConcatenatedString,
    cst.FormattedString,
)


#: Readers whose outputs are a dict by feature name (DALI 2.4: ``readers.tfrecord``).
_DICT_READERS = frozenset({"readers.tfrecord"})


@dataclass
class GraphFacts:
    """What :func:`analyse` found; read by the NDD108/NDD109/NDD110/NDD111 implementations (original nodes)."""

    slices: set[cst.Subscript] = field(default_factory=set)  # `x[...]` on a DataNode → `x.slice[...]`
    slice_owners: dict[cst.Subscript, set] = field(
        default_factory=dict
    )  # each of ``slices`` → the pipelines running it
    current: dict[cst.Attribute, str] = field(default_factory=dict)  # `Pipeline.current().X` → `X`
    current_aliases: set[cst.CSTNode] = field(default_factory=set)  # `pipe = Pipeline.current()`: removed
    current_owners: dict[cst.CSTNode, set] = field(default_factory=dict)  # each of those two → the pipelines running it
    # `DataNode` in `isinstance(x, DataNode)` → `ndd.Batch`, with the pipelines whose graph runs the test
    batch_classes: dict[cst.CSTNode, set] = field(default_factory=dict)
    functions: set[cst.CSTNode] = field(default_factory=set)  # the graph functions decided here
    analysed_by: set[str] = field(default_factory=set)  # the rules that have recorded their facts
    # Helpers that take the generator's `batch_size` and `rng` (graph_helpers.threaded_helpers).
    helpers: dict[cst.FunctionDef, HelperCalls] | None = None
    # Arithmetic operands moved to their partner's device (NDD111): operand → devices.Move, and
    # the pipelines whose graph runs each.
    moves: dict[cst.CSTNode, object] = field(default_factory=dict)
    move_owners: dict[cst.CSTNode, set] = field(default_factory=dict)


@dataclass
class HelperCalls:
    """A graph helper that takes ``batch_size``/``rng``: its calls of ops that need them, and the
    calls of it, each with the function (pipeline body or helper) it is written in."""

    sizes: list[cst.Call] = field(default_factory=list)  # ops called without a batch input
    randoms: list[cst.Call] = field(default_factory=list)  # random ops without `rng=`/`seed=`
    callers: dict[cst.Call, cst.CSTNode] = field(default_factory=dict)


_EMPTY = GraphFacts()


def facts(model) -> GraphFacts:
    """The facts recorded on a module model so far (none when no rule asked for the graph)."""
    found = getattr(model, "graph", None)
    return found[1] if found is not None else _EMPTY


def prepared(resolver: cst.MetadataDependent, model) -> tuple[Graph, GraphFacts]:
    """The graph code of ``model``'s pipelines and the facts recorded about it, built once per
    module (kept on ``model.graph``). NDD108, NDD109 and NDD110 record their problems (``pipeline.problems``)
    and rewrites in it from their ``blockers()``; ``resolver`` gives the scope and qualified-name
    metadata of the original nodes."""
    if model.graph is None:
        graph = Graph(resolver, model)
        model.graph = (graph, GraphFacts(functions=set(graph.reached_by)))
    return model.graph


def analysed(rule, analyse) -> GraphFacts:
    """The facts of the module's graph code with ``analyse`` (a rule's, keyed by its ``code``) run
    on them once: the first of the rule's ``blockers()`` calls runs it, the others read it."""
    graph, found = prepared(rule.ctx.resolver, rule.ctx.model)
    if rule.code not in found.analysed_by:
        found.analysed_by.add(rule.code)
        analyse(graph, found)
    return found


def unrewritable(rule, pipe_def, sites: dict) -> list[cst.CSTNode]:
    """Of ``sites`` (a node to rewrite → the pipelines whose graph runs it), those of ``pipe_def`` that
    ``rule`` may not rewrite in this run (``# noqa``, the rule not selected). Their pipeline must
    stay as it is: the node left as pipeline mode wrote it would mean something else in the
    generator."""
    return [node for node, owners in sites.items() if pipe_def in owners and not rule.ctx.applies(rule.code, node)]


def _agreeing(parts: list, kind: str):
    """``kind``, what the parts give when each is what it is known to be; :data:`_OPTIMISTIC` where
    a part is still being computed further up (it may turn out otherwise: nothing is decided yet)."""
    return _OPTIMISTIC if any(p is _OPTIMISTIC for p in parts) else kind


def meet(kinds) -> str | None:
    """The kind of a value that may come from any of ``kinds`` (those still being computed further
    up, :data:`_OPTIMISTIC`, are assumed to agree)."""
    given = list(kinds)
    found = {k for k in given if k is not _OPTIMISTIC}
    if not found:
        return _OPTIMISTIC if given else None
    if None in found:
        return None
    if len(found) == 1:
        return found.pop()
    return None if NODE in found else BOX


class Graph(GraphFunctions):
    """The graph code of one module (:class:`GraphFunctions`) and the kinds of its expressions."""

    def __init__(self, resolver: cst.MetadataDependent, model) -> None:
        super().__init__(resolver, model)
        self._cache: dict[cst.CSTNode, str | None] = {}
        self._busy: set[cst.CSTNode] = set()
        # A name's kind is the meet over every binding of it in its scope, whatever the reference:
        # (scope, name) → the kind, once computed without assuming anything about another name
        # being computed further up (a fixed point of its own bindings). ``_asking``: the names
        # being computed, each with the others it was answered optimistically about.
        self._exhaustive, self._visits = True, 0
        self._final: dict[tuple[object, str], str | None] = {}
        self._asking: dict[tuple[object, str], tuple] = {}  # → (what it is assumed to be, names it rests on)

    # -- the graph functions ------------------------------------------------------------------
    def unfollowed_methods(self) -> list[tuple[cst.Call, str, set]]:
        """Calls ``obj.name(...)`` in graph code that may run a method of one of the module's classes
        (a method of that name exists) the walk does not follow (ndd_migrate.model.values.self_methods: it is
        also reached other than as ``self.name()``): ``(call, name, pipelines whose graph runs it)``.
        Its code is rewritten with the module (``fn.*``), but not read as graph code. A call on
        another object than ``self`` given only Python values is Python code, left out."""
        methods = {qual.rsplit(".", 1)[-1] for qual in self.model.functions if "." in qual}
        found = []
        for node, owners in self.reached_by.items():
            for call in self.functions[node].calls:
                func = call.func
                if not (isinstance(func, cst.Attribute) and call not in self.callee and func.attr.value in methods):
                    continue
                # `source.num_outputs()` on a Python object, given no DataNode, is Python code
                if func.value.value != "self" and all(self.kind(a.value) == PY for a in call.args):
                    continue
                found.append((call, func.attr.value, owners))
        return found

    # -- kinds ---------------------------------------------------------------------------------
    def kind(self, expr: cst.BaseExpression) -> str | None:
        """The kind of an original expression (see the module docstring).

        A question is first answered by following every binding of every name through every
        other binding it reaches. That is exact, but a name rebound many times in a row (as
        inlined helpers leave it: ``img, lbl = f(img, lbl)``) is explored once per order of its
        bindings: past a budget of visits the question is answered again by fixed points
        (:meth:`_fixed_point`), which visit each binding a few times."""
        if self._busy or self._asking:
            return self._kind(expr)
        self._visits = 0
        try:
            found = self._kind(expr)
        except _OverBudget:  # raised only under this frame: `_visits` counts from 0 here
            self._busy.clear()
            self._exhaustive = False
            try:
                found = self._kind(expr)
            finally:
                self._exhaustive = True
                self._busy.clear()
                self._asking.clear()
        return None if found is _OPTIMISTIC else found

    def _kind(self, expr: cst.BaseExpression) -> str | None:
        if isinstance(expr, cst.Name):
            return self._name_kind(expr)
        if isinstance(expr, LITERALS):
            return PY
        if isinstance(expr, cst.Call):
            return self._call_kind(expr)
        if isinstance(expr, cst.Attribute):
            return self._attribute_kind(expr)
        if isinstance(expr, cst.Subscript):
            return self._subscript_kind(expr)
        if isinstance(expr, (cst.BinaryOperation, cst.Comparison, cst.UnaryOperation, cst.BooleanOperation, cst.IfExp)):
            return self._operation_kind(expr)
        return self._container_kind(expr)

    def _operation_kind(self, expr: cst.BaseExpression) -> str | None:
        """The kind of arithmetic, a comparison, ``not``/``and``/``or`` or ``a if c else b``."""
        if isinstance(expr, (cst.BinaryOperation, cst.Comparison)):
            if isinstance(expr, cst.BinaryOperation):
                parts = [self.kind(expr.left), self.kind(expr.right)]
            else:
                parts = [self.kind(expr.left), *(self.kind(c.comparator) for c in expr.comparisons)]
            if NODE in parts:
                return NODE
            if all(p is PY or p is _OPTIMISTIC for p in parts):
                return _agreeing(parts, PY)
            if isinstance(expr, cst.BinaryOperation) and all(p == NODES or p is _OPTIMISTIC for p in parts):
                return _agreeing(parts, NODES)  # tuple concatenation
            return None
        if isinstance(expr, cst.UnaryOperation):
            inner = self.kind(expr.expression)
            return inner if inner in (NODE, PY) or inner is _OPTIMISTIC else None
        if isinstance(expr, cst.BooleanOperation):
            parts = [self.kind(expr.left), self.kind(expr.right)]
            return _agreeing(parts, PY) if all(p is PY or p is _OPTIMISTIC for p in parts) else None
        return meet([self.kind(expr.body), self.kind(expr.orelse)])  # an IfExp

    def _container_kind(self, expr: cst.BaseExpression) -> str | None:
        """The kind of a tuple, list, dict or set display or comprehension (None for anything else)."""
        if isinstance(expr, (cst.Tuple, cst.List)):
            if any(isinstance(el, cst.StarredElement) for el in expr.elements):
                return None
            parts = [self.kind(el.value) for el in expr.elements]
            if all(p is PY or p is _OPTIMISTIC for p in parts):
                return _agreeing(parts, PY)
            return _agreeing(parts, NODES) if all(p == NODE or p is _OPTIMISTIC for p in parts) else BOX
        if isinstance(expr, cst.ListComp):
            element = self.kind(expr.elt)
            return NODES if element == NODE else PY if element is PY else element if element is _OPTIMISTIC else BOX
        if isinstance(expr, (cst.Dict, cst.Set, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
            return BOX  # a Python container; what it holds is not followed
        return None

    def element_kind(self, container: cst.BaseExpression) -> str | None:
        """The kind of an element of ``container`` (unpacked, iterated)."""
        if isinstance(container, cst.Call) and not self._input_sets(container):
            outputs = self._op_outputs(container)
            if outputs is not None and outputs != 1:
                return NODE
            if outputs == 1 and self._is_reader(container):
                return NODE  # `(data,) = fn.readers.numpy(...)`: the migration unpacks the reader's tuple
            if outputs is None and self._is_reader(container) and not self._gives_a_dict(container):
                return NODE  # `videos, labels = fn.readers.video(...)`: each output unpacked a DataNode
        kind = self.kind(container)
        return kind if kind is _OPTIMISTIC else {NODES: NODE, PY: PY}.get(kind)

    def _call_kind(self, call: cst.Call) -> str | None:
        legacy_op = self._legacy_op(call)
        outputs = legacy_op.info.num_outputs if legacy_op is not None else self._op_outputs(call)
        if legacy_op is not None or outputs is not None:
            return self._op_kind(call, outputs, legacy_op is not None)
        if self._is_reader(call):
            return BOX  # outputs depend on the arguments: a list, or a dict (`readers.tfrecord`)
        dali = self._dali_name(call.func)
        if dali is not None:
            return self._dali_call_kind(call, dali)
        return self._python_call_kind(call)

    def _op_kind(self, call: cst.Call, outputs: int | None, legacy: bool) -> str | None:
        """The kind of the call of an op with ``outputs`` outputs (a legacy operator object's call
        when ``legacy``, its count then possibly unknown)."""
        if outputs is not None and self._input_sets(call):
            return NODES if outputs == 1 else BOX  # one result per input set, in a list
        if legacy:
            return NODE if outputs == 1 else NODES if outputs else None
        return NODE if outputs == 1 else NODES

    def _dali_call_kind(self, call: cst.Call, dali: str) -> str | None:
        """The kind of the call of the DALI name ``dali``, not an op the table counts outputs of."""
        if names.fn_path(dali) == "external_source" and external_source.listed_outputs(call):
            return NODES  # `num_outputs=len(names)`: a list of DataNodes
        if names.math_function(dali):
            return NODE
        if names.fn_path(dali) is not None:
            return None  # an op whose number of outputs depends on its arguments
        if dali.startswith(names.TYPES + "."):
            return None  # `types.Constant(...)` is a DataNode
        return None

    def _python_call_kind(self, call: cst.Call) -> str | None:
        """The kind of a call of something not DALI's: a ``DataNode``'s method, a builtin, numpy, a
        function of the module (or a method called as ``self.name()``)."""
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("gpu", "cpu", "shape"):
            inner = self.kind(func.value)
            return NODE if inner == NODE else inner if inner is _OPTIMISTIC else None
        builtin = self._builtin(func)
        if builtin in _PY_BUILTINS:
            return PY
        if builtin in _SEQ_BUILTINS and len(call.args) == 1 and not call.args[0].star:
            inner = self.kind(call.args[0].value)
            return inner if inner in (PY, NODES) else BOX
        root = func
        while isinstance(root, cst.Attribute):
            root = root.value
        if isinstance(root, cst.Name) and self._is_numpy(root):
            return PY
        callee = self.callee.get(call)  # a function of the module, or a method called as `self.name()`
        if callee is not None:
            return self._guarded(callee.node, lambda: self._returns_kind(callee))
        return None

    def _input_sets(self, call: cst.Call) -> bool:
        """An op called with a list of inputs (``op([a, b])``): DALI runs it once per input set and
        gives a list. A one-element list display (``op([a])``) gives what ``op(a)`` gives."""
        return any(
            arg.keyword is None
            and not arg.star
            and self.kind(arg.value) in (NODES, BOX)
            and not _one_element(arg.value)
            for arg in call.args
        )

    def _returns_kind(self, function: Function) -> str | None:
        if isinstance(function.node, cst.Lambda):
            return self.kind(function.node.body)
        values = [r.value for r in function.returns]
        if not values or any(v is None for v in values):
            return None
        return meet(self.kind(v) for v in values)

    def _op_outputs(self, call: cst.Call) -> int | None:
        """Outputs of an ``fn.<op>(...)`` call (a reader's too), None when not one or not known."""
        from ndd_migrate.dali.tables import op_info
        from ndd_migrate.model.values.ndd_flow import table_outputs
        from ndd_migrate.model.values.output_arity import op_outputs

        path = names.fn_path(self._dali_name(call.func))
        info = op_info(path) if path else None
        if info is None:
            return None
        found = op_outputs(path, call)  # the count the arguments give (`save_attrs=True`, a reader's)
        return found if isinstance(found, int) else table_outputs(info, call)

    def _gives_a_dict(self, call: cst.Call) -> bool:
        """Does the reader ``call`` give its outputs as a dict by feature name (``readers.tfrecord``),
        whose unpacking gives the names?"""
        return names.fn_path(self._dali_name(call.func)) in _DICT_READERS

    def _is_reader(self, call: cst.Call) -> bool:
        from ndd_migrate.dali.tables import op_info

        path = names.fn_path(self._dali_name(call.func))
        info = op_info(path) if path else None
        return bool(info and info.reader)

    def _legacy_op(self, call: cst.Call):
        for pipe_def in self.legacy.values():
            op = pipe_def.op_calls.get(call)
            if op is not None:
                return op
        return None

    def _attribute_kind(self, expr: cst.Attribute) -> str | None:
        attr = self_attr(expr)
        if attr is not None:
            legacy = self._legacy_of_self(expr.value)
            if legacy is not None:
                assigned = self.functions[legacy.graph].self_assigns.get(attr)
                if assigned:
                    return self._guarded(expr, lambda: meet(self._stored_kind(how, v) for how, v in assigned))
                return PY if attr in legacy.data_attrs else None  # set in __init__, from Python values
        if self._dali_name(expr) is not None:
            return PY  # `types.FLOAT`, a module's constant
        inner = self.kind(expr.value)
        return inner if inner is PY or inner is _OPTIMISTIC else None

    def _stored_kind(self, how: str, value: cst.BaseExpression | None) -> str | None:
        if how == "value":
            return self.kind(value)
        if how == "unpack":
            return self.element_kind(value)
        return None

    def _legacy_of_self(self, name: cst.BaseExpression):
        if not isinstance(name, cst.Name):
            return None
        for assignment in self._assignments(name) or ():
            owner = self._param_owner.get(getattr(assignment, "node", None))
            if owner is not None and owner.node in self.legacy and owner.params[0] is assignment.node:
                return self.legacy[owner.node]
        return None

    def _subscript_kind(self, expr: cst.Subscript) -> str | None:
        value = self.kind(expr.value)
        if value in (NODE, PY) or value is _OPTIMISTIC:
            return value
        if value == NODES:
            single = len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index)
            return NODE if single else NODES
        return None

    # -- names ---------------------------------------------------------------------------------
    def _assignments(self, name: cst.Name):
        scope = self.resolver.get_metadata(ScopeProvider, name, None)
        if scope is None:
            return None
        return list(scope[name.value])

    def _name_kind(self, name: cst.Name) -> str | None:
        """The meet of the kinds of the name's bindings in its scope, whatever the reference
        (past the budget, :meth:`_fixed_point` by scope and name)."""
        if name in self._cache:
            return self._cache[name]
        if self._exhaustive:
            return self._bindings_kind(name)
        key = (self.resolver.get_metadata(ScopeProvider, name, None), name.value)
        return self._fixed_point(key, lambda: self._bindings_kind(name))

    def _fixed_point(self, key, compute):
        """``compute()``, the kind of ``key`` (a name in a scope, a function's return, ...). Asked
        again while it is computed (``img = fn.flip(img)``, a helper's parameter given its own
        result), ``key`` is answered with what it is assumed to be: :data:`_OPTIMISTIC` first, then
        what the last round found, until a round finds what it assumed (unknown after a few
        rounds). Kept for good when it rests on nothing else being computed. Asked per binding
        instead, a name rebound many times in a row (as inlined helpers leave it) is explored once
        per order of its bindings: exponentially."""
        if key in self._final:
            return self._final[key]
        if key in self._asking:
            for _, depends in self._asking.values():
                depends.add(key)
            return self._asking[key][0]
        assumed, found, depends = _OPTIMISTIC, None, set()
        for _ in range(_ROUNDS):
            self._asking[key] = (assumed, set())
            try:
                found = compute()
            finally:
                _, depends = self._asking.pop(key)
            if found == assumed or key not in depends:
                break
            assumed = found
        else:
            found = None  # no fixed point in sight: unknown
        outside = depends - {key}
        for _, further_up in self._asking.values():
            further_up |= outside
        if not outside and found is not _OPTIMISTIC:
            self._final[key] = found
        return found

    def _bindings_kind(self, name: cst.Name) -> str | None:
        assignments = self._assignments(name)
        if not assignments:
            return None
        kinds = []
        for assignment in assignments:
            if isinstance(assignment, BuiltinAssignment):
                kinds.append(PY)  # True, None, ...
                continue
            node = getattr(assignment, "node", None)
            if node in self._busy:
                continue  # a recursive binding (`x = fn.resize(x)`): optimistic
            self._visits += 1
            if self._exhaustive and self._visits > _BUDGET:
                raise _OverBudget
            self._busy.add(node)
            try:
                closure = assignment.scope is not self.resolver.get_metadata(ScopeProvider, name, None)
                kinds.append(self._binding_kind(assignment, node, closure))
            finally:
                self._busy.discard(node)
            if kinds[-1] is None:
                break
        if not kinds:
            return None
        found = meet(kinds)
        if not self._busy and not self._asking:  # answers computed under an assumption are not kept
            found = None if found is _OPTIMISTIC else found
            self._cache[name] = found
        return found

    def _binding_kind(self, assignment, node: cst.CSTNode, closure: bool) -> str | None:
        if isinstance(node, (cst.Import, cst.ImportFrom, cst.FunctionDef, cst.ClassDef)):
            return PY
        if isinstance(node, cst.Param):
            owner = self._param_owner.get(node)
            if closure and (owner is None or owner.node not in self.reached_by):
                return PY  # a parameter of the function that defines the pipeline: set before any graph
            return self._param_kind(node)
        if not isinstance(node, cst.Name):
            return None
        binding = self.model.bindings.get(node)
        if binding is None:
            aug = self._aug_assigns.get(node)
            if aug is not None:  # `x += v`: a DataNode when v is; else what x's other bindings say
                value = self.kind(aug.value)
                return NODE if value == NODE else _OPTIMISTIC if value is PY else None
            comp = self._comp_targets.get(node)
            if comp is not None:
                return self._loop_target_kind(node, comp[0].target, comp[0].iter)
            if isinstance(assignment.scope, GlobalScope):
                return PY  # made before any graph exists
            return None
        how = binding[0]
        if how == "value":
            return self.kind(binding[1])
        if how == "unpack":
            return self.element_kind(binding[1])
        if how == "iter":
            return self._loop_target_kind(node, binding[1].target, binding[1].iter)
        return None

    def _loop_target_kind(self, name: cst.Name, target: cst.BaseExpression, iterated: cst.BaseExpression):
        """The kind of ``name``, bound by ``for <target> in <iterated>`` (a loop or a comprehension)."""
        if target is name:
            return self.element_kind(iterated)
        elements = target.elements if isinstance(target, (cst.Tuple, cst.List)) else ()
        position = next((i for i, el in enumerate(elements) if el.value is name), None)
        if position is None or any(isinstance(el, cst.StarredElement) for el in elements):
            return None
        if isinstance(iterated, cst.Call) and not any(a.star or a.keyword for a in iterated.args):
            builtin = self._builtin(iterated.func)
            if builtin == "enumerate" and len(elements) == 2 and len(iterated.args) == 1:
                return PY if position == 0 else self.element_kind(iterated.args[0].value)
            if builtin == "zip" and len(elements) == len(iterated.args):
                return self.element_kind(iterated.args[position].value)
        kind = self.element_kind(iterated)
        return kind if kind is PY else None  # unpacking an element: only a Python value's parts are known

    def _param_kind(self, param: cst.Param) -> str | None:
        owner = self._param_owner.get(param)
        if owner is None:
            return None
        if owner.node in self.roots and owner.node not in self.legacy:
            return PY  # a @pipeline_def function's parameters come from its callers, outside any graph
        if owner.node in self.legacy:
            return None if owner.params and owner.params[0] is param else PY
        calls = self.call_sites.get(owner.node)
        if not calls or param.star or owner.node in self.escapes:
            return None
        kinds = []
        for call in calls:
            arg = _argument(owner, param, call)
            if arg is _STAR:
                return None
            if arg is None:
                kinds.append(self.kind(param.default) if param.default is not None else None)
            else:
                kinds.append(self._guarded(arg, lambda a=arg: self.kind(a)))
        return meet(k for k in kinds if k is not _OPTIMISTIC)

    def _guarded(self, key: cst.CSTNode, compute):
        if self._exhaustive and key in self._busy:
            return _OPTIMISTIC

        def busy_while_computed():
            self._busy.add(key)
            try:
                return compute()
            finally:
                self._busy.discard(key)

        return busy_while_computed() if self._exhaustive else self._fixed_point(key, busy_while_computed)

    # -- names of things -------------------------------------------------------------------------
    def _dali_name(self, node: cst.CSTNode) -> str | None:
        root = node
        while isinstance(root, cst.Attribute):
            root = root.value
        if not (isinstance(root, cst.Name) and root.value in self.model.names.dali_roots):
            return None
        return names.dali_name(self.resolver, node)

    def _builtin(self, func: cst.BaseExpression) -> str | None:
        if not isinstance(func, cst.Name):
            return None
        assignments = self._assignments(func)
        if assignments and all(isinstance(a, BuiltinAssignment) for a in assignments):
            return func.value
        return None

    def parameter_of(self, expr: cst.BaseExpression) -> str | None:
        """The name of the helper function whose parameter ``expr`` is (a name bound only there)."""
        assignments = self._assignments(expr) if isinstance(expr, cst.Name) else None
        if not assignments or len(assignments) != 1:
            return None
        owner = self._param_owner.get(getattr(assignments[0], "node", None))
        if owner is None or owner.node in self.roots or not isinstance(owner.node, cst.FunctionDef):
            return None
        return owner.node.name.value

    def guarded(self, expr: cst.BaseExpression) -> bool | None:
        """Is ``expr``, a helper's parameter bound only there, read where ``if isinstance(<it>,
        DataNode):`` of its own function decided what it is: True in the ``if``'s body (a
        ``DataNode``), False in its ``elif``/``else`` (not one)? None anywhere else. NDD110 rewrites
        the test to ``ndd.Batch``, so the migrated helper takes the same branch with a ``Batch``."""
        if not isinstance(expr, cst.Name) or self.parameter_of(expr) is None:
            return None
        parents = self.model.parents
        child, node = expr, parents.get(expr)
        while node is not None and not isinstance(node, (cst.FunctionDef, cst.Lambda)):
            if isinstance(node, cst.If) and self._tests_node_class(node.test, expr.value):
                if child is node.body:
                    return True
                if child is node.orelse:
                    return False
            child, node = node, parents.get(node)
        return None

    def _tests_node_class(self, test: cst.BaseExpression, name: str) -> bool:
        """``isinstance(name, DataNode)``, with DALI's graph-node class alone."""
        if not (isinstance(test, cst.Call) and self._builtin(test.func) == "isinstance" and len(test.args) == 2):
            return False
        value, cls = (a.value for a in test.args)
        if any(a.keyword is not None or a.star for a in test.args):
            return False
        return isinstance(value, cst.Name) and value.value == name and self._dali_name(cls) == names.DATA_NODE

    def _is_numpy(self, root: cst.Name) -> bool:
        assignments = self._assignments(root) or []
        if len(assignments) != 1:
            return False
        node = getattr(assignments[0], "node", None)
        if not isinstance(node, (cst.Import, cst.ImportFrom)):
            return False
        if isinstance(node, cst.Import):
            return any(names.dotted(a.name).split(".")[0] == "numpy" for a in node.names)
        return node.module is not None and names.dotted(node.module).split(".")[0] == "numpy"

    def dali_name(self, node: cst.CSTNode) -> str | None:
        return self._dali_name(node)

    def builtin(self, func: cst.BaseExpression) -> str | None:
        """The builtin a name is (``isinstance``, ``list``), when nothing of the module shadows it."""
        return self._builtin(func)

    def bound_values(self, name: cst.Name) -> list[cst.BaseExpression]:
        """The values ``name = value`` statements give ``name`` where it is read (the bindings of
        other kinds are left out)."""
        found = []
        for assignment in self._assignments(name) or ():
            binding = self.model.bindings.get(getattr(assignment, "node", None))
            if binding is not None and binding[0] == "value" and isinstance(binding[1], cst.BaseExpression):
                found.append(binding[1])
        return found


_OPTIMISTIC = object()  # a kind being computed further up: assumed to agree
_ROUNDS = 4  # of a name's kind assumed while it is computed (Graph._fixed_point)
_BUDGET = 20_000  # bindings visited for one question before it is answered by fixed points (Graph.kind)


class _OverBudget(Exception):
    """A question of :meth:`Graph.kind` took more visits than :data:`_BUDGET`."""


_STAR = object()


def _argument(function: Function, param: cst.Param, call: cst.Call):
    """The expression ``call`` passes for ``param`` of ``function``; None when none (the default);
    ``_STAR`` when ``*args``/``**kwargs`` hide it (or it is the ``self`` of a ``self.name()`` call)."""
    positional = [*function.node.params.posonly_params, *function.node.params.params]
    if isinstance(call.func, cst.Attribute):  # `self.name(...)`: the first parameter is `self`
        if positional and positional[0] is param:
            return _STAR
        positional = positional[1:]
    index = next((i for i, p in enumerate(positional) if p is param), None)
    position = 0
    for arg in call.args:
        if arg.star:
            return _STAR
        if arg.keyword is not None:
            if arg.keyword.value == param.name.value:
                return arg.value
            continue
        if index is not None and position == index:
            return arg.value
        position += 1
    return None


def _one_element(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.List) and len(expr.elements) == 1 and isinstance(expr.elements[0], cst.Element)
