"""NDD510 op-dtype: ndd ops take DALI dtypes (``ndd.float32``), not strings or numpy dtypes."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import QualifiedNameProvider

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.flow_rule import FlowRule
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.values.ndd_flow import ndd_op_info, ndd_path
from ndd_migrate.syntax import cstutil

# dtype names that mean the same type in numpy and in ndd
_DTYPES = {
    n: n
    for n in (
        "float16",
        "float32",
        "float64",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "bool",
    )
}
_DTYPES["bool_"] = "bool"

RULE = Rule(
    code="NDD510",
    name="op-dtype",
    summary='`dtype="float32"` / `dtype=np.float32` is rejected by ndd ops; use `ndd.float32`',
    what=(
        'Finds a string (`"float32"`) or a numpy dtype (`np.float32`, any numpy alias) given as `dtype=` '
        "to an ndd operator, and replaces it with the ndd dtype (`ndd.float32`)."
    ),
    why=(
        'ndd ops do not convert them: in DALI 2.4.0 `ndd.cast(x, dtype="float16")` raises `ValueError` and '
        "`dtype=np.float16` raises `TypeError`. `ndd.float16` (or `types.FLOAT16`) works."
    ),
    fix_safety=FixSafety.SAFE,
    fix="Safe for the names numpy and ndd share (`float16/32/64`, `int8..64`, `uint8..64`, `bool`); others are left alone.",
    examples=(
        Example(
            before=(
                "import numpy as np\n"
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def to_half(images):\n"
                "    return ndd.cast(images, dtype=np.float16), ndd.cast(images, dtype='uint8')\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def to_half(images):\n"
                "    return ndd.cast(images, dtype=ndd.float16), ndd.cast(images, dtype=ndd.uint8)\n"
            ),
        ),
    ),
    valid=(
        (
            "import nvidia.dali.experimental.dynamic as ndd\nfrom nvidia.dali import types\n\n"
            "x = ndd.cast(y, dtype=ndd.float16)\nz = ndd.cast(y, dtype=types.FLOAT)\n"
        ),
        "import numpy as np\n\nx = np.zeros(3, dtype='float32')\n",
    ),
)


class Impl(FlowRule):
    rule = RULE

    def leave_Call(self, original: cst.Call, updated: cst.BaseExpression) -> cst.BaseExpression:
        path = ndd_path(self.ctx, original.func)
        if path is None or (ndd_op_info(path) is None and not path.startswith("math.")):
            return updated
        arg = cstutil.kwarg(original, "dtype")
        if arg is None:
            return updated
        name = self._dtype_name(arg.value)
        if name is None:
            return updated
        fixed = self.ctx.applies(self.code, arg) and isinstance(updated, cst.Call)
        self.ctx.report(
            self.code,
            arg,
            f"ndd ops reject string and numpy dtypes: use `ndd.{name}`",
            hint=f"use `ndd.{name}`",
            fixed=fixed,
        )
        if not fixed:
            return updated
        new_arg = cstutil.kwarg(updated, "dtype")
        return updated.with_changes(
            args=[a.with_changes(value=self.ctx.ndd(name)) if a is new_arg else a for a in updated.args]
        )

    def _dtype_name(self, expr: cst.BaseExpression) -> str | None:
        text = cstutil.string_value(expr)
        if text is not None:
            return _DTYPES.get(text) if text != "bool_" else None
        if isinstance(expr, (cst.Name, cst.Attribute)):
            quals = {q.name for q in self.ctx.resolver.get_metadata(QualifiedNameProvider, expr, None) or ()}
            if len(quals) == 1:
                q = quals.pop()
                if q.startswith("numpy.") and q.count(".") == 1:
                    return _DTYPES.get(q[len("numpy.") :])
        return None
