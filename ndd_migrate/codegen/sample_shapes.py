"""``fn.shapes(x)`` / ``ops.Shapes()(x)`` as a dynamic-mode expression (NDD101, NDD402).

DALI 2.4's dynamic mode has no public ``shapes`` operator (``ndd._shape`` is internal), but a
``Batch`` knows the shapes of its samples: ``x.shape`` is the list of their shape tuples. So

    fn.shapes(x, dtype=D)   →   ndd.as_batch(x.shape, dtype=D, device=x.device)

gives what the operator gave, checked against DALI 2.4 on the CPU (tests/test_sample_shapes.py):
one 1-D tensor per sample holding its shape, of ``dtype`` (the schema's default ``INT64`` when the
call gives none: spelled out, since ``as_batch`` of the empty shape ``()`` of a scalar sample
would otherwise be ``float64``), ``[]`` for a scalar sample, no layout, usable as an argument input
(``fn.pad(..., shape=...)``) and in arithmetic. The operator runs on the device of its input
(``device=`` when given): a GPU input gave a GPU result, hence ``device=x.device``, which reads the
input a second time — so the input must be a plain (dotted) name unless ``device=`` is given.
``bytes_per_sample_hint``, ``preserve`` and ``name`` do nothing here and are dropped; the
deprecated ``type=`` is ``dtype=``. The method that replaces the deprecated operator,
``node.shape(dtype=None, device="cpu")`` on a ``DataNode``, is the same expression with its device.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst

from ndd_migrate.syntax import names

_DROPPED = frozenset({"bytes_per_sample_hint", "preserve", "name"})
_KNOWN = _DROPPED | {"dtype", "type", "device"}


def problem(args: Sequence[cst.Arg]) -> str | None:
    """Why ``shapes(*args)`` cannot be written as the expression, or None when it can."""
    if any(a.star for a in args):
        return "its arguments are passed through `*`/`**`, which cannot be read"
    inputs = [a for a in args if a.keyword is None]
    if len(inputs) != 1:
        return "it takes one input"
    unknown = sorted({a.keyword.value for a in args if a.keyword is not None} - _KNOWN)
    if unknown:
        return f"`{unknown[0]}=` is not an argument of `fn.shapes`"
    if _kwarg(args, "device") is None and names.dotted(inputs[0].value) is None:
        return "its input is an expression, which `device=x.device` would compute again: assign it to a name first"
    return None


def build(ndd: Callable[[str], cst.BaseExpression], args: Sequence[cst.Arg]) -> cst.Call:
    """``ndd.as_batch(<input>.shape, dtype=..., device=...)`` for ``shapes(*args)``; ``ndd(path)``
    spells ``ndd.<path>`` under the module's alias. Call only when :func:`problem` is None."""
    source = next(a for a in args if a.keyword is None).value
    device = _kwarg(args, "device")
    return _as_batch(
        ndd,
        source,
        _kwarg(args, "dtype") or _kwarg(args, "type"),
        device.value if device is not None else cst.Attribute(_bare(source), cst.Name("device")),
    )


def method_problem(call: cst.Call) -> str | None:
    """Why ``node.shape(...)``, the ``DataNode`` method, cannot be written as the expression."""
    if any(a.star or a.keyword is None for a in call.args):
        return "its arguments are positional or passed through `*`/`**`"
    unknown = sorted({a.keyword.value for a in call.args} - {"dtype", "device"})
    return f"`{unknown[0]}=` is not an argument of `DataNode.shape`" if unknown else None


def build_method(ndd: Callable[[str], cst.BaseExpression], node: cst.BaseExpression, call: cst.Call) -> cst.Call:
    """``node.shape(dtype=D, device=d)`` (``DataNode.shape``: ``fn._shape`` on ``device``, by default
    ``"cpu"`` whatever the input's device) → ``ndd.as_batch(node.shape, dtype=D, device=d)``."""
    device = _kwarg(call.args, "device")
    return _as_batch(
        ndd, node, _kwarg(call.args, "dtype"), device.value if device is not None else cst.SimpleString('"cpu"')
    )


def _as_batch(ndd, source: cst.BaseExpression, dtype: cst.Arg | None, device: cst.BaseExpression) -> cst.Call:
    if dtype is not None and isinstance(dtype.value, cst.Name) and dtype.value.value == "None":
        dtype = None  # the schema's default
    out = [
        cst.Arg(cst.Attribute(_bare(source), cst.Name("shape"))),
        _keyword("dtype", dtype.value if dtype is not None else ndd("int64")),
        _keyword("device", device),
    ]
    return cst.Call(ndd("as_batch"), out)


def _kwarg(args: Sequence[cst.Arg], name: str) -> cst.Arg | None:
    return next((a for a in args if a.keyword is not None and a.keyword.value == name), None)


def _bare(expr: cst.BaseExpression) -> cst.BaseExpression:
    """The expression as the receiver of ``.shape``: parenthesized unless it binds tighter."""
    if isinstance(expr, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _keyword(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(
        keyword=cst.Name(name),
        value=value,
        equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
    )
