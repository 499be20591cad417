"""Which pipelines feed a framework iterator or ask for their reader's metadata, and so get the
epoch-aware shape of docs/target-shape.md ("Framework iterators").

The epoch-aware function also gives the reader's metadata: ``pipe_meta, pipe = f(...)``. That is
only possible when every call site of the function is a plain ``name = f(...)`` statement, so the
decision is made here, once per module, before any rule rewrites (NDD001 shapes the function, NDD411
the call sites and the iterator, NDD005 ``epoch_size``/``reader_meta``).

A class deriving from a DALI PyTorch iterator gets the support module's iterator as its base where
it can (:mod:`ndd_migrate.model.features.iterator_subclasses`); elsewhere NDD411 reports it at the
class, and the pipelines given to it stay in pipeline mode.
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate.model.features import kept_restarts
from ndd_migrate.model.types import ImportedPipeline, PipelineGroup
from ndd_migrate.syntax import cstutil, names, tree
from ndd_migrate.syntax.cstutil import pipeline_items

# Rewritten (NDD411): the PyTorch iterators, whose batches ``.torch()`` reproduces.
TORCH_ITERATORS = {
    "nvidia.dali.plugin.pytorch.DALIGenericIterator": None,  # output_map given by the caller
    "nvidia.dali.plugin.pytorch.DALIClassificationIterator": ("data", "label"),
}
# Rewritten (NDD411) into the support module's class of the same interface only: the iterators of
# JAX and PaddlePaddle, whose batches those classes convert through DLPack (the generators of epochs
# give PyTorch tensors).
JAX_ITERATORS = {
    "nvidia.dali.plugin.jax.DALIGenericIterator": None,
    "nvidia.dali.plugin.jax.iterator.DALIGenericIterator": None,
}
PADDLE_ITERATORS = {
    "nvidia.dali.plugin.paddle.DALIGenericIterator": None,
    "nvidia.dali.plugin.paddle.DALIClassificationIterator": ("data", "label"),
}
DROP_IN_ONLY = {**JAX_ITERATORS, **PADDLE_ITERATORS}
# Every iterator NDD411 rewrites → its fixed output map (None: given by the caller).
REWRITTEN = {**TORCH_ITERATORS, **DROP_IN_ONLY}
# The support module's class (ndd_support.py) standing in for each.
SUPPORT_CLASSES = {
    **{dali: dali.rsplit(".", 1)[-1] for dali in TORCH_ITERATORS},
    **dict.fromkeys(JAX_ITERATORS, "DALIJaxGenericIterator"),
    **{dali: "DALIPaddle" + dali.rsplit(".DALI", 1)[-1] for dali in PADDLE_ITERATORS},
}
# The modules they are in, imported as such (`from nvidia.dali.plugin import pytorch`).
PLUGINS = ("nvidia.dali.plugin.pytorch", "nvidia.dali.plugin.jax", "nvidia.dali.plugin.paddle")
# The enum their `last_batch_policy` takes, under the names it is imported by.
LAST_BATCH_POLICIES = ("nvidia.dali.plugin.pytorch.LastBatchPolicy", "nvidia.dali.plugin.base_iterator.LastBatchPolicy")
# Reported (NDD411): iterators of other frameworks, which hand out their own tensor types (those of
# REWRITTEN too, as bases of a class and as classes chosen at run time).
OTHER_ITERATORS = {
    f"nvidia.dali.plugin.{fw}.{cls}"
    for fw, classes in {
        "jax": ("DALIGenericIterator", "iterator.DALIGenericIterator", "data_iterator"),
        "paddle": ("DALIGenericIterator", "DALIClassificationIterator"),
        "mxnet": ("DALIGenericIterator", "DALIClassificationIterator", "DALIGluonIterator"),
        "pytorch": ("DALIRaggedIterator",),
        "tf": ("DALIIterator",),
    }.items()
    for cls in classes
}
METADATA_METHODS = ("epoch_size", "reader_meta")
# The frameworks of OTHER_ITERATORS as their users know them.
FRAMEWORKS = {"jax": "JAX", "paddle": "PaddlePaddle", "mxnet": "MXNet", "tf": "TensorFlow"}


def meta_name(pipe: str) -> str:
    """The name the reader's metadata gets next to the pipeline object ``pipe``."""
    return f"{pipe}_meta"


def meta_of(pipe: cst.BaseExpression) -> cst.BaseExpression:
    """Where the reader's metadata of the pipeline ``pipe`` is kept: ``pipe_meta`` next to a name,
    ``self.pipe_meta`` next to an attribute of ``self`` (ndd_migrate.model.values.attributes)."""
    if isinstance(pipe, cst.Attribute):
        return cst.Attribute(pipe.value, cst.Name(meta_name(pipe.attr.value)))
    return cst.Name(meta_name(pipe.value))


def followed_attribute(model, expr: cst.BaseExpression):
    """The ``self`` attribute (ndd_migrate.model.values.attributes) ``expr`` stores or reads, when the epoch-aware
    shape may keep the metadata beside it; else None."""
    found = model.attributes.stores.get(expr) or model.attributes.reads.get(expr)
    return found if found is not None and found.meta_free else None


_LATER = ("fill_last_batch", "dynamic_shape", "last_batch_padded", "last_batch_policy", "prepare_first_batch")
_JAX = ("output_map", "size", "reader_name", "auto_reset", "last_batch_padded", "last_batch_policy")
#: The parameters after ``pipelines`` of the iterators NDD411 rewrites, in order (DALI 2.4's signatures).
PARAMETERS = {
    "nvidia.dali.plugin.pytorch.DALIGenericIterator": ("output_map", "size", "reader_name", "auto_reset", *_LATER),
    "nvidia.dali.plugin.pytorch.DALIClassificationIterator": ("size", "reader_name", "auto_reset", *_LATER),
    "nvidia.dali.plugin.paddle.DALIGenericIterator": ("output_map", "size", "reader_name", "auto_reset", *_LATER),
    "nvidia.dali.plugin.paddle.DALIClassificationIterator": ("size", "reader_name", "auto_reset", *_LATER),
    **dict.fromkeys(JAX_ITERATORS, (*_JAX, "prepare_first_batch", "sharding", "pmap_compatible")),
}


def keyworded(call: cst.Call, dali: str | None) -> cst.Call:
    """``call`` of an iterator NDD411 rewrites with the arguments given by position after the
    pipelines given by name (``DALIClassificationIterator(pipe, pipe.epoch_size("Reader"))`` gives
    ``size=``), for reading them; the output map stays where it is. ``reader_name=None``, DALI's
    default, is left out: it names no reader. The values are the call's own nodes."""
    names = PARAMETERS.get(dali, ())
    out = list(call.args[:1])
    for index, arg in enumerate(call.args[1:]):
        name = names[index] if index < len(names) else None
        if arg.keyword is None and not arg.star and name is not None and name != "output_map":
            arg = arg.with_changes(
                keyword=cst.Name(name), equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
            )
        if not (
            arg.keyword is not None and arg.keyword.value == "reader_name" and cstutil.literal_value(arg.value) is None
        ):
            out.append(arg)
    return call.with_changes(args=out)


def epoch_aware(call: cst.Call, dali: str | None) -> cst.BaseExpression | None:
    """The pipeline expression of an iterator call that may get the epoch-aware shape: its first
    argument, or ``pipelines=`` (a pipeline, or a list of them)."""
    if dali not in REWRITTEN or not call.args:
        return None
    if call.args[0].keyword is None and not call.args[0].star:
        return call.args[0].value
    return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "pipelines"), None)


def attribute_loader_uses(found, parents: dict) -> str | None:
    """Why the uses of a DALI iterator kept in a ``self`` attribute (``found``, see
    ndd_migrate.model.values.attributes) cannot all be rewritten, or None. Each read must be a loop over it,
    ``self.loader.reset()`` as a statement, or a fresh pass over it, ``self.loader.__iter__()`` or
    ``iter(self.loader)``, looped over or returned by ``__iter__``: DALI resets the iterator there
    (``__iter__`` after a consumed batch, whatever ``auto_reset`` says), so each is one epoch."""
    spelled = f"self.{found.name}"
    for read in found.reads:
        parent = parents.get(read)
        if isinstance(parent, cst.For) and parent.iter is read:
            continue
        call = parents.get(parent)
        if isinstance(parent, cst.Attribute) and isinstance(call, cst.Call) and not call.args:
            if parent.attr.value == "reset" and isinstance(parents.get(call), cst.Expr):
                continue
            if parent.attr.value == "__iter__" and _one_pass(call, parents):
                continue
        elif isinstance(parent, cst.Arg) and isinstance(call, cst.Call) and epoch_of(call, {read}) is read:
            if _one_pass(call, parents):
                continue
        where = f"`.{parent.attr.value}`" if isinstance(parent, cst.Attribute) else f"a `{type(parent).__name__}`"
        return (
            f"the iterator `{spelled}` is used in {where}; only loops over it, `{spelled}.reset()`, and "
            f"`{spelled}.__iter__()` or `iter({spelled})` looped over or returned by `__iter__` are rewritten"
        )
    return None


def epoch_of(call: cst.Call, reads) -> cst.BaseExpression | None:
    """``loader`` of ``loader.__iter__()`` or ``iter(loader)`` when it is one of ``reads``, else None."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "__iter__" and not call.args and func.value in reads:
        return func.value
    if isinstance(func, cst.Name) and func.value == "iter" and len(call.args) == 1 and not call.args[0].keyword:
        if not call.args[0].star and call.args[0].value in reads:
            return call.args[0].value
    return None


def _one_pass(call: cst.Call, parents: dict) -> bool:
    """Is ``call`` looped over, or the value returned by a method ``__iter__``?"""
    parent = parents.get(call)
    if isinstance(parent, cst.For) and parent.iter is call:
        return True
    if not isinstance(parent, cst.Return):
        return False
    while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda)):
        parent = parents.get(parent)
    return isinstance(parent, cst.FunctionDef) and parent.name.value == "__iter__"


def listed(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The pipelines an iterator is given: the items of a list display (``[pipe]``), or ``expr``."""
    if isinstance(expr, cst.List) and all(isinstance(e, cst.Element) for e in expr.elements):
        return [e.value for e in expr.elements]
    return [expr]


def metadata_receiver(node: cst.Call) -> cst.BaseExpression | None:
    """``pipe`` of ``pipe.epoch_size(...)`` / ``pipe.reader_meta(...)``."""
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value in METADATA_METHODS:
        return func.value
    return None


def length_receiver(node: cst.Call) -> cst.BaseExpression | None:
    """``pipe`` of ``len(pipe)`` (the caller makes sure ``len`` is the builtin): the epoch size of
    the reader a ``Pipeline`` subclass's ``__len__`` names (``LegacyPipeline.length_reader``)."""
    func, args = node.func, node.args
    if isinstance(func, cst.Name) and func.value == "len" and len(args) == 1 and not args[0].keyword:
        return None if args[0].star else args[0].value
    return None


def plain_call_sites(model, assigns, lists: bool = False, given: frozenset = frozenset()) -> set:
    """Pipeline functions all of whose call sites are ``name = f(...)`` statements, or with
    ``lists``, items of a list bound to a name (``pipes = [f(shard_id=i) for i in ...]``); with
    ``lists`` the calls through a name that holds the function (``pipe_name(...)`` in ``for
    pipe_name in classes``, ``ModuleModel.made_through``) are call sites too. ``given``: the ids of
    calls given directly to a PyTorch iterator (``DALIGenericIterator([f(...)], ...)``), plain too."""
    return _all_plain(model, _plain_ids(model, assigns, lists, given), lists)


def _all_plain(model, plain: set[int], lists: bool) -> set:
    """:func:`plain_call_sites`, from the ids of the plain calls (:func:`_plain_ids`)."""
    out = set()
    for pipeline in model.pipelines.values():
        sites = model.sites_of(pipeline) if lists else [call for call, f in model.call_sites.items() if f is pipeline]
        if sites and all(id(call) in plain for call in sites):
            out.add(pipeline)
    return out


def _plain_ids(model, assigns, lists: bool, given: frozenset) -> set[int]:
    """The ids of the calls :func:`plain_call_sites` counts as plain."""
    plain = set(given)
    for _, target, value in assigns:
        if followed_attribute(model, target) is not None and (
            value in model.call_sites or value in model.imported_sites
        ):
            plain.add(id(value))  # `self.pipe = p(...)`: `self.pipe_meta, self.pipe = p(...)`
            continue
        if isinstance(target, cst.Name) and isinstance(value, cst.BaseExpression):
            items = pipeline_items(value) if lists and isinstance(value, (cst.List, cst.Tuple, cst.ListComp)) else None
            plain.update(map(id, [value, *(items or ())]))
    return plain


def given_directly(model, expr: cst.BaseExpression):
    """The pipeline function of a call made where an iterator is given it (``[p(...)]`` in DALI's
    docs: ``DALIGenericIterator([get_dali_pipeline(...)], ...)``), or None: the support module's
    iterator takes what the migrated function returns, the reader's metadata with the batches."""
    return site(model, expr) if isinstance(expr, cst.Call) else None


def made_by(model, call: cst.BaseExpression):
    """The pipeline function a call makes a pipeline of: by its name, or through a name that holds
    one or several (their ``HeldFunctions``); else None."""
    return site(model, call) or model.made_through.get(call)


def site(model, call: cst.BaseExpression, imported: bool = False):
    """The pipeline function ``call`` calls: one of the module, or one another module of the run
    converts in the epoch-aware shape (with ``imported``: converts in any shape)."""
    found = model.call_sites.get(call)
    if found is None:
        found = model.imported_sites.get(call)
        if found is not None and not (imported or found.epochs):
            return None
    return found


def listed_sites(model, value: cst.BaseExpression) -> list | None:
    """What makes each item of a list of call sites bound to a name (see :func:`made_by`), or None."""
    items = pipeline_items(value) if isinstance(value, (cst.List, cst.Tuple, cst.ListComp)) else None
    found = [made_by(model, item) for item in items or ()]
    if not found or any(f is None for f in found):
        return None
    return found


def all_restart(pipeline) -> bool:
    """Does ``pipeline`` (or every pipeline of a group) give one generator per epoch
    (``pipeline.restarts``, :func:`mark_restarts`)?"""
    return all(getattr(m, "restarts", False) for m in getattr(pipeline, "members", (pipeline,)))


def all_epochs(pipeline) -> bool:
    """Does ``fn`` (a pipeline function, or every pipeline a group or a name may be) have the
    epoch-aware shape?"""
    return all(getattr(m, "epochs", False) for m in getattr(pipeline, "members", (pipeline,)))


def mark(analyzer, uses: list[cst.BaseExpression], lengths: list[cst.BaseExpression] = ()) -> None:
    """Set ``pipeline.epochs`` for the pipeline functions that ``uses`` (iterator arguments, receivers of
    ``epoch_size``/``reader_meta``) show to need the reader's metadata, and ``lengths`` (``pipe`` of
    ``len(pipe)``) where each pipeline it holds has a ``__len__`` asking it; when every use is a name
    bound directly by a call site (or by a list of them: an item of it, ``pipes[0]``, or the
    target of a comprehension over it, ``... for pipe in pipes``), and the function has a reader
    and plain call sites only. Each use found so is kept in ``model.metadata_reads`` (the use →
    how its metadata is reached, see :func:`_bound_pipeline`), and the calls through a name that
    the epoch-aware creation rewrites (NDD411) in ``model.paired_calls``."""
    model = analyzer.model
    direct, lists = _bound_call_sites(analyzer)
    items, whole, given, by_length = _metadata_uses(model, uses, lengths)
    plain_ids = _plain_ids(model, analyzer.assigns, True, given)
    plain = _all_plain(model, plain_ids, True)
    factories = set(map(id, model.factories.values()))
    for expr in items:
        found = (given_directly(model, expr), "given") if id(expr) in given else None
        found = found or _bound_pipeline(analyzer, direct, lists, expr)
        if found is None:
            continue
        held, how = found
        pipelines = getattr(held, "members", (held,))
        if id(expr) in by_length and not sized_by_reader(pipelines):
            continue  # `len()` of a pipeline without such a `__len__`: not a metadata use
        if any(isinstance(pipeline, ImportedPipeline) for pipeline in pipelines):
            _imported_use(model, pipelines, how, [expr, *([whole[id(expr)]] if whole[id(expr)] is not expr else [])])
            continue
        model.metadata_reads[expr] = how
        refusals = [
            _metadata_refusal(pipeline, plain, factories, _unplain_site(model, pipeline, plain_ids))
            or taken_name(model, model.sites_of(pipeline))
            for pipeline in pipelines
        ]
        if not any(refusals):
            for pipeline in pipelines:
                pipeline.epochs = True
        for pipeline, why in zip(pipelines, refusals):
            pipeline.epochs_refused = why
    _unplain_imported(model, analyzer.assigns, given)


def _metadata_uses(model, uses: list, lengths) -> tuple[list, dict, frozenset, set]:
    """``(items, whole, given, by_length)`` for :func:`mark`: each pipeline expression ``uses`` and
    ``lengths`` hold (an iterator's list display gives its items), the use each comes from (``[pipe]``
    for its ``pipe``), the ids of those made where given (``DALIGenericIterator([p(...)])``), and the
    ids of the ``len()`` arguments among them."""
    items = [item for use in uses for item in listed(use)]
    whole = {id(item): use for use in uses for item in listed(use)}
    given = frozenset(id(item) for item in items if given_directly(model, item) is not None)
    lengths = [item for item in lengths if id(item) not in whole]
    items += lengths
    whole.update((id(item), item) for item in lengths)
    return items, whole, given, {id(item) for item in lengths}


def sized_by_reader(pipelines) -> bool:
    """Does each of ``pipelines`` define ``__len__`` as its reader's epoch size (``length_reader``)?"""
    return all(getattr(pipeline, "length_reader", None) for pipeline in pipelines)


def _imported_use(model, pipelines: tuple, how, exprs: list[cst.BaseExpression]) -> None:
    """A use asking for the reader metadata of pipelines other modules of the run convert (one, or
    those a name rebound to each holds): read from their metadata where those modules give it (the
    epoch-aware shape); else, for pipelines bound to a name or an attribute, asked of those modules
    (``model.epoch_requests``, importers). ``exprs``: the use, and the list it is an item of
    (``DALIGenericIterator([pipe], ...)``), whose use waits for the answer too."""
    if not all(isinstance(pipeline, ImportedPipeline) and pipeline.convert for pipeline in pipelines):
        return  # a name bound to pipelines of this module and of another: not followed
    if all(pipeline.epochs for pipeline in pipelines):
        model.metadata_reads[exprs[0]] = how
    elif how in ("name", "attribute"):
        for pipeline in pipelines:
            if not pipeline.epochs:
                model.epoch_requests.setdefault(pipeline.qualname, []).extend(exprs)


def mark_requested(analyzer, call_args: dict[str, tuple[str, ...]]) -> None:
    """Set ``pipeline.epochs`` for the top-level pipeline functions whose reader metadata another
    module of the run asks for (``CrossFile.requested``), when the shape is open to them as to one
    asked for here (:func:`_metadata_refusal`; ``call_args``: the settings that module's calls
    give, ``batch_size`` among them) and they have one reader: the consumers that name a reader
    are in the other module, where a second reader's name cannot be checked."""
    model = analyzer.model
    if not model.crossfile.requested:
        return
    plain = _plain_ids(model, analyzer.assigns, True, frozenset())
    factories = set(map(id, model.factories.values()))
    for name in model.crossfile.requested:
        pipeline = model.pipelines.get(name)
        if pipeline is None or pipeline.epochs:
            continue
        if pipeline.twin_index is not None or pipeline.streams:
            pipeline.epochs_refused = "it has more than one reader, and the module naming one is another"
            continue
        sites_plain = all(id(call) in plain for call in model.sites_of(pipeline))
        if "batch_size" in call_args.get(name, ()):
            pipeline.call_site_args.add("batch_size")
        unplain = _unplain_site(model, pipeline, plain)
        why = _metadata_refusal(pipeline, {pipeline} if sites_plain else set(), factories, unplain) or taken_name(
            model, model.sites_of(pipeline)
        )
        pipeline.epochs, pipeline.epochs_refused = why is None, why


def _unplain_imported(model, assigns, given: frozenset) -> None:
    """The calls here of pipelines another module converts in the epoch-aware shape that are not
    bound where the rewrite unpacks them (``pipe_meta, pipe = p(...)``, or given to an iterator:
    ``given``): a factory's ``return p(...)``, an argument. Each such call would get ``(metadata,
    batches)``: the pipeline is kept in pipeline mode (``model.unplain_imported``, importers)."""
    epochs = [call for call, pipeline in model.imported_sites.items() if pipeline.epochs]
    if not epochs:
        return
    plain = _plain_ids(model, assigns, True, given)
    for call in epochs:
        qual = model.imported_sites[call].qualname
        if id(call) not in plain:
            why = (
                f"makes it other than by a plain `pipe = {cstutil.snippet(call.func)}(...)`, and the epoch-aware "
                "shape gives the reader's metadata with the batches there"
            )
            model.unplain_imported.setdefault(qual, (call, why))
        elif (why := taken_name(model, [call])) is not None:
            model.unplain_imported.setdefault(qual, (call, f"cannot take the epoch-aware shape: {why}"))


def taken_name(model, sites: list[cst.Call], name_of=meta_name, what: str = "the reader's metadata") -> str | None:
    """Why the names a rewrite binds beside the pipelines made at the call sites ``sites``
    (``name_of(pipe)``: ``pipe_meta`` for ``pipe = p(...)``, ``pipes_meta`` for ``pipes = [p(...)
    ...]``) cannot be bound, or None: one is a name of the module already, whose value it would
    overwrite. ``what`` says what the name would hold."""
    spelled = None
    for call in sites:
        current = model.parents.get(call)
        while current is not None and not isinstance(current, (cst.Assign, cst.BaseSmallStatement, cst.BaseSuite)):
            current = model.parents.get(current)
        if not (isinstance(current, cst.Assign) and len(current.targets) == 1):
            continue
        target = current.targets[0].target
        if not isinstance(target, cst.Name):
            continue  # `self.pipe`: ndd_migrate.model.values.attributes checks `self.pipe_meta` (meta_free)
        if spelled is None:
            spelled = {node.value for node in model.parents if isinstance(node, cst.Name)}
        bound = name_of(target.value)
        if bound in spelled:
            return f"`{bound}`, where it would keep {what}, is a name of this module already (rename it)"
    return None


def _bound_call_sites(analyzer) -> tuple[dict, set]:
    """The names bound directly by call sites of one pipeline function (or by a list of them):
    ``(scope, name)`` → what makes the pipeline (:func:`made_by`), and the keys of those bound to a
    list. The calls through a name among them go to ``model.paired_calls`` (NDD411 rewrites them)."""
    model = analyzer.model
    direct, lists = {}, set()
    several: dict = {}  # (scope, name) → the pipelines its plain call sites make, when it has several
    for scope, target, value in analyzer.assigns:
        if isinstance(target, cst.Name) and isinstance(value, cst.BaseExpression):
            single = site(model, value, imported=True) or model.made_through.get(value)
            sites = [single] if single is not None else listed_sites(model, value)
            if sites and len(set(sites)) == 1:
                key = (scope, target.value)
                if (
                    single is not None and key in direct and key not in lists
                ):  # `pipe = Train(...)`, then `pipe = Val(...)`
                    several.setdefault(key, [direct[key]]).append(single)
                direct[key] = sites[0]
                if single is None:
                    lists.add(key)
                items = [value] if single is not None else pipeline_items(value)
                model.paired_calls.update(item for item in items if item in model.made_through)
    for key, made in several.items():
        if key not in lists:  # each call site unpacks its own metadata: `pipe_meta, pipe = Val(...)`
            direct[key] = PipelineGroup(tuple(dict.fromkeys(made)))
    return direct, lists


def _metadata_refusal(pipeline, plain: set, factories: set, unplain: str | None = None) -> str | None:
    """Why ``pipeline`` cannot take the epoch-aware shape, or None: it needs a reader of its own, a
    ``batch_size``, plain call sites only (``plain``; ``unplain`` quotes the statement of the first
    that is not), and not to be returned by a factory (``factories``: their ids)."""
    if pipeline.reader_index is None:
        return "its function has no reader of its own (a reader made outside it cannot be asked from inside)"
    if not pipeline.given("batch_size"):
        return "neither its decorator nor its calls give `batch_size`"
    if pipeline not in plain:
        return "it is not made by plain `pipe = p(...)` statements only" + (
            f" (`{unplain}` makes one otherwise)" if unplain else ""
        )
    if id(pipeline) in factories:
        return "it is made by a function that returns it (a factory)"
    return None


def _unplain_site(model, pipeline, plain_ids: set[int]) -> str | None:
    """The statement, quoted, of the first call site of ``pipeline`` that is not plain (not in
    ``plain_ids``), or None: where a finding that needs plain call sites sends the reader."""
    for call in model.sites_of(pipeline):
        if id(call) in plain_ids:
            continue
        statement = call
        while model.parents.get(statement) is not None and not isinstance(
            statement, (cst.BaseSmallStatement, cst.BaseCompoundStatement)
        ):
            statement = model.parents[statement]
        return cstutil.snippet(statement)
    return None


def mark_restarts(analyzer, calls) -> None:
    """Set ``pipeline.restarts`` for the pipeline functions whose every object only feeds PyTorch
    iterators without ``reader_name`` (and may be built): their epochs end where their external
    source raises ``StopIteration`` (or, with ``size=``, where the count says, if the source has not
    ended first) and start again after the iterator's reset, so the function becomes one that gives
    a new generator per epoch over the same source (docs/target-shape.md, "Framework iterators"):
    a source that starts again after its ``StopIteration`` (DALI's documented
    ``ExternalInputIterator``) goes on in the next epoch. ``calls`` are the analysis' ``(call,
    qualified name)``s.

    Measured in DALI 2.4: the source is made an iterator once, ``iter(source)`` when the graph is
    built, and each epoch draws ``next()`` from that same iterator; a callable's iteration index
    restarts at 0 and its epoch index grows, which the per-epoch generator counts
    (ndd_migrate.codegen.external_source_loop). ``cycle=`` and a ``batch=`` decided at run time
    are left out."""
    model = analyzer.model
    given = _iterators_without_reader(analyzer, calls)
    if not given:
        return
    plain = plain_call_sites(model, analyzer.assigns)
    factories = set(map(id, model.factories.values()))
    sites: dict = {}  # pipeline function → the names its call sites bind
    for scope, target, value in analyzer.assigns:
        pipeline = model.call_sites.get(value) if isinstance(value, cst.BaseExpression) else None
        if pipeline is not None:
            sites.setdefault(pipeline, []).append((scope, target))
    for pipeline, bound in sites.items():
        spec = getattr(pipeline, "source", None)
        if spec is None or pipeline.reader_index is not None:
            continue
        why = _restart_refused(pipeline, spec, plain, factories) or _used_otherwise(bound, given, model.parents)
        if why == _FACTORY and _restart_refused(pipeline, spec, plain, set()) is None:
            why = kept_restarts.mark(model, pipeline, bound, given, model.parents)  # `self.pipe = self.make()`
        if why is None:
            pipeline.restarts = True
        else:
            pipeline.restarts_refused = why
    for pipeline in model.pipelines.values():  # made elsewhere than at `name = p(...)` statements
        spec = getattr(pipeline, "source", None)
        if spec is not None and pipeline.reader_index is None and pipeline not in sites:
            pipeline.restarts_refused = _restart_refused(pipeline, spec, plain, factories) or (
                "it is not made by plain `pipe = p(...)` statements"
            )


def _iterators_without_reader(analyzer, calls) -> dict[int, cst.Call]:
    """The PyTorch iterator calls given one pipeline by name, without ``reader_name``: the id of
    the name given → the call."""
    given: dict[int, cst.Call] = {}
    for call, _ in calls:
        dali = names.dali_name(analyzer, call.func)
        expr = epoch_aware(call, dali)
        if expr is None or cstutil.kwarg(keyworded(call, dali), "reader_name") is not None:
            continue
        items = listed(expr)
        if len(items) == 1 and isinstance(items[0], (cst.Name, cst.Attribute)):
            given[id(items[0])] = call
    return given


def _used_otherwise(bound: list, given: dict, parents: dict) -> str | None:
    """Why the names a pipeline function's call sites bind (``bound``: ``(scope, target)``s) are not
    all only given to the iterators of ``given`` (and built), or None."""
    iterated = [_only_iterated(scope, t, given, parents) if isinstance(t, cst.Name) else None for scope, t in bound]
    if any(calls is None for calls in iterated):
        return "the pipeline is used other than by such iterators and `build()`"
    if any(len(calls) > 1 for calls in iterated):
        # each DALI iterator takes batches from the pipeline's one read-ahead of the source
        return "the pipeline is given to more than one iterator, which share what it read ahead of the source"
    return None


def _restart_refused(pipeline, spec, plain: set, factories: set) -> str | None:
    """Why ``pipeline``, fed by the external source ``spec``, cannot be one generator per epoch, in the
    words of the finding (NDD411), or None."""
    if spec.cycle:
        return "its source has `cycle=`: it never ends an epoch"
    if spec.batch is None:
        return "its `batch=` is decided at run time"
    if pipeline.checkpointing:
        return "it is checkpointed"
    if id(pipeline) in factories:
        return _FACTORY
    if pipeline not in plain:
        return "it is not made by plain `pipe = p(...)` statements"
    return None


_FACTORY = "it is made by a function that returns it (a factory)"


def _only_iterated(scope, target: cst.Name, given: dict, parents: dict) -> set[int] | None:
    """The iterator calls of ``given`` (their ids) the name ``target`` (bound once in ``scope``) is
    given to, when every read of it is one of those or ``target.build()`` as a statement; else None."""
    if scope is None or len(scope.assignments[target.value]) != 1:
        return None
    reads = [access.node for assignment in scope.assignments[target.value] for access in assignment.references]
    calls = set()
    for node in reads:
        if id(node) in given:
            calls.add(id(given[id(node)]))
            continue
        method = parents.get(node)
        call = parents.get(method)
        if (
            isinstance(method, cst.Attribute)
            and method.attr.value == "build"
            and isinstance(call, cst.Call)
            and not call.args
            and isinstance(parents.get(call), cst.Expr)
        ):
            continue
        return None
    return calls if reads else None


def _bound_pipeline(analyzer, direct, lists, expr) -> tuple | None:
    """``(pipeline, how)`` for a use whose metadata the epoch-aware shape can give, else None.
    ``how`` is ``"name"`` (``pipe = p(...)``: ``pipe_meta``), ``"attribute"`` (``self.pipe``),
    ``"given"`` (``p(...)`` given to the iterator: :func:`given_directly`, found by :func:`mark`),
    ``"item"`` (``pipes[i]`` of ``pipes = [p(...) ...]``: ``pipes_meta[i]``), or the ``CompFor``
    whose target ``expr`` is (``... for pipe in pipes``: ``for pipe_meta, pipe in zip(pipes_meta,
    pipes)``, when ``pipe_meta`` is no name of that comprehension yet)."""
    found = followed_attribute(analyzer.model, expr) if isinstance(expr, cst.Attribute) else None
    if found is not None:
        held = site(analyzer.model, found.value, imported=True)
        return (held, "attribute") if held is not None else None
    if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Name) and len(expr.slice) == 1:
        if not isinstance(expr.slice[0].slice, cst.Index):
            return None
        key = _binding_scope(analyzer, expr.value)
        return (direct[key], "item") if key in lists else None
    if not isinstance(expr, cst.Name):
        return None
    key = _binding_scope(analyzer, expr)
    if key is None:
        return None
    scope = key[0]
    for assignment in scope.assignments[expr.value]:
        loop = analyzer.parents.get(assignment.node)
        if isinstance(loop, cst.CompFor) and loop.target is assignment.node:
            if len(scope.assignments[expr.value]) != 1 or not isinstance(loop.iter, cst.Name):
                return None
            over = _binding_scope(analyzer, loop.iter)
            if over not in lists or _names_in(_comprehension(analyzer.parents, loop), meta_name(expr.value)):
                return None
            return (direct[over], loop)
    return (direct[key], "name") if key in direct else None


def _binding_scope(analyzer, name: cst.Name) -> tuple | None:
    """``(scope, name)`` of the scope that binds ``name`` where it is read, or None."""
    scope = analyzer.scope_of(name)
    while scope is not None and not scope.assignments[name.value]:
        scope = None if scope.parent is scope else scope.parent
    return (scope, name.value) if scope is not None else None


def _comprehension(parents, loop: cst.CompFor) -> cst.CSTNode:
    """The comprehension (or generator expression) whose ``for`` clause ``loop`` is."""
    while isinstance(parents.get(loop), cst.CompFor):
        loop = parents[loop]
    return parents.get(loop, loop)


def _names_in(node: cst.CSTNode, name: str) -> bool:
    """Is ``name`` a name anywhere in ``node``?"""

    class Finder(cst.CSTVisitor):
        seen = False

        def visit_Name(self, found: cst.Name) -> None:
            self.seen = self.seen or found.value == name

    finder = Finder()
    tree.visit(node, finder)
    return finder.seen


def iterator_base(node: cst.ClassDef, dali_name, local: dict[str, str]) -> str | None:
    """The DALI framework iterator ``node`` derives from, directly or through a class of ``local``
    (class name → its DALI iterator, for the classes seen before this one), or None.

    ``dali_name(expr)`` resolves an expression to its DALI name (any import alias)."""
    for base in node.bases:
        found = dali_name(base.value)
        if found in REWRITTEN or found in OTHER_ITERATORS:
            return found
        if isinstance(base.value, cst.Name) and base.value.value in local:
            return local[base.value.value]
    return None
