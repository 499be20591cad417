"""NDD504 lowercase-reader: ``ndd.readers.file`` does not exist; the reader class is ``ndd.readers.File``."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.flow_rule import FlowRule
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.values.ndd_flow import ndd_path, reader_info

RULE = Rule(
    code="NDD504",
    name="lowercase-reader",
    summary="ndd readers are classes: `ndd.readers.File`, not `ndd.readers.file`",
    what=(
        "Finds pipeline-mode reader names used under the ndd module (`ndd.readers.file`, "
        "`ndd.readers.coco`, `ndd.file_reader`, ...) and replaces them with the ndd class the operator "
        "table gives (`ndd.readers.File`, `ndd.readers.COCO`; not a mechanical capitalisation)."
    ),
    why=(
        "`nvidia.dali.experimental.dynamic.readers` has no `file`: the name raises `AttributeError` "
        "(DALI 2.4.0). Readers are stateful classes, created once and iterated with `next_epoch`."
    ),
    fix_safety=FixSafety.SAFE,
    fix="Safe: the original raised. Only the last name changes when the module path stays the same; "
    "otherwise (`ndd.file_reader`) it is reported.",
    examples=(
        Example(
            before=(
                "from nvidia.dali.experimental import dynamic\n\n"
                "reader = dynamic.readers.file(file_root='/data', random_shuffle=True)\n"
                "coco = dynamic.readers.coco(file_root='/coco', annotations_file='a.json')\n"
            ),
            after=(
                "from nvidia.dali.experimental import dynamic\n\n"
                "reader = dynamic.readers.File(file_root='/data', random_shuffle=True)\n"
                "coco = dynamic.readers.COCO(file_root='/coco', annotations_file='a.json')\n"
            ),
        ),
    ),
    valid=(
        "import nvidia.dali.experimental.dynamic as ndd\n\nreader = ndd.readers.File(file_root='/data')\n",
        "import mylib as ndd\n\nreader = ndd.readers.file(file_root='/data')\n",
    ),
)


class Impl(FlowRule):
    rule = RULE

    def leave_Attribute(self, original: cst.Attribute, updated: cst.BaseExpression) -> cst.BaseExpression:
        if self.ctx.walk.in_import:
            return updated
        path = ndd_path(self.ctx, original)
        info = reader_info(path)
        if info is None or path == info.ndd:
            return updated
        head, _, _ = path.rpartition(".")
        new_head, _, new_last = info.ndd.rpartition(".")
        can_fix = head == new_head and isinstance(updated, cst.Attribute)
        fixed = can_fix and self.ctx.applies(self.code, original)
        self.ctx.report(
            self.code,
            original,
            f"`ndd.{path}` does not exist: the reader is `ndd.{info.ndd}`",
            hint=f"use `ndd.{info.ndd}`",
            fixed=fixed,
        )
        return updated.with_changes(attr=cst.Name(new_last)) if fixed else updated
