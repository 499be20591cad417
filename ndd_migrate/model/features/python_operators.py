"""What a DALI Python operator's arguments allow (``fn.python_function``, ``ops.PythonFunction``):
whether it can be written out as plain Python over the samples, where a sink (``num_outputs=0``) may
stand, and whether the function may change its argument in place.

The facts about DALI's behaviour behind each answer are in :mod:`ndd_migrate.codegen.python_function`,
which writes the code.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
from libcst.metadata import ScopeProvider

from ndd_migrate.syntax import cstutil, tree

KNOWN = {
    "function",
    "num_outputs",
    "batch_processing",
    "output_layouts",
    "device",
    "name",
    "preserve",
    "bytes_per_sample_hint",
}


@dataclass
class Spec:
    """What the operator's arguments say (the constructor's and the call's, for an ``ops`` object)."""

    function: cst.BaseExpression
    inputs: list[cst.BaseExpression]
    outputs: int  # 0: a sink (:func:`sink`)
    batch: bool | cst.BaseExpression  # an expression: a parameter of the pipeline, both forms written
    layouts: cst.BaseExpression | None


def unsupported(args: list[cst.Arg], what: str, fixed: frozenset[str] = frozenset()) -> str | None:
    """Why an operator with ``args`` cannot be written out as plain Python, or None. ``what`` names
    it in the message (``"`fn.python_function`"``, ``"`ops.PythonFunction`"``); ``fixed`` holds the
    names that hold the same value wherever the generated code reads them (the pipeline's parameters
    that are not bound again), which ``batch_processing=`` may be. A sink (``num_outputs=0``) is not
    refused here: where it stands is :func:`sink_obstacle`'s."""
    if any(a.star for a in args) or any(a.keyword and a.keyword.value not in KNOWN for a in args):
        return f"{what} with `*args`/`**kwargs` or unknown arguments"
    function = _kwarg(args, "function")
    if function is None:
        return f"{what} without `function=`"
    device = _kwarg(args, "device")
    if device is not None and cstutil.string_value(device.value) != "cpu":
        return (
            f'{what}(device="gpu") hands the function CuPy arrays: convert with '
            "`cupy.asarray(tensor)` per sample (or `batch.torch()`) by hand"
        )
    outputs = _literal(args, "num_outputs", 1)
    if not isinstance(outputs, int) or isinstance(outputs, bool) or outputs < 0:
        return "`num_outputs=` is not a literal number: call the function by hand"
    batch = _kwarg(args, "batch_processing")
    if not (
        batch is None
        or isinstance(cstutil.literal_value(batch.value), bool)
        or (isinstance(batch.value, cst.Name) and batch.value.value in fixed)
    ):
        return (
            "`batch_processing=` is neither a literal True/False nor a parameter of the pipeline that keeps its "
            "value: write the calls by hand"
        )
    return None


def read(args: list[cst.Arg]) -> Spec:
    """The operator's arguments, once :func:`unsupported` found nothing."""
    layouts = _kwarg(args, "output_layouts")
    batch = _kwarg(args, "batch_processing")
    value = False if batch is None else cstutil.literal_value(batch.value)
    return Spec(
        function=_kwarg(args, "function").value,
        inputs=[a.value for a in args if a.keyword is None],
        outputs=_literal(args, "num_outputs", 1),
        batch=value if isinstance(value, bool) else batch.value,
        layouts=layouts.value if layouts is not None else None,
    )


def is_sink(args: list[cst.Arg]) -> bool:
    """``num_outputs=0``: a function run for its side effects."""
    return _literal(args, "num_outputs", 1) == 0


def sink_obstacle(body, call: cst.Call, args: list[cst.Arg], python_calls, what: str) -> str | None:
    """Why the sink ``call`` (``num_outputs=0``; ``args``: its arguments, the constructor's too)
    cannot become a statement where it stands, or None. ``body`` is the graph's own statements (a
    ``@pipeline_def`` body, ``define_graph``'s), ``python_calls`` the graph's Python operator calls
    that give outputs; ``what`` names the sink.

    DALI calls a sink after the Python operators computing the outputs, whatever the order of the
    statements; the generated code calls each where it stands: a Python operator after the sink
    would run after it (one before it runs before it in both)."""
    if not any(a.keyword is None for a in args) and read(args).batch is False:
        return (
            f"{what} has `num_outputs=0` and no input: DALI never calls it (a sink without inputs has no "
            "samples): remove it, or give it `batch_processing=True` to have it called once per batch"
        )
    index = next((i for i, stmt in enumerate(body) if is_sink_statement(stmt, call)), None)
    if index is None:
        finder = _ExprStatements()
        for stmt in body:
            tree.visit(stmt, finder)
        if call in finder.values:
            return (
                f"{what} has `num_outputs=0` and is called inside a block (`if`, `for`, `with`): write its calls "
                "over the samples by hand (`for s in x.tensors: f(np.asarray(s))`)"
            )
        return (
            f"{what} has `num_outputs=0`: it gives no output (DALI gives an empty list), so its result cannot be "
            "used: call it as a statement of its own, or give it `num_outputs=` and return what it gives"
        )
    later = [c for stmt in body[index + 1 :] for c in python_calls if _contains(stmt, c)]
    if later:
        code = " ".join(cst.Module([]).code_for_node(later[0]).split())
        code = code if len(code) <= 50 else code[:47] + "..."
        return (
            f"{what} has `num_outputs=0`: DALI calls it after the Python operators that compute the pipeline's "
            f"outputs, and `{code}` comes after it here (DALI may call that one first, the migrated code would "
            "call it later): move the sink's statement after them"
        )
    return None


def is_sink_statement(stmt: cst.CSTNode, call: cst.Call) -> bool:
    """``stmt`` is a line holding only the expression statement ``call``."""
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and stmt.body[0].value is call
    )


class _ExprStatements(cst.CSTVisitor):
    def __init__(self) -> None:
        self.values: list[cst.BaseExpression] = []

    def visit_Expr(self, node: cst.Expr) -> None:
        self.values.append(node.value)


def _contains(within: cst.CSTNode, node: cst.CSTNode) -> bool:
    finder = _Find(node)
    tree.visit(within, finder)
    return finder.found


class _Find(cst.CSTVisitor):
    def __init__(self, node: cst.CSTNode) -> None:
        self.node, self.found = node, False

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.found = self.found or node is self.node
        return not self.found


def _kwarg(args: list[cst.Arg], name: str) -> cst.Arg | None:
    return next((a for a in args if a.keyword is not None and a.keyword.value == name), None)


def _literal(args: list[cst.Arg], name: str, default):
    arg = _kwarg(args, name)
    return default if arg is None else cstutil.literal_value(arg.value)


# Attributes of an array that are plain values, methods whose result is a new array or a plain value,
# and those whose result is a view of the same memory (followed like the array itself).
_VALUE_ATTRS = {"shape", "dtype", "ndim", "size", "itemsize", "nbytes", "strides"}


_VIEW_ATTRS = {"T", "real", "imag"}


_FRESH_METHODS = {
    "copy",
    "astype",
    "sum",
    "mean",
    "min",
    "max",
    "std",
    "var",
    "any",
    "all",
    "argmax",
    "argmin",
    "tolist",
    "tobytes",
    "flatten",
    "prod",
    "cumsum",
    "round",
    "nonzero",
    "dot",
    "item",
    "argsort",
}


_VIEW_METHODS = {"reshape", "transpose", "ravel", "squeeze", "swapaxes", "view"}


# numpy functions that write into an argument; `out=` does too, anywhere.
_NUMPY_WRITERS = {"copyto", "put", "place", "putmask", "fill_diagonal", "shuffle", "put_along_axis"}


# Builtins giving a plain value or a new array, and those giving a container of (views of) their
# argument, or the argument itself (`max(batch)`): followed.
_VALUE_BUILTINS = {
    "len",
    "print",
    "str",
    "repr",
    "int",
    "float",
    "bool",
    "isinstance",
    "type",
    "hash",
    "id",
    "abs",
    "round",
    "any",
    "all",
}


_CONTAINER_BUILTINS = {"list", "tuple", "sorted", "reversed", "zip", "enumerate", "min", "max", "iter", "next"}


def may_modify(function: cst.BaseExpression, resolver: cst.MetadataDependent, numpy_names: set[str]) -> bool:
    """False only when ``function`` (an original node) is a lambda, or the name of a ``def`` the module
    shows (bound once, undecorated), whose parameters — and the views taken of them — are only read:
    operands, indices, plain attributes, new arrays (``x.copy()``, ``numpy`` functions without
    ``out=``), returned. Anything else (an imported function, a callable object, a call
    ``f(x)`` of another function, ``x += 1``, ``x[0] = 0``, ``x.sort()``) may change it."""
    node = _definition(function, resolver)
    if node is None:
        return True
    tracked = {p.name.value for p in cstutil.all_params(node.params)}
    body = node.body
    parents = _Parents()
    tree.visit(body, parents)
    while True:  # names bound from a tracked value are views of it: followed too
        found = _Uses(tracked)
        tree.visit(body, found)
        aliases: set[str] = set()
        for name in found.loads:
            if not _reads_only(name, parents.of, numpy_names, aliases):
                return True
        if aliases <= tracked:
            return False
        tracked |= aliases


def _definition(function: cst.BaseExpression, resolver) -> cst.Lambda | cst.FunctionDef | None:
    if isinstance(function, cst.Lambda):
        return function
    if not isinstance(function, cst.Name):
        return None
    scope = resolver.get_metadata(ScopeProvider, function, None)
    if scope is None:
        return None
    assignments = list(scope[function.value])
    if len(assignments) != 1:
        return None
    node = getattr(assignments[0], "node", None)
    if isinstance(node, cst.FunctionDef) and not node.decorators and node.asynchronous is None:
        return node
    return None


class _Parents(cst.CSTVisitor):
    def __init__(self) -> None:
        self.of: dict[int, cst.CSTNode] = {}
        self._stack: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self._stack:
            self.of[id(node)] = self._stack[-1]
        self._stack.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self._stack.pop()


class _Uses(cst.CSTVisitor):
    """Loads of the tracked names (a name assigned or a loop's target is a store; ``x += 1`` loads it)."""

    def __init__(self, tracked: set[str]) -> None:
        self.tracked = tracked
        self.loads: list[cst.Name] = []
        self.stores: set[str] = set()
        self._targets: set[int] = set()

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, cst.Name):
            self._targets.add(id(node.target))
            self.stores.add(node.target.value)

    def _loop_target(self, node) -> None:
        for name in _target_names(node.target) or ():
            self.stores.add(name)
        stack = [node.target]
        while stack:
            target = stack.pop()
            if isinstance(target, cst.Name):
                self._targets.add(id(target))
            elif isinstance(target, (cst.Tuple, cst.List)):
                stack.extend(el.value for el in target.elements)

    visit_For = visit_CompFor = _loop_target

    def visit_Param(self, node: cst.Param) -> bool:
        return False  # a nested function's own parameter: not a use

    def visit_Arg(self, node: cst.Arg) -> bool:
        tree.visit(node.value, self)
        return False  # the keyword is not a name

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        tree.visit(node.value, self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.tracked and id(node) not in self._targets:
            self.loads.append(node)


def _reads_only(name: cst.Name, parent_of, numpy_names: set[str], aliases: set[str]) -> bool:
    """``name`` (a tracked array) is only read where it stands; names it is bound to go to ``aliases``.
    Walked upwards through the expressions that give the array again (a view of it), one holder at a
    time (:func:`_read_by`)."""
    expr: cst.CSTNode = name
    while True:
        parent = parent_of.get(id(expr))
        if parent is None:
            return True  # the lambda's body: returned
        found = _read_by(expr, parent, parent_of, numpy_names, aliases)
        if isinstance(found, bool):
            return found
        expr = found


def _read_by(expr: cst.CSTNode, parent: cst.CSTNode, parent_of, numpy_names: set[str], aliases: set[str]):
    """What ``parent`` does with ``expr`` (the array, or a view of it): True when it only reads it,
    False when it may change it (or is not understood), or the expression that holds the array (or a
    view of it) next, to be followed on."""
    if isinstance(parent, cst.Attribute) and parent.value is expr:
        return _read_by_attribute(parent, parent_of)
    if isinstance(parent, cst.Arg):
        return _read_by_call(parent, parent_of, numpy_names)
    if isinstance(parent, (cst.Assign, cst.For, cst.CompFor)):
        return _read_by_binding(expr, parent, aliases)
    return _read_by_expression(expr, parent, parent_of)


def _read_by_attribute(parent: cst.Attribute, parent_of):
    """``x.attr`` (a plain value, or a view) or ``x.method(...)`` (a new array, or a view): see :func:`_read_by`."""
    attr = parent.attr.value
    call = parent_of.get(id(parent))
    if attr in _VALUE_ATTRS:
        return True
    if attr in _VIEW_ATTRS:
        return parent
    if isinstance(call, cst.Call) and call.func is parent and attr in _FRESH_METHODS | _VIEW_METHODS:
        if attr in _FRESH_METHODS:
            return True
        return call
    return False


def _read_by_call(parent: cst.Arg, parent_of, numpy_names: set[str]):
    """``f(x)``: a numpy function without ``out=`` that writes no argument, or a builtin: see
    :func:`_read_by`."""
    call = parent_of.get(id(parent))
    if not isinstance(call, cst.Call) or parent.star:
        return False
    callee = _dotted(call.func)
    if callee is None or cstutil.kwarg(call, "out") is not None:
        return False
    root = callee.split(".")[0]
    if root in numpy_names and callee.rsplit(".", 1)[-1] not in _NUMPY_WRITERS:
        return call  # may be a view (`np.flip`): followed
    if callee in _VALUE_BUILTINS:
        return True
    if callee in _CONTAINER_BUILTINS:
        return call
    return False


def _read_by_binding(expr: cst.CSTNode, parent: cst.Assign | cst.For | cst.CompFor, aliases: set[str]) -> bool:
    """``y = x``, ``for y in x``: read, when the names it binds (``aliases``) are followed in turn."""
    if isinstance(parent, cst.Assign) and parent.value is expr:
        targets = [t.target for t in parent.targets]
        if not all(isinstance(t, cst.Name) for t in targets):
            return False
        aliases.update(t.value for t in targets)
        return True
    if isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is expr:
        names = _target_names(parent.target)
        if names is None:
            return False
        aliases.update(names)
        return True
    return False


def _read_by_expression(expr: cst.CSTNode, parent: cst.CSTNode, parent_of):
    """Indexing, operators, displays, comprehensions, conditional and boolean expressions, and the
    statements that only hand the value out: see :func:`_read_by`."""
    if isinstance(parent, cst.Subscript) and parent.value is expr:
        return parent  # a view
    if isinstance(parent, (cst.Index, cst.Slice, cst.SubscriptElement)):
        return True  # an index
    if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.ComparisonTarget)):
        return True  # a new value (`x + 1`, `-x`, `x > 0`)
    if isinstance(parent, (cst.Element, cst.StarredElement)):
        display = parent_of.get(id(parent))  # a tuple or list of outputs: followed
        return display if isinstance(display, (cst.Tuple, cst.List)) else False
    if isinstance(parent, (cst.ListComp, cst.GeneratorExp)) and parent.elt is expr:
        return parent
    if isinstance(parent, cst.IfExp):
        return True if parent.test is expr else parent
    if isinstance(parent, cst.BooleanOperation):
        return parent  # `x or y` is one of them
    if isinstance(parent, (cst.Return, cst.Expr)):
        return True
    return isinstance(parent, cst.Lambda) and parent.body is expr


def _target_names(target: cst.BaseExpression) -> set[str] | None:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        out: set[str] = set()
        for el in target.elements:
            inner = _target_names(el.value)
            if inner is None:
                return None
            out |= inner
        return out
    return None


def _dotted(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        inner = _dotted(expr.value)
        return f"{inner}.{expr.attr.value}" if inner else None
    return None
