"""What an ``fn.external_source(source=...)`` in a pipeline function feeds, read from the code alone.

DALI decides at run time how to draw from ``source`` (``_utils/external_source_impl.py``,
``get_callback_from_source``): a generator function is called once and iterated; otherwise
``iter(source)`` is tried, and only a source that is not iterable is called, once per batch
(``batch=True``) or once per sample (``batch=False``), with a ``BatchInfo``/iteration number or a
``SampleInfo`` when it accepts one positional argument. The migration must choose one of these
shapes when it writes the code, so it resolves ``source`` statically — a function, a lambda, a
generator function, an instance of a class of this module with ``__iter__``/``__call__``, a
literal list — and leaves anything it cannot resolve to the run (``RUN_TIME``): the support
module's ``dali_external_source`` then makes DALI's choice when the generator starts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from ndd_migrate.syntax import cstutil, tree
from ndd_migrate.syntax.cstutil import SkipsTrivia

ITERABLE = "iterable"  # iterated once (or once per epoch with `cycle`)
GENERATOR = "generator function"  # called once per epoch, then iterated
CALLABLE = "callable"  # called per batch / per sample
# Not shown by the code (an imported object, a parameter given different kinds): the support
# module's `dali_external_source` draws from it as DALI does, deciding when the generator starts.
RUN_TIME = "iterable or callable, decided at run time"

# Arguments that only tune how the pipeline copies or queues the data: nothing to carry over (a
# source fed by `feed_input` too, ndd_migrate.model.sources.legacy_feeds).
COPY_TUNING = frozenset(
    {
        "name",
        "ndim",
        "no_copy",
        "blocking",
        "cuda_stream",
        "use_copy_kernel",
        "prefetch_queue_depth",
        "bytes_per_sample_hint",
        "preserve",
    }
)
_DROPPED = COPY_TUNING | {"seed"}
# Arguments carried to `ndd.as_batch`.
CARRIED = ("dtype", "layout", "device")
_KNOWN = {"source", "num_outputs", "batch", "batch_info", "cycle", "parallel", "repeat_last", *_DROPPED, *CARRIED}


@dataclass
class SourceSpec:
    """A migratable external source: the statement ``targets = fn.external_source(...)``."""

    call: cst.Call
    index: int  # position of its statement in the function body
    kind: str
    takes_info: bool  # a callable with one positional parameter
    batch: bool | None  # None: decided when the generator starts (`batch=`/`parallel=` not literals)
    batch_info: bool
    cycle: bool  # "quiet"/True: restart silently at the end of the data
    targets: list[str]  # one name per output
    parallel: bool = False  # `parallel=` given (not a literal False): dropped, the loop calls the source
    # `outputs = fn.external_source(..., num_outputs=len(names))`: a count only the run tells, the outputs
    # bound to one name as the list pipeline mode gives; the loop makes each element a batch.
    listed: bool = False
    # Beside a reader, which drives the epochs: a source that never ends (`cycle=`), drawn once per
    # batch where its statement is (`statement`); `nested` when that statement is in an `if` on the
    # pipeline function's parameters: its iterator is then made at the first draw, under the condition.
    beside_reader: bool = False
    statement: cst.SimpleStatementLine | None = None
    nested: bool = False


#: Why an external source is refused (NDD421), where other code or tests need the words.
NOT_A_STATEMENT = "an external source that is not a statement `outputs = fn.external_source(...)` of its own"
READER_AND_ENDING_SOURCE = (
    "a reader and an external source that ends in one pipeline: the reader's epochs wrap while the source ends "
    'with `StopIteration`; only a source that never ends (`cycle=True` or `"quiet"`) is drawn beside a reader, '
    "once per batch; decide how they line up"
)
NESTED_WITHOUT_READER = (
    "an external source inside an `if`, and no reader among the statements of the function's body (one under an "
    "`if` does not count): the batch loop cannot draw from a source that exists only under a condition; make it a "
    "statement of the function's body"
)
BRANCH_BESIDE_READER = (
    "an external source in one branch of an `if` and a reader in another: the condition picks one graph "
    "per pipeline, when it is built, and the generator would need a batch loop of each kind (the reader's "
    "epochs, or the source until it ends); write one pipeline function per branch (the code after the `if` in "
    "a function both call) and choose between them where the pipeline is made"
)
_WRITE_IT = (
    "write the graph as a function of that batch (`ndd.batch(data)`, a copy as `feed_input` made; `ndd.as_batch(data)` "
    "with `no_copy=True`) and call it where the data is fed, one call per `run()`"
)
NO_SOURCE = "no `source=`: the data arrives through `pipe.feed_input(...)` (or `pipe.run(name=data)`); " + _WRITE_IT
NO_SOURCE_FED_ELSEWHERE = (
    "no `source=`, and nothing in this module feeds it (`feed_input`, `run(name=data)`): the code that does is "
    "elsewhere (a DALI proxy server, Triton's DALI backend, another module); " + _WRITE_IT
)
NOT_BUILD_TIME = (
    "an external source inside an `if` whose condition is not made of the pipeline function's parameters alone "
    "(names not assigned in it, literals, `and`/`or`/`not`, comparisons): only such a condition is known to be "
    "decided once, when the pipeline is built"
)


def place(
    fn_node: cst.FunctionDef, call: cst.Call, parents: dict
) -> tuple[int, cst.SimpleStatementLine, bool] | str | None:
    """Where the statement ``targets = fn.external_source(...)`` of ``call`` is: ``(index of the
    statement of the function's body that holds it, the statement, nested)`` -- nested when it is
    in an ``if`` (``elif``, ``else``) whose every condition is build-time (:func:`build_time_condition`).
    None when the call is not such a statement, or is in another block; a reason when it is in an
    ``if`` whose condition is not build-time."""
    for index, stmt in enumerate(fn_node.body.body):
        if cstutil.assigned_call(stmt) is call:
            return index, stmt, False
    stmt = parents.get(parents.get(call))  # call → Assign → SimpleStatementLine
    if not isinstance(stmt, cst.SimpleStatementLine) or cstutil.assigned_call(stmt) is not call:
        return None
    node, nested = stmt, False
    while True:
        parent = parents.get(node)
        if isinstance(parent, cst.IndentedBlock) and parents.get(parent) is fn_node:
            index = next((i for i, s in enumerate(fn_node.body.body) if s is node), None)
            return None if index is None else (index, stmt, nested)
        if isinstance(parent, cst.If):
            if not build_time_condition(parent.test, fn_node):
                return NOT_BUILD_TIME
            nested = True
        elif not isinstance(parent, (cst.IndentedBlock, cst.Else)):
            return None
        node = parent


def build_time_condition(test: cst.BaseExpression, fn_node: cst.FunctionDef) -> bool:
    """Is ``test`` made only of parameters of ``fn_node`` that its body never assigns, literals,
    ``and``/``or``/``not`` and comparisons? Evaluated once per batch, it then gives what it gave
    when the pipeline was built."""
    params = param_names(fn_node)

    def ok(node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Name):
            if node.value in ("True", "False", "None"):
                return True
            if node.value not in params:
                return False
            finder = _BindingFinder(node.value)
            tree.visit(fn_node.body, finder)
            return finder.count == 0
        if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)):
            return True
        if isinstance(node, (cst.List, cst.Tuple)):
            return all(ok(e.value) for e in node.elements if not isinstance(e, cst.StarredElement))
        if isinstance(node, cst.BooleanOperation):
            return ok(node.left) and ok(node.right)
        if isinstance(node, cst.UnaryOperation):
            return isinstance(node.operator, (cst.Not, cst.Minus)) and ok(node.expression)
        if isinstance(node, cst.Comparison):
            return ok(node.left) and all(ok(c.comparator) for c in node.comparisons)
        return False

    return ok(test)


def named_params(fn_node: cst.FunctionDef) -> list[cst.Param]:
    """The parameters a call can pass by name or position (not ``*args``/``**kwargs``)."""
    params = fn_node.params
    return [*params.posonly_params, *params.params, *params.kwonly_params]


def param_names(fn_node: cst.FunctionDef) -> set[str]:
    return {p.name.value for p in named_params(fn_node)}


def source_expr(call: cst.Call) -> cst.BaseExpression | None:
    arg = cstutil.kwarg(call, "source")
    if arg is not None:
        return arg.value
    positional = [a for a in call.args if a.keyword is None]
    return positional[0].value if positional else None


def analyse(
    fn_node: cst.FunctionDef,
    module: cst.Module,
    call: cst.Call,
    where: tuple[int, cst.SimpleStatementLine, bool] | str | None,
    has_reader: bool,
    parameter: Callable[[str, bool], tuple[str, int | None] | str | None] | None = None,
    is_reader: Callable[[cst.Call], bool] | None = None,
) -> SourceSpec | str:
    """The spec of ``call`` in pipeline function ``fn_node``, or why it cannot be migrated.

    ``where``: what :func:`place` says; ``is_reader`` tells a reader call (a reader beside the
    source in the same ``if`` is named in the reason). ``parameter(name, none_allowed)``: when ``name`` is a
    parameter of the pipeline function (or of the factory whose body builds the graph), the kind of
    source every call passes there (:func:`passed_source_kind`), else why it is not known; None
    for a name that is no such parameter."""
    if where is None:
        return NOT_A_STATEMENT
    if isinstance(where, str):
        return where
    index, stmt, nested = where
    if nested and not has_reader:
        beside = is_reader is not None and _reader_in_other_branch(fn_node.body.body[index], stmt, is_reader)
        return BRANCH_BESIDE_READER if beside else NESTED_WITHOUT_READER
    draw = _draw(call, fn_node, index, has_reader)
    if draw is NO_SOURCE and not _fed_in(module):
        return NO_SOURCE_FED_ELSEWHERE
    if isinstance(draw, str):
        return draw
    targets = _targets(stmt, call)
    if isinstance(targets, str):
        return targets
    listed = listed_outputs(call)
    if listed and any(
        isinstance(a.value, (cst.List, cst.Tuple))
        for a in call.args
        if a.keyword is not None and a.keyword.value in CARRIED
    ):
        return "a list of per-output `layout=`/`dtype=`/`device=` with `num_outputs=` that is not a literal"
    kind, params = _source_kind(draw, fn_node, module, index, parameter)
    why = _mismatch(draw, kind, params, fn_node, module, index)
    if why is not None:
        return why
    return SourceSpec(
        call,
        index,
        kind,
        kind == CALLABLE and params == 1,
        draw.batch,
        draw.batch_info,
        draw.cycle,
        targets,
        draw.parallel,
        listed,
        beside_reader=has_reader,
        statement=stmt,
        nested=nested,
    )


def _fed_in(module: cst.Module) -> bool:
    """Does ``module`` call ``.feed_input(...)``, or ``.run(...)`` with keywords (``pipe.run(data=x)``
    feeds the external source named ``data``), on anything?"""
    for node in tree.walk(module):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value == "feed_input" or (
                node.func.attr.value == "run" and any(a.keyword is not None for a in node.args)
            ):
                return True
    return False


def _reader_in_other_branch(outer: cst.CSTNode, stmt: cst.CSTNode, is_reader: Callable[[cst.Call], bool]) -> bool:
    """Is there a reader in a branch of ``outer`` (the ``if`` of the function's body that holds
    ``stmt``) other than the branch of ``stmt``, and none in that one?"""
    branches, node = [], outer
    while isinstance(node, cst.If):
        branches.append(node.body)
        node = node.orelse
    if isinstance(node, cst.Else):
        branches.append(node.body)

    def readers(branch: cst.CSTNode) -> bool:
        return any(isinstance(n, cst.Call) and is_reader(n) for n in tree.walk(branch))

    own = [b for b in branches if any(n is stmt for n in tree.walk(b))]
    return len(own) == 1 and not readers(own[0]) and any(readers(b) for b in branches if b is not own[0])


@dataclass
class _Draw:
    """How the external source is drawn from, as the call's arguments say (:func:`_draw`)."""

    source: cst.BaseExpression
    batch_info: bool
    batch: bool | None  # None: decided when the generator starts
    parallel: bool
    cycle: bool


def _draw(call: cst.Call, fn_node: cst.FunctionDef, index: int, has_reader: bool) -> _Draw | str:
    """The source and the arguments that say how it is drawn from (each a literal, or a name bound
    once to one before the call), or why the migration cannot tell."""
    if cstutil.has_star(call) or any(a.keyword and a.keyword.value not in _KNOWN for a in call.args):
        return "an external source with arguments the migration does not know"
    source = source_expr(call)
    if source is None or (isinstance(source, cst.Name) and source.value == "None"):
        return NO_SOURCE
    flags = {}
    for name, default in (("batch_info", False), ("repeat_last", False)):
        arg = cstutil.kwarg(call, name)
        value = default if arg is None else cstutil.literal_value(arg.value)
        if not isinstance(value, bool):
            return f"`{name}=` is not a literal True/False"
        flags[name] = value
    if flags["repeat_last"]:
        return "`repeat_last=True` repeats data fed by `feed_input`; there is nothing to feed in dynamic mode"
    parallel = _flag(call, "parallel", fn_node, index)
    batch = _flag(call, "batch", fn_node, index)
    # `fn.external_source` turns `batch=None` into True, with `parallel=` or without (DALI 2.4's
    # `_external_source`; the docs' "parallel sets batch to False" is the `ops.ExternalSource` class).
    batch = True if batch is None else None if batch is cstutil.NOT_LITERAL else batch
    if not isinstance(batch, bool) and flags["batch_info"]:
        return "`batch_info=True` with a `batch=` that is not a literal True/False: write the loop by hand"
    cycle = _cycle(call)
    if isinstance(cycle, str):
        return cycle
    if has_reader and not cycle:
        return READER_AND_ENDING_SOURCE
    return _Draw(source, flags["batch_info"], batch, parallel is not False and parallel is not None, cycle)


def _source_kind(
    draw: _Draw,
    fn_node: cst.FunctionDef,
    module: cst.Module,
    index: int,
    parameter: Callable[[str, bool], tuple[str, int | None] | str | None] | None,
) -> tuple[str, int | None]:
    """``(kind, positional parameters of a callable)`` of the source (:func:`classify`; a parameter
    of the pipeline function as ``parameter`` says every call passes it), else ``RUN_TIME``."""
    source = draw.source
    kind, params = classify(source, fn_node, module, index)
    if kind is None and isinstance(source, cst.Name) and parameter is not None:
        found = parameter(source.value, draw.cycle)  # every call passes a source of one kind (or None)
        if found is not None and not isinstance(found, str):
            kind, params = found
    return (RUN_TIME, None) if kind is None else (kind, params)


def _mismatch(
    draw: _Draw, kind: str, params: int | None, fn_node: cst.FunctionDef, module: cst.Module, index: int
) -> str | None:
    """Why a source of ``kind`` cannot be drawn from as the arguments say (DALI refuses it, or the
    loop cannot do it), or None."""
    if draw.cycle and kind == CALLABLE:
        return "`cycle=` needs an iterable source; DALI rejects it for a callable"
    if draw.cycle and _generator_object(draw.source, fn_node, module, index):
        return (
            '`cycle=` with a generator object: DALI refuses it when it builds the pipeline ("Cannot cycle '
            'through a generator"); pass the generator function instead'
        )
    if kind == RUN_TIME:
        return None  # `dali_external_source` does what DALI does, or raises what DALI raised
    if draw.cycle and draw.batch is not True:
        return "`cycle=` with `batch=False` rewinds in the middle of a batch: write the loop by hand"
    if kind == CALLABLE and params not in (0, 1):
        return "a `source` callable must take 0 or 1 positional arguments"
    return None


def listed_outputs(call: cst.Call) -> bool:
    """Is ``num_outputs=`` of an external source given, but not as a literal (``len(names)``)? Its
    outputs are then a list whose length only the run tells (pipeline mode: a list of DataNodes)."""
    arg = cstutil.kwarg(call, "num_outputs")
    return arg is not None and not isinstance(cstutil.literal_value(arg.value), int)


def _flag(call: cst.Call, name: str, fn_node: cst.FunctionDef, index: int):
    """``name=``'s value: True/False; None when absent or None (DALI's default applies);
    ``NOT_LITERAL`` when only the run tells. A name the pipeline function binds once, before the
    call, to a literal is that literal (its value at the call is fixed)."""
    arg = cstutil.kwarg(call, name)
    if arg is None:
        return None
    value = cstutil.literal_value(arg.value)
    if value is cstutil.NOT_LITERAL and isinstance(arg.value, cst.Name):
        if arg.value.value not in param_names(fn_node):
            found = [b for stmt in list(fn_node.body.body)[:index] for b in _bindings(stmt, arg.value.value)]
            if len(found) == 1 and isinstance(found[0], cst.BaseExpression):
                value = cstutil.literal_value(found[0])
    if value is None or isinstance(value, bool):
        return value
    return cstutil.NOT_LITERAL


def _cycle(call: cst.Call) -> bool | str:
    arg = cstutil.kwarg(call, "cycle")
    if arg is None:
        return False
    value = cstutil.literal_value(arg.value)
    if value in (None, False, "no"):
        return False
    if value in (True, "quiet"):
        return True
    if value == "raise":
        return (
            '`cycle="raise"` raises `StopIteration` at every epoch end and goes on after '
            "`pipe.reset()`; a generator cannot go on after it stops: give the caller one generator "
            "per epoch"
        )
    return "`cycle=` is not a literal"


def _targets(stmt: cst.CSTNode, call: cst.Call) -> list[str] | str:
    target = stmt.body[0].targets[0].target
    arg = cstutil.kwarg(call, "num_outputs")
    if arg is None:
        if isinstance(target, cst.Name):
            return [target.value]
        return "unpacking the one output of an external source"
    count = cstutil.literal_value(arg.value)
    if listed_outputs(call) and isinstance(target, cst.Name):
        return [target.value]  # the list of outputs, as it is
    elements = target.elements if isinstance(target, (cst.Tuple, cst.List)) else None
    if (
        not isinstance(count, int)
        or elements is None
        or len(elements) != count
        or not all(isinstance(e.value, cst.Name) for e in elements)
    ):
        return (
            "`num_outputs=` outputs must be unpacked into as many names (`a, b = fn.external_source(...)`), "
            "or, when `num_outputs=` is not a literal, bound to one name"
        )
    layout = cstutil.kwarg(call, "layout")
    if count > 1 and layout is not None and not isinstance(layout.value, (cst.List, cst.Tuple)):
        if cstutil.string_value(layout.value) is None:  # `layout=self.layouts`: one for all, or one per output?
            return (
                "`layout=` of several outputs is not a literal: DALI gives a list's items one per output and a "
                "string to every output, which only the run tells apart; write it as a string or a list"
            )
    return [e.value.value for e in elements]


def classify(
    source: cst.BaseExpression, fn_node: cst.FunctionDef, module: cst.Module, index: int
) -> tuple[str | None, int | None]:
    """``(kind, positional parameters of a callable)``, or ``(None, None)`` when unknown."""
    if isinstance(source, cst.Lambda):
        return CALLABLE, positional(source.params)
    if isinstance(source, (cst.List, cst.Tuple, cst.GeneratorExp, cst.ListComp)):
        return ITERABLE, None
    if isinstance(source, cst.Call) and isinstance(source.func, cst.Name):
        if source.func.value in ("iter", "range", "zip", "enumerate"):
            return ITERABLE, None
        found = _definition(source.func.value, fn_node, module, index)
        if isinstance(found, cst.FunctionDef) and is_generator(found):
            return ITERABLE, None  # a generator object
        if isinstance(found, cst.ClassDef):
            return _class_kind(found)
        return None, None
    if not isinstance(source, cst.Name):
        return None, None
    found = _definition(source.value, fn_node, module, index)
    if isinstance(found, cst.FunctionDef):
        if is_generator(found):
            return GENERATOR, None
        return CALLABLE, positional(found.params)
    if isinstance(found, cst.BaseExpression):  # an assigned value: a lambda, an instance, a list...
        return classify(found, fn_node, module, index) if not isinstance(found, cst.Name) else (None, None)
    return None, None


def _generator_object(source: cst.BaseExpression, fn_node: cst.FunctionDef, module: cst.Module, index: int) -> bool:
    """Is ``source`` a generator object for sure (a generator expression, a call of a generator
    function of the module, a name bound once to one)?"""
    if isinstance(source, cst.GeneratorExp):
        return True
    if isinstance(source, cst.Call) and isinstance(source.func, cst.Name):
        found = _definition(source.func.value, fn_node, module, index)
        return isinstance(found, cst.FunctionDef) and is_generator(found)
    if isinstance(source, cst.Name):
        found = _definition(source.value, fn_node, module, index)
        return isinstance(found, (cst.GeneratorExp, cst.Call)) and _generator_object(found, fn_node, module, index)
    return False


def _class_kind(cls: cst.ClassDef) -> tuple[str | None, int | None]:
    """An instance of a class of this module, as DALI's ``external_source`` takes it: it tries
    ``iter(source)`` first (``__iter__``, or the sequence protocol of ``__getitem__``) and calls the
    source only when that fails. No base classes but ``object``: the methods of others are unknown,
    and so are those a class statement gets from a metaclass or a decorator."""
    if any(not (isinstance(b.value, cst.Name) and b.value.value == "object") for b in cls.bases):
        return None, None
    if cls.decorators or cls.keywords or not isinstance(cls.body, cst.IndentedBlock):
        return None, None
    methods = {s.name.value: s for s in cls.body.body if isinstance(s, cst.FunctionDef)}
    if any(not isinstance(s, (cst.FunctionDef, cst.SimpleStatementLine)) for s in cls.body.body):
        return None, None  # a method defined under an `if`, or another nested statement
    if any(_class_level_binding(s, ("__iter__", "__call__", "__getitem__")) for s in cls.body.body):
        return None, None  # `__iter__ = ...` at class level
    call = methods.get("__call__")
    if call is not None and is_generator(call):
        return GENERATOR, None
    if "__iter__" in methods:
        return ITERABLE, None
    if "__getitem__" in methods:
        return None, None  # iterable through `__getitem__` (0, 1, ... until IndexError)
    if call is not None:
        return CALLABLE, positional(call.params) - 1
    return None, None


def _class_level_binding(stmt: cst.CSTNode, names: tuple[str, ...]) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and any(_bindings(stmt, name) for name in names)


def _definition(name: str, fn_node: cst.FunctionDef, module: cst.Module, index: int):
    """The one binding of ``name``: in the pipeline function's body before ``index``, else at module
    level. A ``def``/``class`` node or an assigned expression; None when absent or bound twice."""
    if name in param_names(fn_node):
        return None  # a parameter: anything may arrive
    for body in (list(fn_node.body.body)[:index], list(module.body)):
        found = [b for stmt in body for b in _bindings(stmt, name)]
        if len(found) == 1:
            return found[0]
        if found:
            return None
    return None


def assigned_in(fn_node: cst.FunctionDef, name: str) -> bool:
    """Is ``name`` bound anywhere in the body of ``fn_node``?"""
    finder = _BindingFinder(name)
    tree.visit(fn_node.body, finder)
    return bool(finder.count)


def _bindings(stmt: cst.CSTNode, name: str) -> list:
    """What ``stmt`` binds ``name`` to: a ``def``/``class`` node, an assigned expression, or None for
    a binding whose value is unknown (unpacking, ``for``, ``with``, ``import``, ...)."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return [stmt] if stmt.name.value == name else []
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign):
        assign = stmt.body[0]
        if len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name):
            return [assign.value] if assign.targets[0].target.value == name else []
    finder = _BindingFinder(name)
    tree.visit(stmt, finder)
    return [None] * finder.count


class _BindingFinder(SkipsTrivia, cst.CSTVisitor):
    """Counts the places a statement binds one name (targets, imports, nested definitions)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.count = 0

    def _target(self, node: cst.CSTNode | None) -> None:
        if node is not None:
            self.count += sum(isinstance(n, cst.Name) and n.value == self.name for n in tree.walk(node))

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._target(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._target(node.name)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is None:
            first = node.name
            while isinstance(first, cst.Attribute):
                first = first.value
            self._target(first)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self._target(node.name)
        return False  # its body is another scope

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._target(node.name)
        return False


def positional(params: cst.Parameters) -> int:
    if params.star_arg is not None and isinstance(params.star_arg, cst.Param):
        return -1
    return len(params.posonly_params) + len(params.params)  # DALI counts them all, defaults included


def is_generator(node: cst.FunctionDef) -> bool:
    """A ``yield`` in the function's own body (not in a nested function or lambda)."""

    def visit(n: cst.CSTNode) -> bool:
        if isinstance(n, (cst.Yield)):
            return True
        if isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef)) and n is not node:
            return False
        return any(visit(c) for c in tree.children(n))

    return visit(node)
