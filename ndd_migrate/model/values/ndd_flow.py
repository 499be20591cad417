"""A small, honest data flow for hand-written dynamic-mode code: what does a name hold?

The NDD5xx rules need to know whether an expression is an ndd ``Batch`` (``batch[i]`` and
``len(batch)`` fail on it), some ndd data (a ``Batch`` or a ``Tensor``: ``bool()`` of either is always
true) or an ndd reader. The answer comes from where each name is bound, never from its spelling:

* ``ndd.<op>(...)`` (any import form of ``nvidia.dali.experimental.dynamic``, found through
  :func:`ndd_migrate.syntax.names.dali_name`) gives data; a ``Batch`` when it has ``batch_size=`` or a
  ``Batch`` input. A single-output op's result is the data itself; a multi-output op's is a tuple
  whose unpacked elements are data.
* ``ndd.batch(...)`` / ``ndd.as_batch(...)`` give a ``Batch``; ``ndd.tensor``/``ndd.as_tensor`` and
  ``x.tensors[i]`` a ``Tensor``.
* ``for a, b in reader.next_epoch(batch_size=...)`` binds each unpacked target to a ``Batch`` (a
  single target gets the tuple itself, so it is *not* a batch); ``next_epoch()`` with no batch size
  yields samples, so there they are ``Tensor`` objects (DALI 2.4.0).
* ``ndd.readers.X(...)`` gives a reader.

A name is of a kind only when **every** binding of it in its scope is (a parameter, an import, a
``with ... as``, an augmented assignment or any other value makes it unknown). Unknown means no
finding. Recursive bindings (``images = ndd.resize(images)``) are resolved optimistically: the name
being decided counts as what is being asked about, the greatest fixed point.
"""

from __future__ import annotations

import enum
import functools

import libcst as cst
from libcst.metadata import ScopeProvider

from ndd_migrate.dali.tables import OpInfo, load_table, op_info
from ndd_migrate.syntax import names


class Data(enum.Enum):
    BATCH = "Batch"
    TENSOR = "Tensor"
    DATA = "Batch or Tensor"  # an op result whose batch-ness is not known
    READER = "reader"


DATA_KINDS = (Data.BATCH, Data.TENSOR, Data.DATA)


@functools.cache
def _ndd_index() -> dict[str, OpInfo]:
    """ndd path → the operator's :class:`OpInfo` (the current name wins over deprecated aliases)."""
    found: dict[str, OpInfo] = {}
    for path in load_table()["ops"]:
        info = op_info(path)
        if info is None or info.ndd is None:
            continue
        if info.ndd not in found or path == info.ndd or info.deprecated_for is None:
            found[info.ndd] = info
    return found


def ndd_op_info(ndd_path: str) -> OpInfo | None:
    """The operator behind ``nvidia.dali.experimental.dynamic.<ndd_path>``, or None."""
    return _ndd_index().get(ndd_path)


def ndd_path(ctx, expr: cst.CSTNode, dali_as_ndd: bool = False) -> str | None:
    """``ndd.readers.File`` (any alias) → ``"readers.File"``; None when not an ndd name (also for
    ``ndd.resize(x).evaluate``: qualified names see through the call, a dotted name does not).
    ``dali_as_ndd``: a pipeline-mode ``fn.<op>`` name counts as the ndd op the migration writes for it
    (``fn.random.coin_flip`` → ``"random.coin_flip"``), for code this run rewrites."""
    if names.dotted(expr) is None:
        return None
    dali = ctx.dali_name(expr)
    if dali and dali.startswith(names.NDD + "."):
        return dali[len(names.NDD) + 1 :]
    if dali_as_ndd and dali and dali.startswith(names.FN + "."):
        info = op_info(dali[len(names.FN) + 1 :])
        return info.ndd if info is not None else None
    return None


def reader_info(path: str | None) -> OpInfo | None:
    """The reader an ndd path names: ``readers.File``, or a wrong spelling of it (``readers.file``,
    the pipeline name) that the table maps to one."""
    if not path:
        return None
    info = ndd_op_info(path)
    if info is None and ("readers." in path or path.endswith("_reader")):
        info = op_info(path)
    return info if info is not None and info.reader and info.ndd else None


def is_data(kind: Data | None) -> bool:
    return kind in DATA_KINDS


def loop_reader_iter(ctx, node: cst.For) -> cst.Call | None:
    """The ``reader.next_epoch(...)`` call a ``for`` loop iterates, or None."""
    it = node.iter
    if (
        isinstance(it, cst.Call)
        and isinstance(it.func, cst.Attribute)
        and it.func.attr.value == "next_epoch"
        and Flow.of(ctx).kind(it.func.value) is Data.READER
    ):
        return it
    return None


def epoch_batch_size(call: cst.Call) -> cst.BaseExpression | None:
    """The batch size given to ``reader.next_epoch(...)`` (keyword or first positional), or None."""
    for i, arg in enumerate(call.args):
        named = arg.keyword is not None and arg.keyword.value == "batch_size"
        if named or (i == 0 and arg.keyword is None and not arg.star):
            return arg.value
    return None


def record_binding(node: cst.CSTNode, bindings: dict[cst.Name, tuple]) -> None:
    """Note how ``node`` (an ``Assign``, ``AnnAssign`` or ``For``) binds its names, in ``bindings``:
    stored ``Name`` → ``("value", expr)``, ``("unpack", expr)`` (an element of a tuple/list
    target) or ``("iter", For, unpacked)``. The analysis pre-pass calls it for every such node of
    the module, so the flow needs no traversal of its own."""
    if isinstance(node, cst.Assign):
        for t in node.targets:
            _record_targets(t.target, "value", node.value, bindings)
    elif isinstance(node, cst.AnnAssign):
        if node.value is not None:
            _record_targets(node.target, "value", node.value, bindings)
    elif isinstance(node, cst.For):
        if isinstance(node.target, cst.Name):
            bindings[node.target] = ("iter", node, False)
        elif isinstance(node.target, (cst.Tuple, cst.List)):
            for el in node.target.elements:
                if isinstance(el.value, cst.Name) and not isinstance(el, cst.StarredElement):
                    bindings[el.value] = ("iter", node, True)


def _record_targets(target: cst.BaseExpression, how: str, value, bindings: dict) -> None:
    if isinstance(target, cst.Name):
        bindings[target] = (how, value)
    elif isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            inner = el.value
            if isinstance(el, cst.StarredElement):
                continue  # a starred target is a list: unknown
            if isinstance(inner, cst.Name):
                bindings[inner] = ("unpack" if how == "value" else how, value)


class Flow:
    """The per-file answers; one instance per :class:`~ndd_migrate.engine.context.Context`.
    ``dali_as_ndd``: answers for the code as this run writes it, ``fn.<op>`` results counted as the
    ndd data they become (NDD509 asks so of helpers whose DALI calls the run rewrites)."""

    def __init__(self, ctx, module: cst.Module, dali_as_ndd: bool = False) -> None:
        self.ctx = ctx
        self.dali_as_ndd = dali_as_ndd
        self.bindings = ctx.model.bindings
        self._cache: dict[cst.CSTNode, Data | None] = {}
        self._busy: set[cst.Name] = set()
        # Answers found under an optimistic assumption, kept only until the outermost question is
        # answered: without them a name bound many times over names bound many times is explored
        # once per path, exponentially (a mutant of a real file took minutes).
        self._tentative: dict[cst.CSTNode, Data | None] = {}

    @staticmethod
    def attach(ctx, module: cst.Module) -> Flow:
        flow = ctx.ndd_flow
        if flow is None or flow.module is not module:
            flow = Flow(ctx, module)
            flow.module = module
            ctx.ndd_flow = flow  # built once per file, by the first NDD5xx rule that asks
        return flow

    @staticmethod
    def of(ctx) -> Flow:
        return ctx.ndd_flow

    # -- expressions ----------------------------------------------------------------------------
    def kind(self, expr: cst.BaseExpression) -> Data | None:
        """What an *original* expression holds, or None when unknown."""
        if isinstance(expr, cst.Name):
            return self._name_kind(expr)
        if isinstance(expr, cst.Call):
            return self._call_kind(expr)
        if isinstance(expr, cst.Subscript):
            tensors = isinstance(expr.value, cst.Attribute) and expr.value.attr.value == "tensors"
            if tensors and _single_index(expr) and self.kind(expr.value.value) is Data.BATCH:
                return Data.TENSOR
            return None
        if isinstance(expr, cst.BinaryOperation):
            left, right = self.kind(expr.left), self.kind(expr.right)
            if Data.BATCH in (left, right):
                return Data.BATCH
            if is_data(left) or is_data(right):
                return Data.DATA
            return None
        if isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, cst.Not):
            k = self.kind(expr.expression)
            return k if is_data(k) else None
        return None

    def _call_kind(self, call: cst.Call) -> Data | None:
        func = call.func
        # .cpu() / .gpu() / .evaluate() keep a Batch a Batch and a Tensor a Tensor
        if isinstance(func, cst.Attribute) and func.attr.value in ("cpu", "gpu", "evaluate") and not call.args:
            k = self.kind(func.value)
            if is_data(k):
                return k
        path = ndd_path(self.ctx, func, self.dali_as_ndd)
        if path is None:
            return None
        if path in ("batch", "as_batch"):
            return Data.BATCH
        if path in ("tensor", "as_tensor"):
            return Data.TENSOR
        if reader_info(path) is not None:
            return Data.READER  # also misspelt (`ndd.readers.file`, NDD504): what it clearly means
        info = ndd_op_info(path)
        is_math = path.startswith("math.")
        if info is None and not is_math:
            return None
        if info is not None and (info.reader or table_outputs(info, call) != 1):
            return None  # a tuple, or depends on the arguments
        return self._op_result(call)

    def _op_result(self, call: cst.Call) -> Data:
        if any(a.keyword is not None and a.keyword.value == "batch_size" for a in call.args):
            return Data.BATCH
        if any(a.keyword is None and not a.star and self.kind(a.value) is Data.BATCH for a in call.args):
            return Data.BATCH
        return Data.DATA

    def _unpacked_kind(self, value: cst.BaseExpression) -> Data | None:
        """An element of ``a, b = value``."""
        if not isinstance(value, cst.Call):
            return None
        path = ndd_path(self.ctx, value.func, self.dali_as_ndd)
        info = ndd_op_info(path) if path else None
        if info is None or info.reader or table_outputs(info, value) == 1:
            return None
        return self._op_result(value)

    def epoch_batch_size(self, call: cst.Call) -> cst.BaseExpression | None:
        """The batch size of a ``reader.next_epoch(...)`` call: its own, or else the ``batch_size=``
        given to the reader's constructor. That one is a mistake (NDD505: the constructor rejects
        it), but it says what the user means, batches of that size, so the code below the loop
        is analysed as batches and its own mistakes are reported in the same run."""
        own = epoch_batch_size(call)
        if own is not None or call.args or not isinstance(call.func, cst.Attribute):
            return own
        return self._constructor_batch_size(call.func.value)

    def _constructor_batch_size(self, reader: cst.BaseExpression) -> cst.BaseExpression | None:
        """``batch_size=`` of the reader constructor call ``reader`` is, or that every binding of the
        name ``reader`` is (the first one's value); else None."""
        if isinstance(reader, cst.Call):
            if self._call_kind(reader) is not Data.READER:
                return None
            return next(
                (a.value for a in reader.args if a.keyword is not None and a.keyword.value == "batch_size"), None
            )
        if not isinstance(reader, cst.Name):
            return None
        scope = self.ctx.resolver.get_metadata(ScopeProvider, reader, None)
        assignments = scope[reader.value] if scope is not None else ()
        sizes = []
        for assignment in assignments:
            node = getattr(assignment, "node", None)
            binding = self.bindings.get(node) if isinstance(node, cst.Name) else None
            if binding is None or binding[0] != "value" or not isinstance(binding[1], cst.Call):
                return None
            sizes.append(self._constructor_batch_size(binding[1]))
        return sizes[0] if sizes and all(size is not None for size in sizes) else None

    # -- names ----------------------------------------------------------------------------------
    def _name_kind(self, name: cst.Name) -> Data | None:
        if name in self._cache:
            return self._cache[name]
        if not self._busy:  # the outermost question
            try:
                return self._name_kind_of(name)
            finally:
                self._tentative.clear()
        if name in self._tentative:
            return self._tentative[name]
        return self._name_kind_of(name)

    def _name_kind_of(self, name: cst.Name) -> Data | None:
        scope = self.ctx.resolver.get_metadata(ScopeProvider, name, None)
        if scope is None:
            return None
        assignments = scope[name.value]
        if not assignments:
            return None
        kinds: set[Data | None] = set()
        for assignment in assignments:
            node = getattr(assignment, "node", None)
            binding = self.bindings.get(node) if isinstance(node, cst.Name) else None
            if binding is None:
                return self._remember(name, None)
            if node in self._busy:
                continue  # recursive binding: optimistic
            self._busy.add(node)
            try:
                kinds.add(self._binding_kind(binding))
            finally:
                self._busy.discard(node)
            if None in kinds:
                return self._remember(name, None)
        if not kinds:
            return None  # only recursive bindings: decide nothing (and cache nothing)
        if len(kinds) == 1:
            return self._remember(name, kinds.pop())
        if kinds <= set(DATA_KINDS):
            return self._remember(name, Data.DATA)
        return self._remember(name, None)

    def _remember(self, name: cst.Name, kind: Data | None) -> Data | None:
        if not self._busy:  # answers computed under an optimistic assumption are not cached
            self._cache[name] = kind
        else:
            self._tentative[name] = kind
        return kind

    def _binding_kind(self, binding: tuple) -> Data | None:
        how = binding[0]
        if how == "value":
            return self.kind(binding[1])
        if how == "unpack":
            return self._unpacked_kind(binding[1])
        if how == "iter":
            loop, unpacked = binding[1], binding[2]
            it = loop_reader_iter(self.ctx, loop) if unpacked else None
            if it is not None and self.epoch_batch_size(it) is not None:
                return Data.BATCH
            if it is not None and not it.args:
                return Data.TENSOR  # without a batch size an epoch yields one sample at a time
        return None


def table_outputs(info: OpInfo, call: cst.Call) -> int | None:
    """Outputs of one call: the table's count; for the resize family (``num_outputs`` depends on
    ``save_attrs``, default ``False``) one output when ``save_attrs`` is not given."""
    given = any(a.star == "**" or (a.keyword is not None and a.keyword.value == "save_attrs") for a in call.args)
    if info.num_outputs is None and info.defaults.get("save_attrs") is False and not given:
        return 1
    return info.num_outputs


def _single_index(sub: cst.Subscript) -> bool:
    return len(sub.slice) == 1 and isinstance(sub.slice[0].slice, cst.Index)


def enclosing_loops(stack: list[cst.CSTNode]) -> list[cst.CSTNode]:
    """Loops of a node stack (outermost first), stopping at the innermost function or class."""
    loops: list[cst.CSTNode] = []
    for node in reversed(stack):
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            break
        if isinstance(node, (cst.For, cst.While)):
            loops.append(node)
    return loops[::-1]
