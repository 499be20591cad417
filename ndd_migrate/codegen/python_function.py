"""A DALI Python operator written out as plain Python over the samples: ``fn.python_function(...)``
in a ``@pipeline_def`` function (NDD422) and ``ops.PythonFunction`` objects of a legacy ``Pipeline``
subclass (NDD402) give the same code, built here.

What DALI does (``ops/_operators/python_function.py``, checked by running it on the CPU):

* ``batch_processing=False`` (the default): the function is called once per sample with one numpy
  array per input (``function_wrapper_per_sample``); without inputs it is still called once per
  sample, ``batch_size`` times per batch. ``batch_processing=True``: once per batch, with one list of
  arrays per input (``function_wrapper_batch``), and without inputs with no arguments, returning the
  batch's list of samples.
* ``num_outputs=N`` (N > 1): the function returns a tuple of N outputs. ``num_outputs=0`` makes a
  function run for its side effects only: left to a human (the callers report it).
* The arrays DALI hands the function are *views* of its input buffers, writable: a function that
  changes its argument in place changes what the operators scheduled after it read, in an order
  DALI does not fix. ``np.asarray(tensor)`` of a dynamic-mode sample is such a view too, and the
  batch is then read by every later use, so a function that may change its argument
  (:func:`may_modify`) gets ``np.array(tensor)``, a copy: no other use sees the change.
* DALI copies what the function returns into its own buffer, a strided view (``x[::-1]``, ``x.T``)
  included; ``ndd.as_batch`` rejects strided data, so each result goes through
  ``np.asarray(result, order="C")`` (the same array when it is contiguous already).

The function is evaluated where the operator was created: the code here calls ``function`` as it is
given, so the callers give a name (or a parenthesized lambda) and bind anything else once.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
from libcst.metadata import ScopeProvider

from ndd_migrate import cstutil
from ndd_migrate.codegen import shape

KNOWN = {"function", "num_outputs", "batch_processing", "output_layouts", "device", "name", "preserve",
         "bytes_per_sample_hint"}


@dataclass
class Spec:
    """What the operator's arguments say (the constructor's and the call's, for an ``ops`` object)."""

    function: cst.BaseExpression
    inputs: list[cst.BaseExpression]
    outputs: int
    batch: bool
    layouts: cst.BaseExpression | None


def unsupported(args: list[cst.Arg], what: str) -> str | None:
    """Why an operator with ``args`` cannot be written out as plain Python, or None. ``what`` names
    it in the message (``"`fn.python_function`"``, ``"`ops.PythonFunction`"``)."""
    if any(a.star for a in args) or any(a.keyword and a.keyword.value not in KNOWN for a in args):
        return f"{what} with `*args`/`**kwargs` or unknown arguments"
    function = _kwarg(args, "function")
    if function is None:
        return f"{what} without `function=`"
    device = _kwarg(args, "device")
    if device is not None and cstutil.string_value(device.value) != "cpu":
        return (f'{what}(device="gpu") hands the function CuPy arrays: convert with '
                "`cupy.asarray(tensor)` per sample (or `batch.torch()`) by hand")
    outputs = _literal(args, "num_outputs", 1)
    if not isinstance(outputs, int) or isinstance(outputs, bool) or outputs < 1:
        return "`num_outputs=` is 0 (a function run for its side effects) or not a literal: call it by hand"
    if not isinstance(_literal(args, "batch_processing", False), bool):
        return "`batch_processing=` is not a literal True/False"
    return None


def read(args: list[cst.Arg]) -> Spec:
    """The operator's arguments, once :func:`unsupported` found nothing."""
    layouts = _kwarg(args, "output_layouts")
    return Spec(
        function=_kwarg(args, "function").value,
        inputs=[a.value for a in args if a.keyword is None],
        outputs=_literal(args, "num_outputs", 1),
        batch=bool(_literal(args, "batch_processing", False)),
        layouts=layouts.value if layouts is not None else None,
    )


def is_reference(function: cst.BaseExpression) -> bool:
    """A name or ``a.b`` of names: reading it again at each call gives the same function."""
    while isinstance(function, cst.Attribute):
        function = function.value
    return isinstance(function, cst.Name)


def callable_code(function: cst.BaseExpression) -> str:
    """``function`` as the callee of a call: a lambda (or another operator expression) in parentheses."""
    code = cst.Module([]).code_for_node(function.with_changes(lpar=[], rpar=[]) if hasattr(function, "lpar") else function)
    if isinstance(function, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        return code
    return f"({code})"


def plain(spec: Spec, function: str, *, asarray: str, contiguous: str, as_batch: str,
          batch_size: str = "batch_size") -> cst.BaseExpression:
    """The plain-Python expression giving what the operator gave: a batch, or a list of
    ``spec.outputs`` batches. ``function`` is the callee's code; ``asarray`` (``np.asarray``, or
    ``np.array``: a copy, for a function that may change its argument) turns each input sample into
    an array; ``contiguous`` (``np.asarray``) makes each output C-contiguous: DALI copies a strided
    result (``x[:, ::-1]``) into its buffer, ``ndd.as_batch`` rejects it."""
    code = cst.Module([]).code_for_node
    inputs = [code(x) for x in spec.inputs]
    used = _names(function) | {n for x in spec.inputs for n in _names(code(x))}
    layout = f", layout={code(spec.layouts)}" if spec.layouts is not None else ""
    per_output_layouts = isinstance(spec.layouts, (cst.List, cst.Tuple)) and spec.outputs > 1

    def dense(value: str) -> str:
        return f'{contiguous}({value}, order="C")'

    if spec.batch:
        s = shape.fresh("s", used)
        args = ", ".join(f"[{asarray}({s}) for {s} in {_tensors(x)}]" for x in inputs)
        result = f"{function}({args})"
        if spec.outputs == 1:
            return cst.parse_expression(f"{as_batch}([{dense('o')} for o in {result}]{layout})")
    else:
        if not inputs:
            loop_vars, args, source = [shape.fresh("_", used)], "", f"range({batch_size})"
        elif len(inputs) == 1:
            loop_vars = [shape.fresh("s", used)]
            args, source = f"{asarray}({loop_vars[0]})", _tensors(inputs[0])
        else:
            loop_vars = [shape.fresh(f"s{i}", used) for i in range(len(inputs))]
            args = ", ".join(f"{asarray}({v})" for v in loop_vars)
            source = "zip(" + ", ".join(_tensors(x) for x in inputs) + ")"
        call = f"{function}({args})"
        if spec.outputs == 1:
            return cst.parse_expression(f"{as_batch}([{dense(call)} for {', '.join(loop_vars)} in {source}]{layout})")
        result = f"zip(*[{call} for {', '.join(loop_vars)} in {source}])"
    each = f"[{dense('o')} for o in out]"
    if per_output_layouts:
        return cst.parse_expression(
            f"[{as_batch}({each}, layout=layout) for out, layout in zip({result}, {code(spec.layouts)})]")
    return cst.parse_expression(f"[{as_batch}({each}{layout}) for out in {result}]")


def _tensors(expr: str) -> str:
    """``<expr>.tensors``, in parentheses unless ``expr`` is a primary (a name, call, attribute, subscript)."""
    try:
        node = cst.parse_expression(expr)
    except cst.ParserSyntaxError:
        node = None
    primary = isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or (
        node is not None and getattr(node, "lpar", None))
    return f"{expr}.tensors" if primary else f"({expr}).tensors"


def _names(code: str) -> set[str]:
    try:
        node = cst.parse_expression(code)
    except cst.ParserSyntaxError:
        return set()
    found = _Names()
    node.visit(found)
    return found.names


class _Names(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def _kwarg(args: list[cst.Arg], name: str) -> cst.Arg | None:
    return next((a for a in args if a.keyword is not None and a.keyword.value == name), None)


def _literal(args: list[cst.Arg], name: str, default):
    arg = _kwarg(args, name)
    return default if arg is None else cstutil.literal_value(arg.value)


# -- may the function change its argument? ----------------------------------------------------------

# Attributes of an array that are plain values, methods whose result is a new array or a plain value,
# and those whose result is a view of the same memory (followed like the array itself).
_VALUE_ATTRS = {"shape", "dtype", "ndim", "size", "itemsize", "nbytes", "strides"}
_VIEW_ATTRS = {"T", "real", "imag"}
_FRESH_METHODS = {"copy", "astype", "sum", "mean", "min", "max", "std", "var", "any", "all", "argmax", "argmin",
                  "tolist", "tobytes", "flatten", "prod", "cumsum", "round", "nonzero", "dot", "item", "argsort"}
_VIEW_METHODS = {"reshape", "transpose", "ravel", "squeeze", "swapaxes", "view"}
# numpy functions that write into an argument; `out=` does too, anywhere.
_NUMPY_WRITERS = {"copyto", "put", "place", "putmask", "fill_diagonal", "shuffle", "put_along_axis"}
# Builtins giving a plain value or a new array, and those giving a container of (views of) their
# argument, or the argument itself (`max(batch)`): followed.
_VALUE_BUILTINS = {"len", "print", "str", "repr", "int", "float", "bool", "isinstance", "type", "hash", "id", "abs",
                   "round", "any", "all"}
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
    tracked = {p.name.value for p in shape.all_params(node.params)}
    body = node.body
    parents = _Parents()
    body.visit(parents)
    while True:  # names bound from a tracked value are views of it: followed too
        found = _Uses(tracked)
        body.visit(found)
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
        node.value.visit(self)
        return False  # the keyword is not a name

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.tracked and id(node) not in self._targets:
            self.loads.append(node)


def _reads_only(name: cst.Name, parent_of, numpy_names: set[str], aliases: set[str]) -> bool:
    """``name`` (a tracked array) is only read where it stands; names it is bound to go to ``aliases``."""
    expr: cst.CSTNode = name
    while True:
        parent = parent_of.get(id(expr))
        if parent is None:
            return True  # the lambda's body: returned
        if isinstance(parent, cst.Subscript) and parent.value is expr:
            expr = parent  # a view
        elif isinstance(parent, (cst.Index, cst.Slice, cst.SubscriptElement)):
            return True  # an index
        elif isinstance(parent, cst.Attribute) and parent.value is expr:
            attr = parent.attr.value
            call = parent_of.get(id(parent))
            if attr in _VALUE_ATTRS:
                return True
            if attr in _VIEW_ATTRS:
                expr = parent
            elif isinstance(call, cst.Call) and call.func is parent and attr in _FRESH_METHODS | _VIEW_METHODS:
                if attr in _FRESH_METHODS:
                    return True
                expr = call
            else:
                return False
        elif isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.ComparisonTarget)):
            return True  # a new value (`x + 1`, `-x`, `x > 0`)
        elif isinstance(parent, cst.Arg):
            call = parent_of.get(id(parent))
            if not isinstance(call, cst.Call) or parent.star:
                return False
            callee = _dotted(call.func)
            if callee is None or cstutil.kwarg(call, "out") is not None:
                return False
            root = callee.split(".")[0]
            if root in numpy_names and callee.rsplit(".", 1)[-1] not in _NUMPY_WRITERS:
                expr = call  # may be a view (`np.flip`): followed
            elif callee in _VALUE_BUILTINS:
                return True
            elif callee in _CONTAINER_BUILTINS:
                expr = call
            else:
                return False
        elif isinstance(parent, (cst.Element, cst.StarredElement)):
            expr = parent_of.get(id(parent))  # a tuple or list of outputs: followed
            if not isinstance(expr, (cst.Tuple, cst.List)):
                return False
        elif isinstance(parent, (cst.ListComp, cst.GeneratorExp)) and parent.elt is expr:
            expr = parent
        elif isinstance(parent, cst.IfExp):
            if parent.test is expr:
                return True
            expr = parent
        elif isinstance(parent, cst.BooleanOperation):
            expr = parent  # `x or y` is one of them
        elif isinstance(parent, (cst.Return, cst.Expr)):
            return True
        elif isinstance(parent, cst.Assign) and parent.value is expr:
            targets = [t.target for t in parent.targets]
            if not all(isinstance(t, cst.Name) for t in targets):
                return False
            aliases.update(t.value for t in targets)
            return True
        elif isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is expr:
            names = _target_names(parent.target)
            if names is None:
                return False
            aliases.update(names)
            return True
        elif isinstance(parent, cst.Lambda) and parent.body is expr:
            return True
        else:
            return False


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
