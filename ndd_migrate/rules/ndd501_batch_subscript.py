"""NDD501 batch-subscript: ``batch[i]`` on an ndd ``Batch`` becomes ``batch.tensors[i]``."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.catalog import Example, Rule
from ndd_migrate.diagnostics import FixSafety
from ndd_migrate.ndd_flow import Data, FlowRule

RULE = Rule(
    code="NDD501",
    name="batch-subscript",
    summary="a `Batch` is not subscriptable: pick samples with `.tensors[i]`",
    what=(
        "Finds `batch[i]` where `batch` is known to be an ndd `Batch` (bound from a reader's "
        "`next_epoch` loop, `ndd.batch`/`ndd.as_batch`, or an ndd op with a `Batch` input or `batch_size=`) "
        "and rewrites it to `batch.tensors[i]`."
    ),
    why=(
        "`Batch` has no `__getitem__`: `batch[i]` raises `TypeError: 'Batch' object is not subscriptable` "
        "(DALI 2.4.0). `batch.tensors[i]` is sample i, as `TensorList[i]` was. Slicing inside every sample is "
        "`batch.slice[...]`, a different operation."
    ),
    fix_safety=FixSafety.SAFE,
    fix="Safe: the original raised; the rewrite gives sample i as an ndd `Tensor`.",
    examples=(
        Example(
            before=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def first_labels():\n"
                "    reader = ndd.readers.File(file_root='/data')\n"
                "    for jpegs, labels in reader.next_epoch(batch_size=4):\n"
                "        print(labels[0])\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def first_labels():\n"
                "    reader = ndd.readers.File(file_root='/data')\n"
                "    for jpegs, labels in reader.next_epoch(batch_size=4):\n"
                "        print(labels.tensors[0])\n"
            ),
        ),
    ),
    valid=(
        "import nvidia.dali.experimental.dynamic as ndd\n\nb = ndd.random.uniform(batch_size=4)\nx = b.tensors[0]\n",
        # a Tensor (no batch input, no batch_size) is subscriptable
        "import nvidia.dali.experimental.dynamic as ndd\n\nt = ndd.random.uniform(shape=[3])\nx = t[0]\n",
        # `ndd` is something else here
        "import mylib as ndd\n\nb = ndd.random.uniform(batch_size=4)\nx = b[0]\n",
        # rebound to something unknown
        "import nvidia.dali.experimental.dynamic as ndd\n\nb = ndd.random.uniform(batch_size=4)\nb = [1, 2]\nx = b[0]\n",
    ),
)


class Impl(FlowRule):
    rule = RULE

    def leave_Subscript(self, original: cst.Subscript, updated: cst.BaseExpression) -> cst.BaseExpression:
        if not isinstance(updated, cst.Subscript) or self.flow.kind(original.value) is not Data.BATCH:
            return updated
        fixed = self.ctx.applies(self.code, original)
        self.ctx.report(self.code, original, "`Batch` is not subscriptable: `batch[i]` → `batch.tensors[i]`",
                        hint="use `.tensors[i]`", fixed=fixed)
        if not fixed:
            return updated
        return updated.with_changes(value=cst.Attribute(updated.value, cst.Name("tensors")))
