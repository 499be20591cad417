"""NDD501 batch-subscript: ``batch[i]`` on an ndd ``Batch`` becomes ``batch.tensors[i]``."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.flow_rule import FlowRule
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.values.ndd_flow import Data

RULE = Rule(
    code="NDD501",
    name="batch-subscript",
    summary="a `Batch` is not subscriptable: pick samples with `.tensors[i]`",
    what=(
        "Finds `batch[i]` where `batch` is known to be an ndd `Batch` (bound from a reader's "
        "`next_epoch` loop, `ndd.batch`/`ndd.as_batch`, or an ndd op with a `Batch` input or `batch_size=`) "
        "and rewrites it to `batch.tensors[i]` (sample i). The message names the other reading, "
        "`batch.slice[i]` (index i inside every sample), for code ported from pipeline mode, where "
        "`x[i]` on a `DataNode` meant that. A slice or several indices (`batch[1:3]`, `batch[:, 0]`) "
        "are reported without a rewrite: `batch.tensors[1:3]` is not a sub-batch."
    ),
    why=(
        "`Batch` has no `__getitem__`: `batch[i]` raises `TypeError: 'Batch' object is not subscriptable` "
        "(DALI 2.4.0). Two operations were spelled `x[i]` before: on a `TensorList` (what `pipe.run()` "
        "returned) it picked sample i, now `batch.tensors[i]`; on a `DataNode` (inside a pipeline) it indexed "
        "inside each sample, now `batch.slice[i]`, which keeps the batch size. In 2.4.0 "
        "`batch.tensors[1:3]` reports 2 samples but iterates all of them: a sub-batch is "
        "`ndd.as_batch([batch.tensors[i] for i in range(1, 3)])`."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "Unsafe: `batch.tensors[i]` is right when sample i was meant (as `TensorList[i]`), but silently "
        "changes the result when the code slices inside every sample (ported from a pipeline body): "
        "then write `batch.slice[i]`. Applied by `migrate` and `check --fix --unsafe-fixes`; `check` "
        "names both choices."
    ),
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
        Example(
            title="a slice: sub-batch or per-sample slicing, a human decides",
            before=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "b = ndd.random.uniform(batch_size=4, shape=[5])\n"
                "head = b[1:3]\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "b = ndd.random.uniform(batch_size=4, shape=[5])\n"
                "# TODO(ndd-migrate): NDD501 `Batch` is not subscriptable: `b.slice[1:3]` indexes inside every "
                "sample; `ndd.as_batch([b.tensors[i] for i in ...])` builds a batch of samples 1:3; write the one "
                "you mean\n"
                "head = b[1:3]\n"
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
        value = cst.Module(body=[]).code_for_node(original.value)
        index = cst.Module(body=[]).code_for_node(original)[len(value) :]
        inside = f"`{value}.slice{index}` indexes inside every sample"
        if _sliced(original):  # `batch.tensors[1:3]` is no sub-batch (DALI 2.4.0 iterates them all)
            samples = f"`ndd.as_batch([{value}.tensors[i] for i in ...])` builds a batch of samples {index[1:-1]}"
            self.ctx.report(
                self.code,
                original,
                f"`Batch` is not subscriptable: `{value}{index}` has no direct rewrite",
                hint=f"`Batch` is not subscriptable: {inside}; {samples}; write the one you mean",
                fixed=False,
                manual=True,
            )
            return updated
        fixed = self.ctx.applies(self.code, original)
        choices = f"`{value}.tensors{index}` picks sample {index[1:-1]}; {inside}"
        self.ctx.report(
            self.code,
            original,
            f"`Batch` is not subscriptable: `{value}{index}` → `{value}.tensors{index}` ({choices})",
            hint=f"`Batch` is not subscriptable: {choices}; write the one you mean",
            fixed=fixed,
        )
        if not fixed:
            return updated
        return updated.with_changes(value=cst.Attribute(updated.value, cst.Name("tensors")))


def _sliced(sub: cst.Subscript) -> bool:
    return len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index)
