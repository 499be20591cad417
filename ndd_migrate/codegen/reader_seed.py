"""The seed a shuffling reader gets from a seeded pipeline (NDD105).

A pipeline created with ``seed=S`` gives each operator that has no ``seed=`` of its own a seed of its
own: DALI's C++ ``Pipeline`` fills 1024 words with ``std::seed_seq{S}.generate()`` and hands them out
in the order the operators are added, which is ``Pipeline._ops``: a depth-first walk from the
outputs, inputs first (``nvidia/dali/pipeline.py``, ``_collect_ops``). A reader's shuffle comes only
from that seed. A dynamic-mode reader without ``seed=`` shuffles in one fixed order (DALI 2.4.0), the
same in every run and on every rank, so the migration passes the derived seed explicitly:

* when the reader is the first operator of the walk -- the first output comes from the reader
  through the first input of each operator on the way (``images = fn.resize(fn.decoders.image(jpegs))``,
  ``return images, labels``) -- ``seed=dali_op_seed(seed, 0)``, the very seed the pipeline gave it:
  the same sample order (checked against DALI 2.4.0 in tests/test_reader_seed.py);
* otherwise ``seed=seed``: seeded, rank-dependent when the pipeline seed is (``seed=12 + rank``),
  but not the pipeline's order (docs/target-shape.md).

``dali_op_seed`` is the project's support module's (:mod:`ndd_migrate.support`).
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate.dali.tables import op_info
from ndd_migrate.syntax import cstutil, names

#: Said at a reader given the pipeline's ``seed`` (not the first operator): the order changes.
OTHER_ORDER = (
    "the reader's sample order is not the pipeline's: the seed DALI derived for it cannot be read from "
    "this graph, so it shuffles with the pipeline's `seed`"
)
#: Said (not a TODO) at a shuffling reader of a pipeline created without a seed.
UNSEEDED_ORDER = (
    "the sample order is not the pipeline's: the pipeline is not seeded, so each pipeline DALI built "
    "shuffled in an order of its own; a dynamic-mode reader without `seed=` shuffles in one fixed "
    "order, the same in every run: give it `seed=` to choose the order"
)
#: Said (not a TODO) at a reader given ``random_shuffle=`` and a ``seed=`` that is not a literal.
OPEN_SEED_ORDER = (
    "where this `seed=` holds an int >= 0 the reader shuffles in the pipeline's order; where it holds None "
    "or a negative number, pipeline mode derived the reader's seed from the pipeline's (a new one in every "
    "run when the pipeline has no seed), while a dynamic-mode reader without a seed shuffles in one fixed "
    "order"
)
OTHER_ORDER_HINT = (
    "the sample order is not the pipeline's (it shuffles with the pipeline's `seed`, not the seed DALI "
    "derived for it): give the reader a `seed=` of its own in both versions to keep one order"
)

# What the graph walk reaches first from an expression (None: not known); the reader's outputs
# bound to one name are a Python list in pipeline mode, whose items are the reader's.
_READER, _OTHER, _READER_OUTPUTS = "reader", "other", "reader outputs"
_FALLS_THROUGH = "falls through"  # a block that ends without `return`


def reader_call(pipeline) -> cst.Call | None:
    """The reader call of a pipeline function (``targets = fn.readers.X(...)`` in its body)."""
    if pipeline.reader_index is None:
        return None
    stmt = pipeline.node.body.body[pipeline.reader_index]
    return stmt.body[0].value


def reader_comes_first(pipeline, dali_name) -> bool:
    """Is the reader the first operator of the pipeline's graph walk (so its seed is word 0)?

    Read from code of plain assignments and expressions, and ``if`` chains of them (a name bound in
    the branches holds what every branch agrees on), the final ``return`` a tuple display (or one
    value), and each value on the way from
    the first output to the reader a name, a ``fn.*`` operator called with that value as its first
    positional input, ``.gpu()``/``.cpu()`` of it (no operator in pipeline mode), arithmetic whose
    first operand that is not a number is that value, one of the reader's outputs picked by index
    (or by feature name from a TFRecord reader's dict),
    or ``a if test else b`` where both alternatives lead there. Anything else (an operand that is a
    list or an unknown name, which may be an operator of its own, helpers, loops, a ``return`` in a
    branch, conditionals) is not known: ``False``."""
    if (
        pipeline.reader_index is None
        or pipeline.returns is None
        or pipeline.returns.final is None
        or pipeline.branch_forms
    ):
        return False
    if pipeline.conditionals_enabled or pipeline.source is not None:
        return False

    def info_of(call: cst.Call):
        path = names.fn_path(dali_name(call.func) or "")
        return op_info(path) if path else None

    reader = reader_call(pipeline)
    return _walk_reaches_reader(pipeline.node.body.body, reader, pipeline.reader_outputs, info_of)


def legacy_reader_comes_first(pipeline, dali_name) -> bool:
    """:func:`reader_comes_first` for a ``Pipeline`` subclass: its ``define_graph``, whose operators
    are the objects ``__init__`` made (``self.decode(self.jpegs)``) or ``fn.*`` calls; what the reader
    gives may be kept in ``self`` attributes (``self.jpegs, self.labels = self.input(name="Reader")``)."""
    if (
        pipeline.graph is None
        or pipeline.reader_call is None
        or pipeline.reader_branches
        or pipeline.setup is not None
        or pipeline.branch_forms
    ):
        return False

    def info_of(call: cst.Call):
        op = pipeline.op_calls.get(call)
        if op is not None:
            return op.info
        path = names.fn_path(dali_name(call.func) or "")
        return op_info(path) if path else None

    return _walk_reaches_reader(pipeline.graph.body.body, pipeline.reader_call, pipeline.reader_outputs, info_of)


class _NotRead(Exception):
    """A statement the graph walk does not read: the reader's place is not known."""


def _walk_reaches_reader(body, reader: cst.Call, outputs: int | None, info_of) -> bool:
    """``body`` ending in ``return``: does the walk from its first output reach ``reader`` first?
    ``info_of(call)``: the operator a call is, or None."""
    try:
        return _walk(body, reader, outputs, info_of, {}) == _READER
    except _NotRead:
        return False


def _walk(body, reader: cst.Call, outputs: int | None, info_of, bound: dict):
    """Bind what each statement of ``body`` gives in ``bound``; what the first output returned
    reaches first, or ``_FALLS_THROUGH`` when the block ends without a ``return``."""
    for stmt in body:
        if isinstance(stmt, cst.If):
            _walk_if(stmt, reader, outputs, info_of, bound)
            continue
        if not isinstance(stmt, cst.SimpleStatementLine):
            raise _NotRead
        for small in stmt.body:
            if isinstance(small, cst.Return):
                return _returned_first(small.value, bound, info_of)
            if isinstance(small, cst.Assign) and small.value is reader and len(small.targets) == 1:
                _bind_reader(small.targets[0].target, outputs, bound)
            elif isinstance(small, cst.Assign):
                _bind(small, bound, info_of)
            elif not isinstance(small, (cst.Expr, cst.Pass)):
                raise _NotRead
    return _FALLS_THROUGH


def _walk_if(stmt: cst.If, reader: cst.Call, outputs: int | None, info_of, bound: dict) -> None:
    """An ``if`` chain on values fixed when the graph is built (without conditionals, a test on a
    graph node does not build): one branch runs, so a name holds what every branch, and the code
    before an ``if`` without ``else``, agree it holds; where they differ, nothing known. A branch
    that returns is not read."""
    states, rest = [], stmt
    while isinstance(rest, cst.If):
        state = dict(bound)
        if _walk(rest.body.body, reader, outputs, info_of, state) is not _FALLS_THROUGH:
            raise _NotRead
        states.append(state)
        rest = rest.orelse
    if isinstance(rest, cst.Else):
        state = dict(bound)
        if _walk(rest.body.body, reader, outputs, info_of, state) is not _FALLS_THROUGH:
            raise _NotRead
        states.append(state)
    else:
        states.append(dict(bound))
    for key in {key for state in states for key in state}:
        values = {repr(state.get(key)) for state in states}
        bound[key] = states[0].get(key) if len(values) == 1 else None


def _bind_reader(target: cst.BaseExpression, outputs: int | None, bound: dict) -> None:
    """The names the reader's statement binds hold its outputs; one name for several outputs holds
    their list."""
    for name in _names(target):
        bound[name] = _READER
    if _key(target) is not None and (outputs or 1) > 1:
        bound[_key(target)] = _READER_OUTPUTS


def _bind(assign: cst.Assign, bound: dict, info_of) -> None:
    """The names ``assign`` binds hold what the walk reaches first from its value; names unpacked
    from it, nothing known."""
    value = _first_input(assign.value, bound, info_of)
    for target in assign.targets:  # `a, b = fn.op(x)`: which output is which is not read
        for name in _names(target.target):
            bound[name] = value if _key(target.target) is not None else None


def _returned_first(value: cst.BaseExpression | None, bound: dict, info_of):
    """What the walk reaches first from the first output returned (the first element of a tuple
    or list display), or None."""
    if isinstance(value, (cst.Tuple, cst.List)):
        if not value.elements or isinstance(value.elements[0], cst.StarredElement):
            return None
        value = value.elements[0].value
    return _first_input(value, bound, info_of)


def _key(target: cst.BaseExpression) -> str | None:
    """What a name or a ``self`` attribute is bound under (``"self.x"``); None for anything else."""
    if isinstance(target, cst.Name):
        return target.value
    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
        return f"self.{target.attr.value}"
    return None


def _names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _names(e.value)]
    key = _key(target)
    return [key] if key is not None else []  # a subscript, or another attribute, binds nothing known


def _first_input(expr: cst.BaseExpression, bound: dict, info_of):
    """What the graph walk reaches first from ``expr``: the reader, another operator, or None."""
    if _key(expr) is not None:
        return bound.get(_key(expr))
    if isinstance(expr, cst.IfExp):  # one alternative, chosen when the graph is built
        chosen = {_first_input(expr.body, bound, info_of), _first_input(expr.orelse, bound, info_of)}
        return chosen.pop() if len(chosen) == 1 else None
    if (
        isinstance(expr, cst.Subscript)
        and _key(expr.value) is not None
        and bound.get(_key(expr.value)) == _READER_OUTPUTS
    ):
        return _READER  # `out[0]` of the reader's outputs: a Python list in pipeline mode
    if isinstance(expr, cst.Subscript) and _key(expr.value) is not None and _string_key(expr):
        if bound.get(_key(expr.value)) in (_READER, _READER_OUTPUTS):
            return _READER  # `inputs["image/encoded"]`: a TFRecord reader's dict of features, no operator
    operands = _arithmetic_operands(expr)
    if operands is not None:  # an arithmetic operator: its inputs are its operands but numbers
        inputs = [operand for operand in operands if not _number(operand)]
        return _first_input(inputs[0], bound, info_of) if inputs else None
    return _call_first_input(expr, bound, info_of) if isinstance(expr, cst.Call) else None


def _string_key(expr: cst.Subscript) -> bool:
    """``x["name"]``: one string literal as the key. A DataNode is indexed by numbers and slices (an
    operator); a string picks a feature from the dict a TFRecord reader gives."""
    if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index):
        return False
    return isinstance(cstutil.literal_value(expr.slice[0].slice.value), str)


def _call_first_input(call: cst.Call, bound: dict, info_of):
    """:func:`_first_input` of a call: ``x.gpu()`` is no operator; an operator's first input."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in ("gpu", "cpu") and not call.args:
        return _first_input(func.value, bound, info_of)
    info = info_of(call)
    if info is None or info.reader:
        return None
    positional = [a for a in call.args if a.keyword is None]
    if not positional:
        return _OTHER  # an operator without inputs is added before anything it feeds
    if positional[0].star:
        return None
    return _first_input(positional[0].value, bound, info_of)


def _arithmetic_operands(expr: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    """The operands of an arithmetic or comparison expression, in order (DALI's
    ``_arithm_op(name, *inputs)`` keeps them so); None for anything else."""
    if isinstance(expr, cst.BinaryOperation):
        return [expr.left, expr.right]
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        return [expr.expression]
    comparing = (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)
    if isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1:
        if isinstance(expr.comparisons[0].operator, comparing):
            return [expr.left, expr.comparisons[0].comparator]
    return None


def _number(expr: cst.BaseExpression) -> bool:
    """An ``int`` or ``float`` literal (signed): DALI writes it into the arithmetic operator's
    expression (``integer_constants``/``real_constants``) rather than adding an operator for it,
    which a list or an array would get (``_group_inputs`` in ``ops/_operators/math.py``)."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        expr = expr.expression
    return isinstance(expr, (cst.Integer, cst.Float))


def shuffles_unseeded(call: cst.Call) -> bool:
    """A reader call with ``random_shuffle=`` (not the literal ``False``) and no ``seed=``."""
    shuffle = cstutil.kwarg(call, "random_shuffle")
    if shuffle is None or cstutil.kwarg(call, "seed") is not None:
        return False
    return cstutil.literal_value(shuffle.value) is not False


def shuffles_with_open_seed(call: cst.Call) -> bool:
    """A reader call with ``random_shuffle=`` (not the literal ``False``) and a ``seed=`` that is not
    a literal: the order it shuffles in is the pipeline's only where the seed holds an int >= 0."""
    shuffle, seed = cstutil.kwarg(call, "random_shuffle"), cstutil.kwarg(call, "seed")
    if shuffle is None or seed is None or cstutil.literal_value(shuffle.value) is False:
        return False
    return cstutil.literal_value(seed.value) is cstutil.NOT_LITERAL


def seed_value(first: bool, op_seed: cst.Name) -> cst.BaseExpression:
    """``dali_op_seed(seed, 0)`` (``op_seed`` names the support module's function) for a reader
    that comes first, else the pipeline's ``seed``."""
    if first:
        return seeded(cst.Name("seed"), op_seed)
    return cst.Name("seed")


def seeded(seed: cst.BaseExpression, op_seed: cst.Name) -> cst.Call:
    """``dali_op_seed(<seed>, 0)``, ``op_seed`` naming the support module's function."""
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return cst.Call(op_seed, [cst.Arg(seed, comma=comma), cst.Arg(cst.Integer("0"))])
