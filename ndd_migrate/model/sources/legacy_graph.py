"""Reading ``define_graph`` of a legacy ``Pipeline`` subclass: the calls of its operator objects
(``ops.PythonFunction`` ones checked), the ``fn.*`` calls and constants, what each ``return``
gives, the statements that run once, and where the reader is called (one statement, a second call
whose epochs line up, or one in each branch of an ``if``). The external sources' calls are read
with ``iter_setup`` (:mod:`ndd_migrate.model.sources.legacy_feeds`)."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import QualifiedNameProvider

from ndd_migrate.dali.tables import has_expression_form, op_info
from ndd_migrate.model import constructs
from ndd_migrate.model.features import python_operators, twin_readers
from ndd_migrate.model.sources import guarded_readers
from ndd_migrate.model.sources.legacy import LegacyPipeline, OpObject, keywords, self_attr
from ndd_migrate.model.sources.legacy_feeds import FeedReader
from ndd_migrate.model.sources.legacy_init import fixed_names
from ndd_migrate.model.sources.legacy_syntax import MethodReader, SelfUses, assigned_value
from ndd_migrate.model.types import Problem, constant_problem
from ndd_migrate.model.values import build_time, graph_constants, output_arity, outputs
from ndd_migrate.model.values.returns import Returns, contains_return
from ndd_migrate.model.values.returns import read as read_returns
from ndd_migrate.syntax import cstutil, names, tree
from ndd_migrate.syntax.cstutil import SkipsTrivia


class GraphReader(MethodReader):
    """Reads ``define_graph``, once ``__init__`` is read."""

    def __init__(self, resolver: cst.MetadataDependent, pipeline: LegacyPipeline, feeds: FeedReader) -> None:
        super().__init__(resolver, pipeline)
        self.feeds = feeds  # reads the external sources' calls, with `iter_setup`

    def read(self, graph: cst.FunctionDef) -> None:
        self.check_params(graph)
        body = graph.body.body
        found = self.read_ends(graph)
        uses = SelfUses()
        tree.visit(graph, uses)
        readers = self.read_op_calls(body, uses)
        if readers:
            self.read_reader_calls(body, readers)
        self.read_attributes(uses)
        for node in uses.bare_self:
            self.problem(node, "`self` passed on: the pipeline object no longer exists")
        for call in uses.fn_calls:
            self.read_fn_call(call, uses.inputs.get(id(call)))
        if found.ends and not found.problems:
            self.read_outputs(graph, found.all)
        self.place_build_time(body)

    def check_params(self, graph: cst.FunctionDef) -> None:
        params = graph.params
        extra = isinstance(params.star_arg, (cst.Param, cst.ParamStar)) or isinstance(params.star_kwarg, cst.Param)
        if len(params.params) != 1 or params.kwonly_params or extra:
            self.problem(graph, "`define_graph` with parameters other than `self`")

    def read_ends(self, graph: cst.FunctionDef) -> Returns:
        """Where ``define_graph`` returns (ndd_migrate.model.values.returns)."""
        self.pipeline.returns = found = read_returns(graph)  # at its end, or ending `if` branches
        if not found.ends:
            self.problem(graph, "`define_graph` does not end with `return <outputs>`")
        for node, why in found.problems:
            self.problem(node, why)
        return found

    def read_op_calls(self, body, uses: SelfUses) -> list[cst.Call]:
        """The calls ``self.<attr>(...)``: of an operator object (``op_calls``), of an external source
        (:class:`~ndd_migrate.model.sources.legacy_feeds.FeedReader`), or a problem. Gives the reader's calls."""
        pipeline = self.pipeline
        readers: list[cst.Call] = []
        python_calls = [
            call
            for call, attr in uses.calls
            if attr in pipeline.ops
            and pipeline.ops[attr].python
            and not python_operators.is_sink([*pipeline.ops[attr].ctor.args, *call.args])
        ]
        for call, attr in uses.calls:
            op = pipeline.ops.get(attr)
            if attr in pipeline.feeding.sources:
                self.feeds.read_source_call(body, call, attr)
                continue
            if op is None and attr in pipeline.other_ops:
                continue  # reported where it is created
            if op is None:
                self.problem(
                    call, f"`self.{attr}` is not an operator created in `__init__`", about=constructs.OPS_OBJECT
                )
                continue
            self.check_op_call(body, call, attr, op, python_calls)
            pipeline.op_calls[call] = op
            if op.info.reader:
                readers.append(call)
        return readers

    def check_op_call(self, body, call: cst.Call, attr: str, op: OpObject, python_calls: list[cst.Call]) -> None:
        """What a call of the operator object ``self.<attr>`` gives that one ``ndd`` call cannot take."""
        if any(a.star for a in call.args):
            self.problem(
                call, f"`self.{attr}(*...)`: inputs passed through `*`/`**` cannot be read", about=constructs.OPS_OBJECT
            )
        both = keywords(call) & op.keywords()
        if both:
            self.problem(
                call,
                f"`self.{attr}(...)` repeats constructor arguments: {', '.join(sorted(both))}",
                about=constructs.OPS_OBJECT,
            )
        if op.python and not both:
            self.check_python_call(body, call, attr, op, python_calls)
        if (
            op.several
            and not [a for a in call.args if a.keyword is None]
            and any(i.batch_size_arg for i in op.infos.values())
        ):
            self.problem(
                call,
                f"`self.{attr}()` without an input is a different operator in each branch: pass `batch_size=` by hand",
                about=constructs.OPS_OBJECT,
            )

    def check_python_call(self, body, call: cst.Call, attr: str, op: OpObject, python_calls: list[cst.Call]) -> None:
        """A call of an ``ops.PythonFunction`` object, with its constructor's arguments: what plain
        Python over the samples cannot write out (python_operators)."""
        what = f"`self.{attr}(...)` (`ops.PythonFunction`)"
        args = [*op.ctor.args, *call.args]
        fixed = frozenset() if cstutil.kwarg(call, "batch_processing") else fixed_names(self.pipeline.init)
        why = python_operators.unsupported(args, what, fixed)
        if why is None and python_operators.is_sink(args):
            why = python_operators.sink_obstacle(body, call, args, python_calls, what)
        if why:
            self.problem(call, why, about=constructs.OPS_OBJECT)

    def read_attributes(self, uses: SelfUses) -> None:
        """``self.<attr>`` other than called: a value, the test of an optional operator
        (``if self.resize:``), or a problem."""
        pipeline = self.pipeline
        for node, attr in uses.attributes:
            if attr in pipeline.init_constants:
                self.read_constant_use(node, attr, uses)
            elif attr in pipeline.ops and pipeline.ops[attr].optional and id(node) in uses.tests:
                pipeline.conditional_ops.tests[node] = uses.tests[id(node)]
            elif attr in pipeline.ops:
                self.problem(node, f"operator `self.{attr}` used other than by calling it", about=constructs.OPS_OBJECT)
            elif attr in pipeline.other_ops:
                continue  # an operator object refused where it is created, which says why
            elif attr not in pipeline.data_attrs and attr not in uses.assigned:
                self.problem(node, f"`self.{attr}` is not set in this class")
        pipeline.data_attrs |= uses.assigned

    def read_constant_use(self, node: cst.Attribute, attr: str, uses: SelfUses) -> None:
        """``self.<attr>``, a graph constant made in ``__init__`` (legacy_init.read_constants): the
        array it becomes may be given to an operator that dynamic mode has, as an input or an
        argument; any other use (an arithmetic operand, an output, an assignment) is reported."""
        arg, call = uses.inputs.get(id(node), (None, None))
        if arg is not None and arg.star == "" and attr not in uses.assigned:
            op = self.pipeline.op_calls.get(call)
            if op is not None:
                info = None if op.python else op.info
            else:
                info = op_info(names.fn_path(names.dali_name(self.resolver, call.func)) or "")
            if info is not None and info.ndd is not None and not has_expression_form(info.fn_path):
                if arg.keyword is None:
                    self.pipeline.constant_inputs.append(node)  # beside a batch input (NDD101)
                return
        self.problem(
            node,
            f"`self.{attr}`, a graph constant made in `__init__`, used other than as an input or argument of an "
            "operator that dynamic mode has: make its numpy array in `__init__` by hand",
            about=constructs.NO_DYNAMIC_FORM,
        )

    def read_fn_call(self, call: cst.Call, place: tuple[cst.Arg, cst.Call] | None) -> None:
        """Another call of ``define_graph`` (``fn.*``, ``types.Constant``); ``place``: the argument it is
        and the call it is given to."""
        dali = names.dali_name(self.resolver, call.func)
        if dali in names.CONSTANTS:
            if self._array_input(call, place):
                self.pipeline.input_constants.append(call)  # written as the array it wraps (NDD901)
            else:
                self.problem(call, constant_problem(dali), about=constructs.NO_DYNAMIC_FORM)
            return
        info = op_info(names.fn_path(dali) or "")
        if info is None or has_expression_form(info.fn_path):
            return  # an expression form: written, or blocked, by NDD101
        if info.fn_path == "external_source":  # converted in a `@pipeline_def` function, not here
            self.problem(
                call,
                "an `fn.external_source` call inside `define_graph` is not migrated (a `@pipeline_def` function's "
                "is, and so is an `ops.ExternalSource` fed in `iter_setup`): write the pipeline as a function",
            )
        elif info.ndd is None:
            self.problem(call, f"`fn.{info.fn_path}` has no dynamic-mode form", about=constructs.NO_DYNAMIC_FORM)
        elif info.reader:
            self.problem(call, "an `fn.readers.*` call inside `define_graph`: create it once by hand")
        elif info.random:
            self.pipeline.random_calls.append(call)

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
                return attr in pipeline.ops or attr in pipeline.feeding.sources or attr in pipeline.other_ops
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
                self.problem(
                    stmt, "a `return` before the reader: dynamic mode creates the reader once, before the loop"
                )
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
            why = outputs.reader_name_used(
                graph, stmt, rets, lambda call: output_arity.canonical_path(pipeline.op_calls[call].info.fn_path)
            )
            if why:
                pipeline.problems.append(Problem(constructs.PIPELINE_SUBCLASS, stmt, why, outputs.READER_HINT))

    def read_reader_calls(self, body, calls: list[cst.Call]) -> None:
        """The reader: one statement ``targets = self.<reader>(...)`` of ``define_graph``'s body, or
        one in each branch of one of its ``if`` statements (:meth:`read_reader_branches`)."""
        pipeline = self.pipeline
        pipeline.reader_call = calls[0]
        if pipeline.op_calls[calls[0]].optional:
            self.problem(
                calls[0],
                f"`self.{pipeline.op_calls[calls[0]].attr}`, a reader or `None` chosen when the pipeline is built, "
                "is the first reader: the generator's epoch loop walks its epochs, which exist only where it does; "
                "make a pipeline class for each case (with and without this reader)",
            )
            return
        for index, stmt in enumerate(body):
            if assigned_value(stmt) is calls[0]:
                pipeline.reader_index = index
                count = output_arity.op_outputs(
                    pipeline.op_calls[calls[0]].info.fn_path, _with_ctor(pipeline.op_calls[calls[0]], calls[0])
                )
                pipeline.reader_outputs = count if isinstance(count, int) else None
                if len(calls) > 1:
                    self.read_twin(body, index, calls)
                return
        for index, stmt in enumerate(body):
            if _contains(stmt, calls[0]):
                if isinstance(stmt, cst.If):
                    self.read_reader_branches(index, stmt, calls)
                else:
                    self.problem(
                        calls[0],
                        f"a reader called inside {_place(stmt)} cannot be created once, before the batch loop",
                        hint="assign its outputs in a statement of its own: `images, labels = "
                        f"self.{pipeline.op_calls[calls[0]].attr}(...)`",
                    )
                return

    def read_twin(self, body, index: int, calls: list[cst.Call]) -> None:
        """A second call of the same reader object, ``jpegs2, labels2 = self.input()``: in pipeline
        mode an operator instance of its own, read beside the first when their epochs line up
        (ndd_migrate.model.features.twin_readers); anything else is reported."""
        pipeline = self.pipeline
        first, second = pipeline.op_calls[calls[0]], pipeline.op_calls[calls[1]]
        objects = [pipeline.op_calls[call] for call in calls]
        if len({id(op) for op in objects}) == len(calls):  # each reader an object of its own
            self.read_streams(body, calls)
            return
        at = next((i for i, stmt in enumerate(body) if assigned_value(stmt) is calls[1]), None)
        if len(calls) > 2:
            why = twin_readers.THIRD
        elif first is not second:
            why = "more than one reader call: decide how their epochs line up"  # two objects
        elif at is None:
            why = "a second reader call that is not a statement `targets = self.<reader>(...)` of `define_graph`'s body"
        elif first.ctors or first.conditional:
            why = "a second call of a reader created in an `if` of `__init__`: decide how their epochs line up"
        else:
            why = twin_readers.mismatch(
                _with_ctor(first, calls[0]),
                _with_ctor(second, calls[1]),
                body[index + 1 : at],
                per_call=list(calls[0].args),
            )
        count = output_arity.op_outputs(second.info.fn_path, _with_ctor(second, calls[1]))
        if why is None and not (isinstance(count, int) and count == pipeline.reader_outputs):
            why = "two readers whose number of outputs the migration cannot read: decide how their epochs line up"
        if why is not None:
            self.problem(calls[1], why)
            return
        pipeline.twin_index = at
        pipeline.twin_outputs = count

    def read_streams(self, body, calls: list[cst.Call]) -> None:
        """Reader objects of their own after the first, ``labels = self.input_y(...)``: each read as an
        endless stream of its epochs, one batch per batch of the first
        (ndd_migrate.model.features.twin_readers.stream_mismatch); anything else is reported."""
        pipeline = self.pipeline
        first = pipeline.op_calls[calls[0]]
        found = cstutil.ScopeNames()
        for stmt in body:
            tree.visit(stmt, found)
        bound = found.bound | {name for stmt in body for name in build_time.bound_names(stmt)}
        streams = []
        for call in calls[1:]:
            op = pipeline.op_calls[call]
            at, why = _stream_path(body, call, bound)
            count = output_arity.op_outputs(op.info.fn_path, _with_ctor(op, call))
            created = None  # the `if` of `__init__` creating it, the test of its calls
            if why is None and (first.ctors or first.conditional):
                why = "several readers, the first created in an `if` of `__init__`: decide how their epochs line up"
            elif why is None and op.conditional and not _optional(op):
                created, why = guarded_readers.guard(pipeline, op, body, at)
            if why is None and not isinstance(count, int):
                why = "a reader whose number of outputs the migration cannot read: decide how the readers line up"
            elif why is None and count > 1 and isinstance(_target_of(body, call), cst.Name):
                why = f"one name holds all {count} outputs of a reader, a list in pipeline mode: unpack them"
            elif why is None:
                why = twin_readers.stream_mismatch(
                    _with_ctor(first, calls[0]),
                    _with_ctor(op, call),
                    list(call.args),
                    bound,
                    pipeline.seed() is not None,
                )
            if why is not None:
                self.problem(call, why)
                return
            if created is not None:
                pipeline.stream_guards[op.attr] = created
            streams.append((at, count, op.attr))
        pipeline.streams = streams
        pipeline.reader_names = tuple(_reader_name(pipeline.op_calls[call], call) for call in calls)

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
                value = assigned_value(inner)
                if any(value is call for call in calls):
                    found[value] = inner.body[0].targets[0].target
        why = self.branches_obstacle(stmt, calls, found, branches)
        if why:
            self.problem(calls[0], why)
            return
        op = pipeline.op_calls[calls[0]]
        count = output_arity.op_outputs(op.info.fn_path, _with_ctor(op, calls[0]))
        if op.attr in pipeline.mixed_outputs:
            count = None  # a reader with other outputs in each branch of `__init__`: reported there (NDD402)
        for call, target in found.items():
            if isinstance(target, cst.Name) and isinstance(count, int) and count > 1:
                self.problem(
                    call,
                    f"`{target.value}` holds all {count} outputs of the reader, as a list",
                    hint=outputs.READER_HINT,
                )
                return
        pipeline.reader_branches = found
        pipeline.reader_if_index = index
        pipeline.reader_outputs = count if isinstance(count, int) else None

    def branches_obstacle(self, stmt: cst.If, calls: list[cst.Call], found: dict, branches: list[list]) -> str | None:
        """Why the reader called in the branches of ``stmt`` cannot be created once, before the loop,
        or None; ``found``: each of its calls that is the value of a statement of a branch."""
        attrs = {self.pipeline.op_calls[call].attr for call in calls}
        code = {cst.Module([]).code_for_node(call) for call in calls}
        where = "in the branches of an `if`"
        if len(attrs) > 1:
            return "more than one reader call: decide how their epochs line up"
        if len(found) != len(calls) or len(found) != len(branches) or not isinstance(_last_orelse(stmt), cst.Else):
            return (
                f"a reader called {where} is created once, before the batch loop, only when every branch (an `else` "
                "included) assigns its outputs in a statement of its own"
            )
        if len(code) > 1:
            return f"the reader is called {where} with different arguments: one reader cannot be created with both"
        if _calls_in_tests(stmt):
            return (
                f"the reader is called {where} whose test calls a function: the test is evaluated anew for each batch"
            )
        return None


def _optional(op: OpObject) -> bool:
    """``self.x = ops.readers.X(...) if c else None``: one constructor, created or not; the reader's
    statement runs only under a test of ``self.x`` (pipeline mode: only where it exists)."""
    return op.optional and len(op.ctors) == 1 and not op.several


def _target_of(body: list, call: cst.Call) -> cst.BaseAssignTargetExpression | None:
    """The target of the statement ``target = call`` among ``body`` and the blocks within."""
    found = []

    class Finder(SkipsTrivia, cst.CSTVisitor):
        def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
            if assigned_value(node) is call:
                found.append(node.body[0].targets[0].target)

    for stmt in body:
        tree.visit(stmt, Finder())
    return found[0] if found else None


def _stream_path(body: list, call: cst.Call, bound: set[str]) -> tuple[tuple[int, ...] | None, str | None]:
    """Where the statement ``targets = call`` stands (its index in ``body``, then a branch number
    and an index per ``if`` it stands in), or why it cannot be read there: each ``if`` on the way
    tests only what the pipeline was built with (no call, no name ``define_graph`` binds), so it
    takes the branch it took when pipeline mode traced the graph, every batch."""
    for index, stmt in enumerate(body):
        if assigned_value(stmt) is call:
            return (index,), None
        if not _contains(stmt, call):
            continue
        if isinstance(stmt, cst.If) and not _calls_in_tests(stmt) and not _names_in_tests(stmt) & bound:
            for number, block in enumerate(_branches(stmt)):
                if any(_contains(inner, call) for inner in block):
                    path, why = _stream_path(block, call, bound)
                    return ((index, number, *path) if path else None), why
        break
    return None, (
        "a reader call that is not a statement `targets = self.<reader>(...)` of `define_graph`'s body or of "
        "an `if` testing only what the pipeline was built with"
    )


def _names_in_tests(stmt: cst.If) -> set[str]:
    finder = cstutil.ScopeNames()
    node = stmt
    while isinstance(node, cst.If):
        tree.visit(node.test, finder)
        node = node.orelse
    return set(finder.all)


def _contains(node: cst.CSTNode, target: cst.CSTNode) -> bool:
    finder = _Finds(target)
    tree.visit(node, finder)
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
        tree.visit(node.test, finder)
        node = node.orelse
    return finder.found


def _reader_name(op: OpObject, call: cst.Call) -> str | None:
    """The ``name=`` string literal a reader is given (at its call or its constructor), else None."""
    arg = cstutil.kwarg(call, "name") or cstutil.kwarg(op.ctor, "name")
    value = cstutil.literal_value(arg.value) if arg is not None else None
    return value if isinstance(value, str) else None


def _with_ctor(op: OpObject, call: cst.Call) -> cst.Call:
    """The call with the constructor's arguments too (what decides an operator's outputs)."""
    positional = [a for a in call.args if a.keyword is None and not a.star]
    rest = [a for a in call.args if a.keyword is not None or a.star]
    return call.with_changes(args=[*positional, *op.ctor.args, *rest])
