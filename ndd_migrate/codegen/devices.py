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
