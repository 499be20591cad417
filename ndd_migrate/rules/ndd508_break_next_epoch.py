"""NDD508 break-next-epoch: ``break`` out of ``for ... in reader.next_epoch(...)``."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.flow_rule import FlowRule
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.values.ndd_flow import loop_reader_iter

RULE = Rule(
    code="NDD508",
    name="break-next-epoch",
    summary="`break` out of `reader.next_epoch()` leaves the epoch half read",
    what="Finds a `break` whose innermost loop iterates an ndd reader's `next_epoch(...)`.",
    why=(
        "An epoch must be exhausted before the next `next_epoch()`. Nothing fails: the next `next_epoch()` "
        "continues where the broken loop stopped and reads a whole epoch's count of batches from there, so "
        'every later "epoch" is shifted (DALI 2.4.0, 7 samples, batch 2: after a `break` at batch 1 the '
        "next epoch gave samples 2..6, 0..2). Shuffles and `get_metadata()` bookkeeping no longer match "
        "epochs."
    ),
    fix_safety=FixSafety.MANUAL,
    fix=(
        "Manual: to read N batches, keep one iterator across the loop (`it = iter(reader.next_epoch(...))`, "
        "refilled when exhausted), or drain the rest of the epoch before the next `next_epoch()`."
    ),
    examples=(
        Example(
            before=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "reader = ndd.readers.File(file_root='/data')\n"
                "for step, (jpegs, labels) in enumerate(reader.next_epoch(batch_size=8)):\n"
                "    pass\n"
                "for jpegs, labels in reader.next_epoch(batch_size=8):\n"
                "    if labels.batch_size < 8:\n"
                "        break\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "reader = ndd.readers.File(file_root='/data')\n"
                "for step, (jpegs, labels) in enumerate(reader.next_epoch(batch_size=8)):\n"
                "    pass\n"
                "for jpegs, labels in reader.next_epoch(batch_size=8):\n"
                "    if labels.batch_size < 8:\n"
                "        # TODO(ndd-migrate): NDD508 finish the epoch before the next `next_epoch()` "
                "(or keep one iterator instead of breaking)\n"
                "        break\n"
            ),
        ),
    ),
    valid=(
        (
            "import nvidia.dali.experimental.dynamic as ndd\n\nreader = ndd.readers.File(file_root='/data')\n"
            "for jpegs, labels in reader.next_epoch(batch_size=8):\n    for i in range(3):\n        break\n"
        ),
        (
            "import nvidia.dali.experimental.dynamic as ndd\n\n"
            "while True:\n    for i in range(3):\n        break\n    break\n"
        ),
    ),
)


class Impl(FlowRule):
    rule = RULE

    def visit_Break(self, node: cst.Break) -> None:
        loops = self.loops()
        if loops and isinstance(loops[-1], cst.For) and loop_reader_iter(self.ctx, loops[-1]) is not None:
            self.ctx.report(
                self.code,
                node,
                "`break` out of `next_epoch()`: the next epoch starts mid-epoch",
                hint="finish the epoch before the next `next_epoch()` (or keep one iterator instead of breaking)",
                fixed=False,
            )
