"""``"mixed"`` → ``"gpu"`` inside a device expression (NDD103 on op arguments, NDD424 on run-time
device values): dynamic mode rejects ``"mixed"``."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.syntax import cstutil


def has_mixed(expr: cst.BaseExpression) -> bool:
    if cstutil.string_value(expr) == "mixed":
        return True
    if isinstance(expr, cst.IfExp):
        return has_mixed(expr.body) or has_mixed(expr.orelse)
    return False


def to_gpu(expr: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(expr, cst.SimpleString) and cstutil.string_value(expr) == "mixed":
        return cstutil.replace_string(expr, "gpu")
    if isinstance(expr, cst.IfExp):
        return expr.with_changes(body=to_gpu(expr.body), orelse=to_gpu(expr.orelse))
    return expr


def mapped(name: cst.Name) -> cst.IfExp:
    """``"gpu" if name == "mixed" else name``: a device name that may be "mixed" and means something
    else too (``padding = 211025920 if decoder_device == "mixed" else 0``, the ResNet-50 example's
    lineage), given to a decoder without changing what the name holds for the rest of the code."""
    return cst.IfExp(
        test=cst.Comparison(name, [cst.ComparisonTarget(cst.Equal(), cst.SimpleString('"mixed"'))]),
        body=cst.SimpleString('"gpu"'),
        orelse=name,
    )
