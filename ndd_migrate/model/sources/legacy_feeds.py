"""Reading ``iter_setup`` of a legacy ``Pipeline`` subclass, which feeds ``ops.ExternalSource``
outputs: each output's statement in ``define_graph`` (``self.x = self.source()``), each
``feed_input`` that gives its batch, and what ``iter_setup`` reads and sets on ``self`` (it becomes
a function nested in the generator)."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.model import constructs
from ndd_migrate.model.sources.legacy import Feed, LegacyPipeline, keywords, self_attr
from ndd_migrate.model.sources.legacy_syntax import MethodReader, SelfUses, assigned_value, bound_names, flatten_targets
from ndd_migrate.model.values import external_source
from ndd_migrate.syntax import tree
from ndd_migrate.syntax.cstutil import SkipsTrivia

# `ops.ExternalSource` fed by `feed_input` in `iter_setup` (docs/target-shape.md, "Legacy `Pipeline`
# subclasses"): the arguments carried to `ndd.batch` (those that only tune how the pipeline copies
# or queues the data are external_source.COPY_TUNING).
SOURCE_CARRIED = ("layout", "dtype", "device")
_FEED_PARAMS = ("data_node", "data", "layout", "cuda_stream", "use_copy_kernel")


class FeedReader(MethodReader):
    """Reads the external sources' calls in ``define_graph`` (asked by legacy_graph's reader), then
    ``iter_setup``, which feeds them."""

    def __init__(self, resolver: cst.MetadataDependent, pipeline: LegacyPipeline) -> None:
        super().__init__(resolver, pipeline)
        self.refused_outputs: set[str] = set()  # external source outputs already reported

    def read_source_call(self, body, call: cst.Call, source: str) -> None:
        """``self.<attr> = self.<source>(...)``, a statement of ``define_graph``'s body: ``<attr>`` is
        bound to the batch ``iter_setup`` feeds, before the body runs."""
        pipeline = self.pipeline
        index = next((i for i, stmt in enumerate(body) if assigned_value(stmt) is call), None)
        target = self_attr(body[index].body[0].targets[0].target) if index is not None else None
        if target is None:
            self.problem(
                call,
                f"`self.{source}()` (`ops.ExternalSource`) is not the value of a statement "
                f"`self.<name> = self.{source}()` of `define_graph`: `feed_input` needs that name",
                about=constructs.EXTERNAL_SOURCE,
            )
            return
        self.refused_outputs.add(target)
        if target in pipeline.feeding.fed:
            self.problem(
                call, f"`self.{target}` is assigned more than one external source", about=constructs.EXTERNAL_SOURCE
            )
            return
        if any(other.func.attr.value == source for other in pipeline.feeding.fed.values()):
            self.problem(
                call,
                f"`self.{source}` (`ops.ExternalSource`) is called more than once: each call is an input of its own",
                about=constructs.EXTERNAL_SOURCE,
            )
            return
        why = _source_arguments(pipeline.feeding.sources[source], call)
        if why:
            self.problem(call, why, about=constructs.EXTERNAL_SOURCE)
            return
        self.refused_outputs.discard(target)
        pipeline.feeding.fed[target] = call
        pipeline.feeding.indices.add(index)

    def read_setup(self, init_attrs: set[str]) -> None:
        """``iter_setup`` runs before each batch; its ``feed_input`` calls give the external sources'
        batches. It becomes a function nested in the generator, so its locals stay its own; it may
        read the values ``__init__`` sets on ``self`` and assign them (``nonlocal``)."""
        setup = self.pipeline.setup
        if setup is None or not self.check_params(setup):
            return
        found = _SetupUses()
        tree.visit(setup.body, found)
        for node, why in found.problems:
            self.problem(node, why, about=constructs.EXTERNAL_SOURCE)
        self.read_feeds(setup, found)
        graph = SelfUses()
        tree.visit(self.pipeline.graph, graph)
        self.read_values_read(found, init_attrs, graph)
        self.read_values_stored(found, init_attrs)
        self.check_one_scope(setup, found, graph)

    def check_params(self, setup: cst.FunctionDef) -> bool:
        params = setup.params
        extra = isinstance(params.star_arg, (cst.Param, cst.ParamStar)) or isinstance(params.star_kwarg, cst.Param)
        if len(params.params) != 1 or params.kwonly_params or params.posonly_params or extra:
            self.problem(setup, "`iter_setup` with parameters other than `self`", about=constructs.EXTERNAL_SOURCE)
            return False
        return True

    def read_feeds(self, setup: cst.FunctionDef, found: _SetupUses) -> None:
        """Each ``feed_input`` of ``iter_setup``: every external source's output fed once."""
        pipeline = self.pipeline
        reported = len(pipeline.problems)
        for stmt, call, nested in found.feeds:
            self.read_feed(stmt, call, nested)
        refused = len(pipeline.problems) > reported or bool(self.refused_outputs)  # "not fed" would repeat it
        fed = [feed.attr for feed in pipeline.feeding.feeds.values()]
        for attr in sorted({a for a in fed if fed.count(a) > 1}):
            self.problem(
                setup,
                f"`self.{attr}` is fed more than once in `iter_setup`: each `feed_input` queues a batch",
                about=constructs.EXTERNAL_SOURCE,
            )
        for attr in pipeline.feeding.fed:
            if attr not in fed and not refused:
                self.problem(
                    setup,
                    f"`self.{attr}` (an external source's output) is not fed in `iter_setup`",
                    about=constructs.EXTERNAL_SOURCE,
                )

    def read_values_read(self, found: _SetupUses, init_attrs: set[str], graph: SelfUses) -> None:
        """``self.<attr>`` read in ``iter_setup``: ``self.batch_size``, or a value ``__init__`` sets
        (``define_graph``'s uses in ``graph``)."""
        pipeline = self.pipeline
        reported: set[str] = set()
        for node, attr in found.reads:
            if attr == "batch_size" and attr not in init_attrs and attr not in pipeline.feeding.fed:
                pipeline.batch_size_reads.add(node)  # `Pipeline.batch_size`: the generator's `batch_size`
                continue
            if attr in reported:
                continue
            reported.add(attr)
            if attr in pipeline.feeding.fed:
                self.problem(
                    node,
                    f"`self.{attr}` is a graph node in `iter_setup`: only `feed_input` may take it",
                    about=constructs.EXTERNAL_SOURCE,
                )
            elif attr not in init_attrs or attr in graph.assigned:
                self.problem(
                    node,
                    f"`self.{attr}` in `iter_setup` is not a value `__init__` sets"
                    + (" (`define_graph` sets it)" if attr in graph.assigned else ""),
                    about=constructs.EXTERNAL_SOURCE,
                )

    def read_values_stored(self, found: _SetupUses, init_attrs: set[str]) -> None:
        """``self.<attr> = ...`` in ``iter_setup``: a value ``__init__`` sets, ``nonlocal`` in the nested function."""
        pipeline = self.pipeline
        for node, attr in found.stores:
            if attr not in init_attrs or attr in pipeline.feeding.fed:
                self.problem(
                    node,
                    f"`self.{attr}` is assigned in `iter_setup` but not set in `__init__`: set it there first",
                    about=constructs.EXTERNAL_SOURCE,
                )
            elif attr not in pipeline.setup_nonlocal:
                pipeline.setup_nonlocal.append(attr)

    def check_one_scope(self, setup: cst.FunctionDef, found: _SetupUses, graph: SelfUses) -> None:
        """What the values of ``self`` as locals of one generator would change: a value ``iter_setup``
        changes that ``define_graph`` reads, a local of ``iter_setup`` named like a value."""
        changed = {a for _, a in found.stores} | found.mutated
        for attr in sorted(changed & {a for _, a in graph.attributes}):
            # define_graph read it once, when the pipeline was built; the generator reads it per batch
            self.problem(
                setup,
                f"`self.{attr}` is changed in `iter_setup` and read in `define_graph`, which "
                "read it once when the pipeline was built: give the graph its value in a name of its own",
                about=constructs.EXTERNAL_SOURCE,
            )
        clash = {a for _, a in (*found.reads, *found.stores)} & bound_names(setup)
        for name in sorted(clash):
            self.problem(
                setup,
                f"`{name}` is a local of `iter_setup` and `self.{name}` a value of the class: "
                "one function scope would merge them; rename one",
                about=constructs.EXTERNAL_SOURCE,
            )

    def read_feed(self, stmt, call: cst.Call, nested: bool) -> None:
        pipeline = self.pipeline
        if nested:
            self.problem(
                call,
                "`feed_input` in a loop, `with`, `try` or an expression: only a statement of "
                "`iter_setup` (or of an `if` in it) is rewritten, one batch per output",
                about=constructs.EXTERNAL_SOURCE,
            )
            return
        given: dict[str, int] = {}
        for position, arg in enumerate(call.args):
            name = (
                arg.keyword.value
                if arg.keyword
                else _FEED_PARAMS[position]
                if position < len(_FEED_PARAMS) and not arg.star
                else None
            )
            if name not in _FEED_PARAMS:
                self.problem(
                    call, "`feed_input` with arguments the migration does not read", about=constructs.EXTERNAL_SOURCE
                )
                return
            given[name] = position
        node = call.args[given["data_node"]].value if "data_node" in given else None
        attr = self_attr(node) if node is not None else None
        if attr in self.refused_outputs:
            return  # its external source is reported
        if attr is None or attr not in pipeline.feeding.fed or "data" not in given:
            self.problem(
                call,
                "`feed_input` of something else than `self.<name>` bound to an external source's "
                "output in `define_graph`",
                about=constructs.EXTERNAL_SOURCE,
            )
            return
        source = pipeline.feeding.fed[attr]
        carried = {
            a.keyword.value: a.value
            for a in [*pipeline.feeding.sources[source.func.attr.value].args, *source.args]
            if a.keyword is not None and a.keyword.value in SOURCE_CARRIED
        }
        layout = given.get("layout")
        if layout is not None and "layout" in carried:
            self.problem(
                call,
                f"`self.{attr}` is given a layout both by its external source and by `feed_input`: keep one",
                about=constructs.EXTERNAL_SOURCE,
            )
            return
        pipeline.feeding.feeds[stmt] = Feed(stmt, attr, given["data"], layout, carried)


def _source_arguments(ctor: cst.Call, call: cst.Call) -> str | None:
    """Why the arguments of an ``ops.ExternalSource`` and of its call cannot be carried, or None."""
    args = [*ctor.args, *call.args]
    if any(a.star or a.keyword is None for a in args):
        return "`ops.ExternalSource` with positional or `*` arguments cannot be read"
    unknown = sorted({a.keyword.value for a in args} - external_source.COPY_TUNING - set(SOURCE_CARRIED))
    if unknown:
        return (
            f"`ops.ExternalSource` with {', '.join(f'`{k}=`' for k in unknown)}: only an external source "
            "fed by `feed_input` in `iter_setup` is rewritten"
        )
    repeated = sorted(keywords(ctor) & keywords(call))
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
            stmt is not None
            and len(stmt.body) == 1
            and isinstance(stmt.body[0], cst.Expr)
            and stmt.body[0].value is node
        )
        self.feeds.append((stmt, node, self._blocks > 0 or not whole))
        for position, arg in enumerate(node.args):  # the node fed: not a read of a value
            if (arg.keyword.value == "data_node" if arg.keyword else position == 0) and self_attr(arg.value):
                self._handled.add(id(arg.value))

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        for target in flatten_targets(node.target):
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
