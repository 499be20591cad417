"""NDD106 dropped-argument: operator arguments dynamic mode does not accept."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.codegen import arguments
from ndd_migrate.dali.tables import op_info
from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.syntax import cstutil, names

RULE = Rule(
    code="NDD106",
    name="dropped-argument",
    summary="this operator argument is not accepted in dynamic mode",
    what=(
        "On migrated operator calls, removes the arguments the dynamic-mode callable rejects "
        "(`bytes_per_sample_hint`, `preserve`, `name` on non-readers, `seed` on operators that are neither "
        "readers nor random, where it changed nothing; `seed` on random ops is NDD105's), "
        "and renames deprecated argument names to their current names, from the table generated from "
        "DALI's schemas."
    ),
    why="Passing them raises `TypeError` in dynamic mode.",
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "The dropped arguments are memory hints, graph-pruning flags and graph names with no meaning for an "
        "eager call; applied with the rest of the migration."
    ),
    examples=(
        Example(
            before=(
                "import nvidia.dali.fn as fn\n\n\n"
                "def prep(images):\n"
                "    return fn.resize(images, size=[64, 64], bytes_per_sample_hint=1 << 20, name='resize')\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def prep(images):\n"
                "    return ndd.resize(images, size=[64, 64])\n"
            ),
        ),
    ),
)


class Impl(RuleImpl):
    rule = RULE

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        path = names.fn_path(self.dali_name(original.func))
        info = op_info(path) if path else None
        if (
            info is None
            or info.ndd is None
            or not isinstance(updated, cst.Call)
            or not self.ctx.may_rewrite_dali_calls()
        ):
            return updated
        dropped, renamed = arguments.changes(original, info)
        if not (dropped or renamed):
            return updated
        fixed = self.ctx.applies(self.code, original)
        for name in sorted(dropped):
            self.ctx.report(
                self.code,
                cstutil.kwarg(original, name),
                f"`{name}=` is not accepted by `ndd.{info.ndd}`",
                hint=f"remove `{name}=`",
                fixed=fixed,
            )
        for name in sorted(renamed):
            self.ctx.report(
                self.code,
                cstutil.kwarg(original, name),
                f"`{name}=` is deprecated: `{info.renamed_args[name]}=`",
                hint=f"rename to `{info.renamed_args[name]}=`",
                fixed=fixed,
            )
        if not fixed:
            return updated
        return arguments.applied(updated, info, dropped, renamed)
