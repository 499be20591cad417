"""The vocabulary of the module model: what kinds of values a conversion changes (:class:`Kind`), a
pipeline as the analysis records it (:class:`PipelineFunction`, or one of a group, or one another
module defines), why one is blocked (:class:`Problem`), and the :class:`ModuleModel` that holds them.

Everything here is data and predicates over it; :mod:`ndd_migrate.model.analysis` fills it in.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from ndd_migrate.dali import pipeline_args
from ndd_migrate.syntax import cstutil

if TYPE_CHECKING:
    from ndd_migrate.model.values import outputs
    from ndd_migrate.model.values.external_source import SourceSpec
    from ndd_migrate.model.values.returns import Returns


class Kind(enum.Enum):
    PIPELINE = "pipeline"  # what a @pipeline_def function returns
    BATCHES = "batches"  # what pipe.run() returns: one TensorList per output
    BATCH = "batch"  # one output of pipe.run()
    PIPELINES = "pipelines"  # a list or tuple of pipeline objects (`[p(shard_id=i) for i in ...]`)
    # The pipeline function (or `Pipeline` subclass) itself as a value: a display that holds
    # several by name (`{TrainPipe: args, ValPipe: args}`: :class:`HeldFunctions`), and the name a
    # loop over it binds to each (`for cls in held`), whose calls make pipelines.
    FUNCTIONS = "functions"
    FUNCTION = "function"


@dataclass
class Problem:
    """Why a pipeline function is left as it is (reported as a TODO at ``node``)."""

    about: str  # a construct (ndd_migrate.model.constructs), or the code of the rule that found it
    node: cst.CSTNode
    message: str
    hint: str = ""  # what to do instead, when it is not "rewrite the function by hand"
    # The pipeline must stay in pipeline mode (it is serialized, exported to Triton, run by
    # TensorFlow): then only such problems are reported, not "rewrite it by hand" ones beside them.
    keeps: bool = False


# The blocks a reader call may sit in, outermost last (``_reader_place`` keeps the outermost).
READER_BLOCKS = {
    cst.If: "an `if`",
    cst.For: "a `for` loop",
    cst.While: "a `while` loop",
    cst.With: "a `with` block",
    cst.Try: "a `try` block",
}


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
    # A second call of the same reader whose epochs line up with the first (ndd_migrate.model.features.twin_readers):
    # its statement in the body (define_graph's, for a legacy class), and its number of outputs.
    twin_index: int | None = None
    twin_outputs: int | None = None
    # Readers of their own after the first, each an endless stream of its epochs (ndd_migrate.model.features.
    # twin_readers.stream_mismatch): (its statement in define_graph's body, an index, then a branch number and
    # an index per `if` it stands in; its number of outputs; its object's attribute, for a legacy class).
    streams: list[tuple[tuple[int, ...], int, str]] = field(default_factory=list)
    # What the final `return` gives (ndd_migrate.model.values.outputs): how the generator yields it.
    outputs: outputs.Outputs | None = None
    # Where the function returns (ndd_migrate.model.values.returns); `branch_forms`: the Outputs.form of each
    # `return` ending an `if` branch, in source order (each becomes `yield` + `continue`).
    returns: Returns | None = None
    branch_forms: list[str] = field(default_factory=list)
    random_calls: list[cst.Call] = field(default_factory=list)
    external_sources: list[cst.Call] = field(default_factory=list)
    source: SourceSpec | None = None  # an external source in the reader's role (NDD421)
    conditionals: list[cst.If] = field(default_factory=list)  # data-dependent `if`s NDD423 rewrites
    python_functions: list[cst.Call] = field(default_factory=list)  # `fn.python_function` calls (NDD422)
    # `types.Constant(np.array(...))` given as an operator's input: written as the array (NDD901).
    input_constants: list[cst.Call] = field(default_factory=list)
    conditionals_enabled: bool = False  # `enable_conditionals` given, in the decorator or at a call
    top_level_readers: list[cst.Call] = field(default_factory=list)
    local_names: set[str] = field(default_factory=set)
    hoisted: set[int] = field(default_factory=set)  # body statements run once, before the loop (build_time)
    # body statements dropped, with the note that says why: a `print` of graph nodes (build_time)
    dropped: dict[int, str] = field(default_factory=dict)
    built_in: str | None = None  # the function whose body defines this one (a factory, a method)
    # The first statements of the body, which store on an outside object: written where the graph was
    # built, between the `def` and its one call (ndd_migrate.model.values.build_time.lift_refusal).
    lifted: int = 0
    convert: bool = False  # decided by the engine: no problems and NDD001 may apply
    epochs: bool = False  # feeds a framework iterator / asks for reader metadata (ndd_migrate.model.features.iterators)
    epochs_refused: str | None = None  # why it cannot, when a use asks (ndd_migrate.model.features.iterators.mark)
    # Feeds only iterators whose epochs end at its external source's `StopIteration`: one generator
    # per epoch over the same source (ndd_migrate.model.features.iterators.mark_restarts).
    restarts: bool = False
    # Why not, for a pipeline of an external source given to such an iterator (NDD411 says it).
    restarts_refused: str | None = None
    checkpointing: bool = False  # `enable_checkpointing`/`checkpoint` given (ndd_migrate.model.features.checkpoints)
    label: str | None = (
        None  # how messages name it, when not by its function's name (ndd_migrate.model.sources.hand_built)
    )

    @property
    def display(self) -> str:
        return self.label or self.node.name.value

    def parameters(self) -> list[tuple[str, cst.BaseExpression | None]]:
        """Pipeline-level settings that become keyword-only parameters, with their defaults."""
        out = []
        for name in pipeline_args.PARAMETERS:
            if name in self.decorator_args:
                out.append((name, self.decorator_args[name].value))
            elif name in pipeline_args.DEFAULT_NONE and name in self.call_site_args:
                # DALI's own default: a call that does not give it still works (a random seed,
                # the current device)
                out.append((name, cst.Name("None")))
            elif name in self.call_site_args or name == "batch_size":
                # batch_size (num_threads too, in DALI 2.4's `build()`) is required in pipeline
                # mode: a keyword-only parameter without a default when the module never gives
                # it (the caller must, as before).
                out.append((name, None))
        if self.checkpointing:
            out.append(("checkpoint", cst.Name("None")))  # an ndd.checkpoint.Checkpoint (NDD415)
        return out

    def given(self, name: str) -> bool:
        return name in self.decorator_args or name in self.call_site_args


@dataclass(frozen=True)
class ImportedPipeline:
    """A pipeline function (or factory) that another file of the run defines (see crossfile.py)."""

    qualname: str
    convert: bool  # migrated there, so calls here give a generator
    # The file, when it was migrated before this run (Policy.migrated_on_disk): code here may use
    # the generator already (`next(pipe)`, passing it on), and only pipeline methods are wrong.
    migrated_in: str | None = None
    # Converted there in the epoch-aware shape (Policy.imported_epochs): a call gives
    # `(metadata, batches)`, unpacked where it is bound (`pipe_meta, pipe = p(...)`).
    epochs: bool = False
    restarts = False
    checkpointing = False


@dataclass(frozen=True)
class PipelineGroup:
    """A name bound to the same Kind from several pipelines (``images, labels = train.run()`` and
    later ``= val.run()``): it is rewritten only when every one of them is migrated."""

    members: tuple
    epochs = False  # the epoch-aware and checkpoint rewrites need one function
    restarts = False
    checkpointing = False

    @property
    def convert(self) -> bool:
        return all(pipeline.convert for pipeline in self.members)

    @property
    def qualname(self) -> str:
        return "/".join(pipeline.qualname for pipeline in self.members)


@dataclass(frozen=True)
class HeldFunctions(PipelineGroup):
    """Pipeline functions (or classes) named in a display — a list, tuple or set of them, or the
    keys or the values of a dict — and where: ``positions`` holds ``"items"`` (a sequence), or
    ``"keys"`` and/or ``"values"`` (a dict). Only a loop over it gives them out (:func:`loop_parts`)."""

    positions: frozenset = frozenset()


#: Dict methods that give what the dict holds, to be iterated.
DICT_VIEWS = ("keys", "values", "items")


@dataclass
class CrossFile:
    """What the module's imports give, from the other files of the run and from disk (crossfile.py)."""

    imported: dict[str, bool] = field(default_factory=dict)  # Policy.imported_pipelines
    outside: dict[str, str] = field(default_factory=dict)  # Policy.outside_pipelines
    on_disk: dict[str, str] = field(default_factory=dict)  # Policy.migrated_on_disk
    # Names bound from a call of an imported function the run does not define, with `.build()` and
    # `.run()` called on them: (scope, name) → the functions' qualified names (NDD007).
    foreign: dict[tuple[object, str], tuple[str, ...]] = field(default_factory=dict)
    # Policy.imported_iterator_classes: classes of other modules deriving from DALI's iterator.
    iterator_classes: dict[str, tuple[str, str]] = field(default_factory=dict)
    epochs: frozenset[str] = frozenset()  # Policy.imported_epochs
    # Policy.epoch_requests, as this module's own top-level names -> the use that asks.
    requested: dict[str, str] = field(default_factory=dict)
    requested_args: dict[str, tuple[str, ...]] = field(default_factory=dict)  # Policy.imported_call_args, so
    # Policy.shared_functions, as this module's own top-level names -> the module importing one.
    shared: dict[str, str] = field(default_factory=dict)


@dataclass
class ModuleNames:
    """The module's names that the rewrite spells or must not take."""

    ndd: str | None = None  # the module's name for the dynamic mode, if it imports it
    numpy: str | None = None
    math: str | None = None  # the module-level name of the standard library's `math`
    module_level: set[str] = field(default_factory=set)  # spelled outside functions: region.module_level_names
    # Names bound by imports from `nvidia` anywhere in the module: only an expression rooted in
    # one of them can resolve to a DALI name (Context.dali_name skips the others).
    dali_roots: set[str] = field(default_factory=set)
    # Names read outside import statements (attribute names and keywords are not reads): NDD301.
    read: set[str] = field(default_factory=set)


@dataclass
class SelfAttributes:
    """Attributes of ``self`` followed like names (ndd_migrate.model.values.attributes): each read and
    store → its SelfAttribute, and the Kind of the ones that hold a pipeline's value."""

    reads: dict = field(default_factory=dict)
    stores: dict = field(default_factory=dict)
    kinds: dict = field(default_factory=dict)  # SelfAttribute → (Kind, pipeline)


@dataclass
class ModuleModel:
    pipelines: dict[str, PipelineFunction] = field(default_factory=dict)
    by_node: dict[cst.FunctionDef, PipelineFunction] = field(default_factory=dict)
    call_sites: dict[cst.Call, PipelineFunction] = field(default_factory=dict)
    kinds: dict[tuple[object, str], tuple[Kind, PipelineFunction]] = field(default_factory=dict)
    factories: dict[str, PipelineFunction] = field(default_factory=dict)  # qualname → pipeline it returns
    crossfile: CrossFile = field(default_factory=lambda: CrossFile())
    # Qualified names of the functions whose parameters were given a pipeline's kind (plan.collect):
    # a caller in another module could pass them something else (FileResult.followed_functions).
    followed_functions: set[str] = field(default_factory=set)
    names: ModuleNames = field(default_factory=lambda: ModuleNames())
    # How each stored name is bound (ndd_flow.record_binding): the NDD5xx data flow.
    bindings: dict[cst.Name, tuple] = field(default_factory=dict)
    # `Pipeline(...)` built by hand (`with pipe:` + `set_outputs`): stays in pipeline mode (NDD403).
    explicit_pipelines: list[cst.Call] = field(default_factory=list)
    # `pipeline_def` called, not a decorator (`make = pipeline_def(body, batch_size=4)`): the graph
    # function is not read as a pipeline, so the module stays in pipeline mode (NDD001 says why).
    called_pipeline_defs: list[cst.Call] = field(default_factory=list)
    # `pipe = Pipeline(...)` + `with pipe:` graphs read as @pipeline_def functions (ndd_migrate.model.sources.hand_built),
    # and the line of each one left alone → why.
    hand_built: object = None
    hand_built_refused: dict[int, str] = field(default_factory=dict)
    # `Pipeline` base classes whose family of subclasses is left as it is → why (ndd_migrate.model.sources.subclasses)
    refused_families: dict = field(default_factory=dict)
    # `__init__` and `define_graph` of each legacy pipeline → the pipeline (legacy.owner's index).
    legacy_methods: dict | None = None
    # Calls that keep pipelines (`DALIDataset(pipeline=make(...))`) tied to them only through a
    # function that chose a pipeline function (ndd_migrate.model.features.keeps._made_by_chosen_function):
    # reported there.
    traced_keeps: set = field(default_factory=set)
    # Top-level functions holding `fn.*` calls that are no pipeline (name → def), the calls of
    # imported names (call → qualified names), and those of the helpers another module keeps in
    # pipeline mode (def → why): graph helpers across modules (ndd_migrate.model.features.library_helpers).
    library_helpers: dict[str, cst.FunctionDef] = field(default_factory=dict)
    call_qualnames: dict[cst.Call, set[str]] = field(default_factory=dict)
    kept_helpers: dict[cst.FunctionDef, str] = field(default_factory=dict)
    # Reader calls (`fn.readers.*`) in a function that is no pipeline function: its outermost
    # function → the calls (Context.outside_readers).
    outside_readers: dict[cst.FunctionDef, list[cst.Call]] = field(default_factory=dict)
    # Assignments binding a name to a DALI module or operator (`fn = dali.fn`): they keep every
    # pipeline of the module (ndd_migrate.model.features.assigned_aliases).
    dali_aliases: list[cst.Assign] = field(default_factory=list)

    def kept_by_hand(self) -> list:
        """The hand-built graphs that are not converted (put back as written after the rewrite)."""
        graphs = self.hand_built.graphs if self.hand_built else ()
        return [
            g
            for g in graphs
            for pipeline in self.pipelines.values()
            if pipeline.node is g.definition and not pipeline.convert
        ]

    def by_hand(self) -> bool:
        """A graph built by hand (``with pipe:``) stays pipeline-mode code in this module: ``fn.*``
        calls outside pipeline functions may belong to it. So for ``pipeline_def`` called on a function."""
        if self.explicit_pipelines or self.called_pipeline_defs:
            return True
        graphs = self.hand_built.graphs if self.hand_built else ()
        if not graphs:
            return False
        return any(
            not pipeline.convert
            for pipeline in self.pipelines.values()
            if any(pipeline.node is g.definition for g in graphs)
        )

    # Each node's parent, and every use of a value a conversion changes (ndd_migrate.plan.uses).
    parents: dict = field(default_factory=dict)
    plan: object = None
    functions: dict[str, cst.FunctionDef] = field(default_factory=dict)  # qualname → def (not pipelines)
    self_calls: dict = field(default_factory=dict)  # `self.make()` → qualname of the method it runs (self_methods)
    graph: tuple | None = None  # the graph code of the pipelines, and its facts (ndd_migrate.model.values.graph_code)
    # Reads of a name that see the numpy array a converting rebinding gave it, not the output it
    # held before (``seq = seq.as_cpu().as_array()``:
    # ndd_migrate.model.values.name_kinds._split_at_conversion).
    converted_reads: set = field(default_factory=set)
    attributes: SelfAttributes = field(default_factory=lambda: SelfAttributes())
    # Calls of a name of Kind.FUNCTION (`cls(...)` in `for cls in held`) → the pipeline(s) it may
    # be: call sites of each of them, which the call-site rules rewrite as such.
    made_through: dict = field(default_factory=dict)
    # Receivers of `epoch_size()`/`reader_meta()` (and iterator arguments) whose reader metadata
    # the epoch-aware shape gives, → how (ndd_migrate.model.features.iterators.mark); and the calls through a
    # name that its creation rewrites (`pipes_meta, pipes = zip(*[cls(...) for ...])`).
    metadata_reads: dict = field(default_factory=dict)
    paired_calls: set = field(default_factory=set)
    # Calls of pipelines another module of the run converts in the epoch-aware shape → that
    # pipeline (ImportedPipeline); and, for the imported ones converted otherwise, the uses here
    # that would need that shape, by qualified name, in source order (ndd_migrate.model.importers).
    imported_sites: dict = field(default_factory=dict)
    epoch_requests: dict = field(default_factory=dict)
    unplain_imported: dict = field(default_factory=dict)  # qualified name → (a call it cannot take, why)
    # Pipelines another module defines that a use here keeps in pipeline mode on purpose (handed to
    # `DALIDataset`, serialized, ...): qualified name → (construct, the call, (why, what to do)).
    imported_keeps: dict = field(default_factory=dict)
    # The calls of a class deriving from a DALI PyTorch iterator that may take the support module's
    # iterator as its base → that class (ndd_migrate.model.features.iterator_subclasses): NDD411 reads
    # each as the call of the base it makes.
    iterator_subclasses: dict = field(default_factory=dict)
    iterator_classes: dict = field(default_factory=dict)  # every such class (ClassDef → it), blocked or not

    def sites_of(self, pipeline) -> list:
        """Every call that makes a pipeline of ``fn``: by its name, or through a name that holds it."""
        through = [call for call, held in self.made_through.items() if pipeline in getattr(held, "members", (held,))]
        return [*(call for call, owner in self.call_sites.items() if owner is pipeline), *through]


#: What an item of a list of values is: iterating it gives one of these.
ITEM_KIND = {Kind.PIPELINES: Kind.PIPELINE, Kind.BATCHES: Kind.BATCH}


def constant_problem(dali: str) -> str:
    """Why a graph constant (``types.Constant(...)``, :data:`names.CONSTANTS`) blocks a conversion."""
    return (
        f"`types.{dali.rsplit('.', 1)[-1]}(...)` (a graph constant) has no dynamic-mode form: pass the "
        "Python value to the op, or `ndd.as_batch(...)` of it where it is an output"
    )


def own_context(pipeline) -> bool:
    """Does the migrated form of ``fn`` create an ``EvalContext`` of its own? Only when some device
    id other than the defaults (literal 0/None) may arrive: from a call site or a non-literal
    decorator value (a ``Pipeline`` subclass: the ``device_id`` its ``super().__init__`` passes)."""
    settings = getattr(pipeline, "settings", None)
    if settings is not None:
        device = settings.get("device_id")
    elif "device_id" in getattr(pipeline, "call_site_args", ()):
        return True
    else:
        arg = getattr(pipeline, "decorator_args", {}).get("device_id")
        device = arg.value if arg is not None else None
    if device is None:
        return False
    value = cstutil.literal_value(device)
    return isinstance(value, bool) or value not in (0, None)


def reader_on_gpu(call: cst.BaseExpression) -> bool:
    """Is ``device=`` of a reader call anything but absent or ``"cpu"``? Such a reader needs its
    pipeline's ``EvalContext`` while it reads (codegen.shape.epoch_args); a CPU reader runs in the
    default one."""
    device = cstutil.kwarg(call, "device") if isinstance(call, cst.Call) else None
    return device is not None and cstutil.literal_value(device.value) != "cpu"


def reads_on_gpu(pipeline) -> bool:
    """May a reader of ``fn`` need its pipeline's context while it reads? True when not known."""
    if not isinstance(pipeline, PipelineFunction):
        return True  # converted in another module: not read here
    call = getattr(pipeline, "reader_call", None)  # a legacy subclass: its reader operator's call
    op = getattr(pipeline, "op_calls", {}).get(call) if call is not None else None
    readers = [*(op.ctors or [op.ctor]), call] if op is not None else pipeline.top_level_readers
    return any(reader_on_gpu(reader) for reader in readers)


def reads_padded(pipeline) -> bool:
    """May a reader of ``fn`` (or of a pipeline a group may be) pad its shards (``pad_last_batch``
    given, not the literal ``False``)? Then ``Pipeline.epoch_size(name)`` (DALI 2.4 ``pipeline.py``:
    the reader's ``epoch_size_padded``) differs from its ``epoch_size``. True when not known."""
    for member in getattr(pipeline, "members", (pipeline,)):
        readers = _readers_of(member)
        if not readers:
            return True
        for reader in readers:
            pad = cstutil.kwarg(reader, "pad_last_batch") if isinstance(reader, cst.Call) else None
            if pad is not None and cstutil.literal_value(pad.value) is not False:
                return True
            if not isinstance(reader, cst.Call) or any(arg.star for arg in reader.args):
                return True
    return False


def reader_name(pipeline) -> str | None:
    """The literal ``name=`` of the one reader of ``pipeline`` (the same for every pipeline a group
    may be): the key of ``Pipeline.epoch_size()``'s dict by reader name. None when a pipeline has
    another number of readers, or a name that is not a literal string."""
    found = set()
    for member in getattr(pipeline, "members", (pipeline,)):
        readers = _readers_of(member)
        legacy = getattr(member, "reader_call", None) is not None  # its constructor and its call: one reader
        if not readers or (len(readers) != 1 and not legacy):
            return None
        names = {
            cstutil.literal_value(a.value) for r in readers for a in r.args if a.keyword and a.keyword.value == "name"
        }
        if len(names) != 1 or not all(isinstance(r, cst.Call) and not any(a.star for a in r.args) for r in readers):
            return None
        found |= names
    return found.pop() if len(found) == 1 and isinstance(next(iter(found)), str) else None


def _readers_of(member) -> list:
    """The reader calls of a pipeline function (a legacy subclass: its reader operator's
    constructor and call); empty when not known."""
    if not isinstance(member, PipelineFunction):
        return []
    call = getattr(member, "reader_call", None)  # a legacy subclass: its reader operator's call
    op = getattr(member, "op_calls", {}).get(call) if call is not None else None
    return [*(op.ctors or [op.ctor]), call] if op is not None else list(member.top_level_readers)


def one_of(pipelines) -> object:
    """The one pipeline behind all bindings of a name, or a :class:`PipelineGroup` of them (a
    group among them counted by its members: ``pipe = cls(...)`` in a loop over a display, then
    ``pipe = A(...)``)."""
    unique = tuple(dict.fromkeys(pipelines))
    if len(unique) > 1:
        unique = tuple(dict.fromkeys(m for p in unique for m in (p.members if isinstance(p, PipelineGroup) else (p,))))
    return unique[0] if len(unique) == 1 else PipelineGroup(unique)


def migrated_before(pipeline) -> bool:
    """Is ``fn`` (what :func:`expr_kind` found) a pipeline that was migrated before this run, in
    another file (every one of them, for a group)?"""
    members = getattr(pipeline, "members", (pipeline,))
    return all(getattr(m, "migrated_in", None) is not None for m in members)
