"""NDD107 math-module: ``nvidia.dali.math`` functions become ``ndd.math`` functions."""

from __future__ import annotations

from ndd_migrate.dali.tables import math_functions
from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.syntax import names

RULE = Rule(
    code="NDD107",
    name="math-module",
    summary="`nvidia.dali.math` builds graph nodes; dynamic mode has `ndd.math`",
    what="Rewrites references to `nvidia.dali.math` functions (any alias) to `ndd.math.<name>`.",
    why="`nvidia.dali.math` functions only work on pipeline-mode `DataNode`s.",
    fix_safety=FixSafety.UNSAFE,
    fix="Same functions, same arguments; applied with the rest of the migration.",
    examples=(
        Example(
            before=("import nvidia.dali.math as dmath\n\n\ndef norm(x):\n    return dmath.sqrt(x)\n"),
            after=("import nvidia.dali.experimental.dynamic as ndd\n\n\ndef norm(x):\n    return ndd.math.sqrt(x)\n"),
        ),
    ),
    valid=("import math\n\nx = math.sqrt(2)\n",),
)


class Impl(RuleImpl):
    rule = RULE

    def leave_Attribute(self, original, updated):
        return self._rewrite(original, updated)

    def leave_Name(self, original, updated):
        return updated if self.ctx.walk.in_import else self._rewrite(original, updated)

    def _rewrite(self, original, updated):
        func = names.math_function(self.dali_name(original))
        if func is None or func not in math_functions() or not self.ctx.may_rewrite_dali_calls():
            return updated
        fixed = self.ctx.applies(self.code, original)
        self.ctx.report(
            self.code, original, f"`math.{func}` → `ndd.math.{func}`", hint=f"use `ndd.math.{func}`", fixed=fixed
        )
        return self.ctx.ndd(f"math.{func}") if fixed else updated
