"""NDD103 mixed-device: ``device="mixed"`` becomes ``device="gpu"``."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.codegen import devices
from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.syntax import cstutil, names

#: NDD101 fn-call: the rewrite of the `fn.*` call this rule's fix rides on.
FN_CALL = "NDD101"

RULE = Rule(
    code="NDD103",
    name="mixed-device",
    summary='`device="mixed"` does not exist in dynamic mode; use `device="gpu"`',
    what=(
        'Finds `device="mixed"` on DALI operator calls (`fn.*` and `ndd.*`, any alias), also as a branch '
        'of a conditional expression (`"mixed" if gpu else "cpu"`), and replaces it with `"gpu"`.'
    ),
    why=(
        'In pipeline mode "mixed" marks ops that take CPU input and produce GPU output (the image decoder). '
        'Dynamic mode has no such device: the op runs where `device=` says, and `"mixed"` is rejected.'
    ),
    fix_safety=FixSafety.SAFE,
    fix="Safe in dynamic-mode code. In pipeline-mode code it is applied together with NDD101 by `migrate`.",
    examples=(
        Example(
            before=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def decode(jpegs, use_gpu):\n"
                "    return ndd.decoders.image(jpegs, device='mixed' if use_gpu else 'cpu')\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def decode(jpegs, use_gpu):\n"
                "    return ndd.decoders.image(jpegs, device='gpu' if use_gpu else 'cpu')\n"
            ),
        ),
    ),
    valid=(
        "import nvidia.dali.experimental.dynamic as ndd\n\nx = ndd.decoders.image(j, device='gpu')\n",
        "def run(device='mixed'):\n    return device\n\nrun(device='mixed')\n",
    ),
)


class Impl(RuleImpl):
    rule = RULE

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        dali = self.dali_name(original.func)
        # Not `ops.*` objects: in pipeline mode they need "mixed"; NDD402 respells them when it rewrites them.
        if not (names.fn_path(dali) or names.is_ndd(dali)):
            return updated
        arg = cstutil.kwarg(original, "device")
        if arg is None or not devices.has_mixed(arg.value):
            return updated
        if names.fn_path(dali) and not (self.ctx.may_rewrite_dali_calls() and self.ctx.applies(FN_CALL, original)):
            return updated  # an `fn.*` call that stays one needs "mixed": only with NDD101's rewrite
        fixed = self.ctx.applies(self.code, arg)
        self.ctx.report(
            self.code,
            arg,
            'device="mixed" → device="gpu"',
            fixed=fixed,
            hint='use device="gpu"',
            with_fix_of=FN_CALL if names.fn_path(dali) else None,
        )
        if not fixed:
            return updated
        new_arg = cstutil.kwarg(updated, "device")
        return updated.with_changes(
            args=[a.with_changes(value=devices.to_gpu(a.value)) if a is new_arg else a for a in updated.args]
        )
