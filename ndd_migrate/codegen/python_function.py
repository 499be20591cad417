"""A DALI Python operator written out as plain Python over the samples: ``fn.python_function(...)``
in a ``@pipeline_def`` function (NDD422) and ``ops.PythonFunction`` objects of a legacy ``Pipeline``
subclass (NDD402) give the same code, built here.

What DALI does (``ops/_operators/python_function.py``, checked by running it on the CPU):

* ``batch_processing=False`` (the default): the function is called once per sample with one numpy
  array per input (``function_wrapper_per_sample``); without inputs it is still called once per
  sample, ``batch_size`` times per batch. ``batch_processing=True``: once per batch, with one list of
  arrays per input (``function_wrapper_batch``), and without inputs with no arguments, returning the
  batch's list of samples.
* ``num_outputs=N`` (N > 1): the function returns a tuple of N outputs.
* ``num_outputs=0``, a *sink*: a function run for its side effects. DALI 2.4 (CPU, ``exec_async=False,
  exec_pipelined=False``) calls it at every ``run()`` (not at ``build()``), per sample in sample order
  or once per batch with the list of samples, in the calling thread (writable views, as above);
  per sample without inputs, never. The call gives ``[]``; a function that returns a value there
  crashes the process. The pipeline's operators are ordered from
  the outputs (``pipeline._collect_ops``: the outputs' operators first, then the other preserved
  ones, Python operators included, in creation order), so a sink runs after the Python operators
  that compute the outputs. It becomes a statement where it stood (:func:`sink`) when it is a
  statement of the graph's own body with no Python operator after it (:func:`sink_obstacle`).
* ``batch_processing=`` a parameter of the pipeline that keeps its value (a name of ``fixed``): both
  forms are written, chosen by the name (``... if name else ...``; ``if name:`` for a sink).
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

import libcst as cst

from ndd_migrate.model.features.python_operators import Spec
from ndd_migrate.syntax import cstutil, tree


def sink(spec: Spec, function: str, *, asarray: str, line: cst.SimpleStatementLine) -> cst.BaseStatement:
    """The statement that calls a sink (``num_outputs=0``) as DALI does, in place of ``line``
    (its comments kept): ``for s in x.tensors: f(asarray(s))`` per sample (several inputs zipped,
    none without inputs: DALI calls such a sink for no sample), ``f([asarray(s) for s in x.tensors])``
    per batch; its result is dropped. A ``batch_processing=`` name gives ``if name: <per batch> else:
    <per sample>``."""
    code = cst.Module([]).code_for_node
    inputs = [code(x) for x in spec.inputs]
    used = _names(function) | {n for x in spec.inputs for n in _names(code(x))}
    s = cstutil.fresh("s", set(used))
    loop_vars = [s] if len(inputs) == 1 else [cstutil.fresh(f"s{i}", used) for i in range(len(inputs))]

    def per_batch() -> str:
        return f"{function}({', '.join(f'[{asarray}({s}) for {s} in {_tensors(x)}]' for x in inputs)})\n"

    def per_sample() -> str:
        if not inputs:  # DALI calls a sink without inputs for no sample
            return ""
        source = _tensors(inputs[0]) if len(inputs) == 1 else "zip(" + ", ".join(_tensors(x) for x in inputs) + ")"
        args = ", ".join(f"{asarray}({v})" for v in loop_vars)
        return f"for {', '.join(loop_vars)} in {source}:\n    {function}({args})\n"

    if isinstance(spec.batch, bool):
        text = per_batch() if spec.batch else per_sample()
    else:
        orelse = per_sample()
        text = f"if {code(spec.batch)}:\n{_indent(per_batch())}" + (f"else:\n{_indent(orelse)}" if orelse else "")
    stmt = cst.parse_statement(text)
    if isinstance(stmt, cst.SimpleStatementLine):
        return stmt.with_changes(leading_lines=line.leading_lines, trailing_whitespace=line.trailing_whitespace)
    return stmt.with_changes(
        leading_lines=line.leading_lines, body=stmt.body.with_changes(header=line.trailing_whitespace)
    )


def _indent(block: str) -> str:
    return "".join(f"    {row}\n" for row in block.splitlines())


def is_reference(function: cst.BaseExpression) -> bool:
    """A name or ``a.b`` of names: reading it again at each call gives the same function."""
    while isinstance(function, cst.Attribute):
        function = function.value
    return isinstance(function, cst.Name)


def callable_code(function: cst.BaseExpression) -> str:
    """``function`` as the callee of a call: a lambda (or another operator expression) in parentheses."""
    code = cst.Module([]).code_for_node(
        function.with_changes(lpar=[], rpar=[]) if hasattr(function, "lpar") else function
    )
    if isinstance(function, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        return code
    return f"({code})"


def plain(
    spec: Spec, function: str, *, asarray: str, contiguous: str, as_batch: str, batch_size: str = "batch_size"
) -> cst.BaseExpression:
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

    if not isinstance(spec.batch, bool):  # a parameter of the pipeline: both forms, chosen by it
        both = [
            plain(
                Spec(spec.function, spec.inputs, spec.outputs, batch, spec.layouts),
                function,
                asarray=asarray,
                contiguous=contiguous,
                as_batch=as_batch,
                batch_size=batch_size,
            )
            for batch in (True, False)
        ]
        return cst.IfExp(test=spec.batch, body=both[0], orelse=both[1], lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    if spec.batch:
        s = cstutil.fresh("s", used)
        args = ", ".join(f"[{asarray}({s}) for {s} in {_tensors(x)}]" for x in inputs)
        result = f"{function}({args})"
        if spec.outputs == 1:
            return cst.parse_expression(f"{as_batch}([{dense('o')} for o in {result}]{layout})")
    else:
        if not inputs:
            loop_vars, args, source = [cstutil.fresh("_", used)], "", f"range({batch_size})"
        elif len(inputs) == 1:
            loop_vars = [cstutil.fresh("s", used)]
            args, source = f"{asarray}({loop_vars[0]})", _tensors(inputs[0])
        else:
            loop_vars = [cstutil.fresh(f"s{i}", used) for i in range(len(inputs))]
            args = ", ".join(f"{asarray}({v})" for v in loop_vars)
            source = "zip(" + ", ".join(_tensors(x) for x in inputs) + ")"
        call = f"{function}({args})"
        if spec.outputs == 1:
            return cst.parse_expression(f"{as_batch}([{dense(call)} for {', '.join(loop_vars)} in {source}]{layout})")
        result = f"zip(*[{call} for {', '.join(loop_vars)} in {source}])"
    each = f"[{dense('o')} for o in out]"
    if per_output_layouts:
        return cst.parse_expression(
            f"[{as_batch}({each}, layout=layout) for out, layout in zip({result}, {code(spec.layouts)})]"
        )
    return cst.parse_expression(f"[{as_batch}({each}{layout}) for out in {result}]")


def _tensors(expr: str) -> str:
    """``<expr>.tensors``, in parentheses unless ``expr`` is a primary (a name, call, attribute, subscript)."""
    try:
        node = cst.parse_expression(expr)
    except cst.ParserSyntaxError:
        node = None
    primary = isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or (
        node is not None and getattr(node, "lpar", None)
    )
    return f"{expr}.tensors" if primary else f"({expr}).tensors"


def _names(code: str) -> set[str]:
    try:
        node = cst.parse_expression(code)
    except cst.ParserSyntaxError:
        return set()
    found = _Names()
    tree.visit(node, found)
    return found.names


class _Names(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


# -- may the function change its argument? ----------------------------------------------------------
