"""Legacy ``Pipeline`` subclasses (``__init__`` creating ``ops.*`` objects, ``define_graph`` calling
them): what the analysis reads from one, so NDD401/NDD402 can turn it into the generator function
of docs/target-shape.md ("Legacy `Pipeline` subclasses").

A class is registered in the module model like a ``@pipeline_def`` function (its instances are
``Kind.PIPELINE``), so the call-site rules (``build()`` removed, ``run()`` → ``next()``, outputs)
apply to it unchanged. Everything that the rewrite cannot carry over faithfully becomes a
:class:`~ndd_migrate.model.analysis.Problem` and the class is left as it is, with a TODO.

This module holds what is read (:class:`LegacyPipeline` and its parts) and what the rules ask of
it; the reading is :mod:`ndd_migrate.model.sources.legacy_read` (the class) and the modules of its
methods, ``legacy_init``, ``legacy_graph`` and ``legacy_feeds``.

Nodes here are *original* nodes: the rules map them to their rewritten counterparts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from ndd_migrate.dali import pipeline_args
from ndd_migrate.dali.tables import OpInfo
from ndd_migrate.model.types import PipelineFunction
from ndd_migrate.syntax import tree
from ndd_migrate.syntax.cstutil import SkipsTrivia


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
        return {k for ctor in (self.ctors or [self.ctor]) for k in keywords(ctor)}


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
class ConditionalOps:
    """Operator objects created in an ``if`` of ``__init__`` (or ``ops.X(...) if c else None``): NDD402
    writes each constructor as ``<args_name> = dict(...)`` where it is, and each test of an optional
    one in ``define_graph`` as a test of ``<args_name>``."""

    ctors: dict[cst.Call, OpObject] = field(default_factory=dict)  # ops.X(...) in an `if` of __init__
    assigns: dict[cst.BaseExpression, OpObject] = field(default_factory=dict)  # their assigned values
    tests: dict[cst.Attribute, str] = field(default_factory=dict)  # `self.x` of an optional op: "truth" / "none"


@dataclass(eq=False)
class Feeding:
    """The ``ops.ExternalSource`` objects ``iter_setup`` feeds (``self.feed_input(self.<attr>, data)``):
    each output is bound to the batch fed, before ``define_graph``'s body runs."""

    sources: dict[str, cst.Call] = field(default_factory=dict)  # self.<attr> = ops.ExternalSource(...)
    fed: dict[str, cst.Call] = field(default_factory=dict)  # output attr → `self.<source>(...)` in define_graph
    indices: set[int] = field(default_factory=set)  # define_graph statements `self.x = self.<source>()`
    feeds: dict[cst.SimpleStatementLine, Feed] = field(default_factory=dict)


@dataclass(eq=False)
class Generator:
    """Decided by NDD401 before the class's body is rewritten: the names of the generator's locals
    (the reader's rewritten call is kept while the body is)."""

    op_rngs: dict[str, str] = field(default_factory=dict)  # op object with its own seed → its RNG's name
    ctx_name: str | None = None
    reader_name: str = "reader"
    twin_name: str = "reader_2"  # a second reader whose epochs line up (ndd_migrate.model.features.twin_readers)
    stream_names: list[tuple[str, str]] = field(default_factory=list)  # each stream reader's, and its stream's
    # The `name=` literal of the reader that drives the loop, then of each stream's reader (None: not a literal).
    reader_names: tuple[str | None, ...] = ()
    reader_outputs_name: str = "reader_outputs"  # what `next_epoch` yields, with `reader_branches`
    reader_creation: cst.BaseExpression | None = None  # the rewritten reader call, with `reader_branches`
    outputs_name: str = "outputs"
    batches_name: str = "batches"
    setup_name: str = "iter_setup"  # the function `iter_setup` becomes


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
    conditional_ops: ConditionalOps = field(default_factory=ConditionalOps)
    # `dev = "mixed"` in __init__ where `dev` only gives ops their `device=`: these literals become "gpu".
    mixed_literals: set[cst.SimpleString] = field(default_factory=set)
    # Device names that may hold "mixed" and are read for more than `device=`: mapped where given.
    mixed_names: set[str] = field(default_factory=set)
    # Parameters of `__init__` given as `device=` (legacy_init.read_device_names): a caller may pass
    # "mixed", so an operator with a mixed backend gets `"gpu" if name == "mixed" else name`.
    mixed_params: set[str] = field(default_factory=set)
    data_attrs: set[str] = field(default_factory=set)  # self.<attr> that become the local <attr>
    # `self.<attr> = types.Constant(value, dtype=...)` in `__init__`, given only to operators: attr →
    # the call, which becomes the array `dali_constant(value, dtype)` (graph_constants); and the
    # `self.<attr>` given as positional inputs (another input must be a batch, NDD101).
    init_constants: dict[str, cst.Call] = field(default_factory=dict)
    constant_inputs: list[cst.Attribute] = field(default_factory=list)
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
    # A stream reader created under an `if` of `__init__` and called only under the same test
    # (ndd_migrate.model.sources.guarded_readers): its attribute → that `if`.
    stream_guards: dict[str, cst.If] = field(default_factory=dict)
    super_index: int | None = None  # the `super().__init__(...)` statement
    # `iter_setup` feeding `ops.ExternalSource` outputs: it becomes a function nested in the
    # generator, called before `define_graph`'s body at each batch.
    setup: cst.FunctionDef | None = None
    feeding: Feeding = field(default_factory=Feeding)
    setup_nonlocal: list[str] = field(default_factory=list)  # attrs `iter_setup` assigns
    batch_size_reads: set[cst.Attribute] = field(default_factory=set)  # `self.batch_size` in `iter_setup`
    generator: Generator = field(default_factory=Generator)
    # `def __len__(self): return self.epoch_size("Reader")`: that reader name. `len(pipe)` then asks
    # the reader's epoch size as `pipe.epoch_size("Reader")` does (NDD005), and `__len__` goes with
    # the class (DALI's Paddle ResNet-50 example and its copies).
    length_reader: str | None = None

    def given(self, name: str) -> bool:
        return name in self.settings

    def seed(self) -> cst.BaseExpression | None:
        """The ``seed=`` given to ``super().__init__``, unless it is pipeline mode's "not set"
        (``None``, ``-1``)."""
        seed = self.settings.get("seed")
        return None if seed is None or pipeline_args.unset(seed) else seed

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
    tree.visit(pipeline.node, finder)
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


def self_attr(node: cst.CSTNode) -> str | None:
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return node.attr.value
    return None


def keywords(call: cst.Call) -> set[str]:
    return {a.keyword.value for a in call.args if a.keyword is not None}
