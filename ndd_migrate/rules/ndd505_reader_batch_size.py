"""NDD505 reader-batch-size: ``batch_size=`` belongs to ``next_epoch``, not to the reader constructor."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.flow_rule import FlowRule
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.values.ndd_flow import ndd_path, reader_info
from ndd_migrate.syntax import cstutil

RULE = Rule(
    code="NDD505",
    name="reader-batch-size",
    summary="an ndd reader constructor does not take `batch_size=`; pass it to `next_epoch`",
    what="Finds `batch_size=` in an ndd reader constructor (`ndd.readers.File(..., batch_size=B)`).",
    why=(
        "The constructor rejects it: `TypeError: File.__init__() got an unexpected keyword argument "
        "'batch_size'` (DALI 2.4.0). The batch size is chosen per epoch: `reader.next_epoch(batch_size=B)`."
    ),
    fix_safety=FixSafety.MANUAL,
    fix="Manual: move the value to every `next_epoch(...)` call of that reader.",
    examples=(
        Example(
            before=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "reader = ndd.readers.File(file_root='/data', batch_size=32)\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "# TODO(ndd-migrate): NDD505 move `batch_size=` to `reader.next_epoch(batch_size=...)`\n"
                "reader = ndd.readers.File(file_root='/data', batch_size=32)\n"
            ),
        ),
    ),
    valid=(
        (
            "import nvidia.dali.experimental.dynamic as ndd\n\nreader = ndd.readers.File(file_root='/data')\n"
            "for x, y in reader.next_epoch(batch_size=32):\n    pass\n"
        ),
        "import nvidia.dali.experimental.dynamic as ndd\n\nx = ndd.random.uniform(batch_size=32)\n",
    ),
)


class Impl(FlowRule):
    rule = RULE

    def visit_Call(self, node: cst.Call) -> None:
        if reader_info(ndd_path(self.ctx, node.func)) is None:
            return
        arg = cstutil.kwarg(node, "batch_size")
        if arg is not None:
            self.ctx.report(
                self.code,
                arg,
                "a reader constructor does not accept `batch_size=`",
                hint="move `batch_size=` to `reader.next_epoch(batch_size=...)`",
                fixed=False,
            )
