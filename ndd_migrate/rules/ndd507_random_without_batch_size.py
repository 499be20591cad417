"""NDD507 random-without-batch-size: a random op with no batch input draws ONE value per batch."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.flow_rule import FlowRule
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.values.ndd_flow import Data, loop_reader_iter, ndd_op_info, ndd_path
from ndd_migrate.syntax import cstutil

RULE = Rule(
    code="NDD507",
    name="random-without-batch-size",
    summary="a random op without a batch input or `batch_size=` gives one value for the whole batch",
    what=(
        "Inside a `for ... in reader.next_epoch(batch_size=...)` loop, finds calls of random ndd operators "
        "(`ndd.random.uniform`, `ndd.random.coin_flip`, ...) whose positional inputs are not batches (or "
        "that have none) and that have no `batch_size=`. When the loop's batch size is a name or a number, "
        "adds the same `batch_size=`."
    ),
    why=(
        "Without a batch input or `batch_size=` an ndd op returns a single `Tensor` (DALI 2.4.0), which "
        "later ops broadcast to every sample: every image of the batch gets the same flip, the same crop, "
        "the same noise. Nothing fails. (The pipeline-mode form of this, `fn.*` calls being migrated, is "
        "NDD104's.)"
    ),
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "Unsafe: the op now draws one value per sample, which is almost certainly what was meant, but it "
        "changes the numbers, and the last batch of an epoch may be smaller than the loop's batch size "
        "(`batch_size=labels.batch_size` is exact there). A batch size that is neither a name nor a number "
        "is reported only."
    ),
    examples=(
        Example(
            before=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "reader = ndd.readers.File(file_root='/data')\n"
                "for jpegs, labels in reader.next_epoch(batch_size=bs):\n"
                "    images = ndd.decoders.image(jpegs)\n"
                "    flip = ndd.random.coin_flip()\n"
                "    images = ndd.flip(images, horizontal=flip)\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "reader = ndd.readers.File(file_root='/data')\n"
                "for jpegs, labels in reader.next_epoch(batch_size=bs):\n"
                "    images = ndd.decoders.image(jpegs)\n"
                "    flip = ndd.random.coin_flip(batch_size=bs)\n"
                "    images = ndd.flip(images, horizontal=flip)\n"
            ),
        ),
    ),
    valid=(
        (
            "import nvidia.dali.experimental.dynamic as ndd\n\nreader = ndd.readers.File(file_root='/data')\n"
            "for jpegs, labels in reader.next_epoch(batch_size=8):\n"
            "    flip = ndd.random.coin_flip(batch_size=labels.batch_size)\n"
            "    images = ndd.random_resized_crop(ndd.decoders.image(jpegs), size=[8, 8])\n"
        ),
        # without a batch size the loop yields samples: one value per sample is right
        (
            "import nvidia.dali.experimental.dynamic as ndd\n\nreader = ndd.readers.File(file_root='/data')\n"
            "for jpeg, label in reader.next_epoch():\n    flip = ndd.random.coin_flip()\n"
        ),
        # outside a reader loop nobody said how many samples there are
        "import nvidia.dali.experimental.dynamic as ndd\n\nnoise = ndd.random.normal(shape=[3])\n",
    ),
)


class Impl(FlowRule):
    rule = RULE

    def leave_Call(self, original: cst.Call, updated: cst.BaseExpression) -> cst.BaseExpression:
        size = self._loop_batch_size()
        if size is None or not self._draws_one_value(original):
            return updated
        usable = isinstance(size, (cst.Name, cst.Integer))
        fixed = usable and self.ctx.applies(self.code, original) and isinstance(updated, cst.Call)
        shown = cst.Module([]).code_for_node(size)
        self.ctx.report(
            self.code,
            original,
            "random op without a batch input or `batch_size=`: one value for the whole batch",
            hint=f"add `batch_size={shown}` (the loop's batch size)",
            fixed=fixed,
        )
        return cstutil.add_kwarg(updated, "batch_size", size.deep_clone()) if fixed else updated

    def _loop_batch_size(self) -> cst.BaseExpression | None:
        """The batch size of the innermost ``next_epoch`` loop around the call (in this function)."""
        for loop in reversed(self.loops()):
            it = loop_reader_iter(self.ctx, loop) if isinstance(loop, cst.For) else None
            if it is not None:
                return self.flow.epoch_batch_size(it)
        return None

    def _draws_one_value(self, call: cst.Call) -> bool:
        path = ndd_path(self.ctx, call.func)
        info = ndd_op_info(path) if path else None
        if info is None or not info.random or info.reader or cstutil.has_star(call):
            return False
        if cstutil.kwarg(call, "batch_size") is not None:
            return False
        positional = [a.value for a in call.args if a.keyword is None]
        return all(self.flow.kind(v) is Data.TENSOR for v in positional)
