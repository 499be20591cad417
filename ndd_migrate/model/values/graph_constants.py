"""Graph constants that dynamic mode takes as the values they wrap.

``types.Constant(np.array([0], dtype=np.float32))`` makes a constant node: a batch whose every
sample is that array. Dynamic-mode ops reject the node (``TypeError: Unexpected element type
DataNode``), but an ndd operator given a numpy array as a positional input broadcasts it to every
sample of the batch (DALI 2.4: ``ndd.slice(shapes, np.array([0], dtype=np.float32), ...)`` gives what
the pipeline gave), so there the array itself is the replacement.

The array must have the dtype the constant node had. ``types.Constant`` keeps a numpy array's dtype
except float64 (sent as float32) and, without ``dtype=``, int64/uint64 (made 32-bit)
(``nvidia.dali.types._preprocess_constant_array_type``); the array's dtype is therefore only taken
when it is written out, ``np.array(<literal>, dtype=np.<T>)``, with ``T`` one that is kept.
``types.Constant`` with arguments of its own (``dtype=``, ``shape=``, ``layout=``, ``device=``) is
not taken, nor a constant used anywhere but as an operator's positional input (an argument input,
an arithmetic operand, an output).

A legacy ``Pipeline`` subclass that makes ``types.Constant(value, dtype=types.X)`` in ``__init__``
and gives it to operators in ``define_graph`` (:func:`init_obstacle`) is another matter: ``value`` is
known only at run time, and so is the conversion to ``X`` that the constant node made. DALI 2.4
sends float data as float32 and integer data as int64 and converts them to ``X`` as its ``Cast``
does, rounding half away from zero and saturating (``types.Constant([1.7, 2.5],
dtype=types.INT64)`` gives ``[2, 3]``, where ``np.array(..., dtype=np.int64)`` gives ``[1, 2]``); a
number makes a ``ScalarConstant``, converted as Python converts it. The support module's
``dali_constant(value, dtype)`` makes that array, with DALI's own cast, in the generator's prologue.
An operator given it as an argument input (``fn.resize(size=...)``) or as a positional input beside a
batch gives what it gave with the constant node (tests/test_graph_constants.py checks both against
DALI).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ndd_migrate.syntax import cstutil

#: numpy dtypes ``types.Constant`` keeps as they are.
KEPT_DTYPES = frozenset(
    {
        "bool_",
        "int8",
        "int16",
        "int32",
        "uint8",
        "uint16",
        "uint32",
        "float16",
        "float32",
    }
)
_ARRAY = frozenset({"numpy.array", "numpy.asarray"})
#: ``dtype=`` of a ``types.Constant`` made in ``__init__`` that ``dali_constant`` makes: DALI's
#: numeric types less ``FLOAT64``, which DALI 2.4's constant node fails on at run time.
INIT_DTYPES = frozenset(
    f"nvidia.dali.types.{prefix}{name}"
    for prefix in ("", "DALIDataType.")
    for name in ("BOOL", "FLOAT16", "FLOAT", *(f"{s}INT{b}" for s in ("", "U") for b in (8, 16, 32, 64)))
)


def array_of(constant: cst.Call, qualnames: Callable[[cst.CSTNode], set[str]]) -> cst.BaseExpression | None:
    """The ``np.array(<literal>, dtype=np.<T>)`` that ``constant`` (a ``types.Constant(...)`` call)
    wraps and dynamic mode can be given instead, or None. ``qualnames`` gives the qualified names
    an expression of the original tree may refer to."""
    if len(constant.args) != 1 or constant.args[0].keyword is not None or constant.args[0].star:
        return None
    value = constant.args[0].value
    if not isinstance(value, cst.Call) or not qualnames(value.func) & _ARRAY:
        return None
    positional = [a for a in value.args if a.keyword is None]
    keywords = {a.keyword.value: a.value for a in value.args if a.keyword is not None}
    if len(positional) != 1 or positional[0].star or set(keywords) != {"dtype"}:
        return None
    dtype = keywords["dtype"]
    if not {f"numpy.{t}" for t in KEPT_DTYPES} & qualnames(dtype):
        return None
    return value if _literal(positional[0].value) else None


def init_obstacle(constant: cst.Call, qualnames: Callable[[cst.CSTNode], set[str]]) -> str | None:
    """Why ``constant``, a ``types.Constant(...)`` made in ``__init__``, is not one ``dali_constant``
    makes (``value`` and a ``dtype=`` of :data:`INIT_DTYPES`, nothing else); None when it is."""
    positional = [a for a in constant.args if a.keyword is None]
    keywords = {a.keyword.value: a.value for a in constant.args if a.keyword is not None}
    if len(positional) != 1 or positional[0].star or not set(keywords) <= {"dtype"}:
        return "with arguments other than the value and `dtype=`"
    if "dtype" not in keywords:
        return "without `dtype=` (the constant node picks one)"
    if not qualnames(keywords["dtype"]) & INIT_DTYPES:
        return "of a `dtype=` other than a numeric type of `types` (not `FLOAT64`)"
    return None


def op_input(arg: cst.CSTNode | None, call: cst.CSTNode | None, value: cst.CSTNode) -> bool:
    """Is ``value`` the whole positional argument ``arg`` of ``call`` (``op(x, value)``)?"""
    return (
        isinstance(arg, cst.Arg)
        and arg.value is value
        and arg.keyword is None
        and not arg.star
        and isinstance(call, cst.Call)
        and any(a is arg for a in call.args)
    )


def _literal(expr: cst.BaseExpression) -> bool:
    """A number, a bool, or a (nested) list or tuple display of them."""
    if isinstance(expr, (cst.List, cst.Tuple)):
        return all(isinstance(el, cst.Element) and _literal(el.value) for el in expr.elements)
    value = cstutil.literal_value(expr)
    return isinstance(value, (int, float))
