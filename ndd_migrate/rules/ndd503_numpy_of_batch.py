"""NDD503 numpy-of-batch: ``np.asarray(batch)`` silently gives a useless 0-d object array."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import QualifiedNameProvider

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.flow_rule import FlowRule
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.values.ndd_flow import Data

_NUMPY = {"numpy.asarray", "numpy.array", "numpy.asanyarray", "numpy.ascontiguousarray"}

RULE = Rule(
    code="NDD503",
    name="numpy-of-batch",
    summary="`np.asarray(batch)` is a 0-d object array, not the batch's data",
    what="Finds `np.asarray(batch)` / `np.array(batch)` (any numpy alias) on a value known to be an ndd `Batch`.",
    why=(
        "It does not fail: in DALI 2.4.0 it returns an array of shape `()` and dtype `object` holding the "
        "`Batch`, and the error shows up far away. A uniform batch becomes one array with "
        "`np.asarray(ndd.as_tensor(batch))` (ragged batches need `ndd.as_tensor(batch, pad=True)`); one "
        "sample is `np.asarray(batch.tensors[i])`."
    ),
    fix_safety=FixSafety.MANUAL,
    fix="Manual: which of the two was meant, and whether the batch is ragged, is not known statically.",
    examples=(
        Example(
            before=(
                "import numpy as np\n"
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "b = ndd.random.uniform(batch_size=4, shape=[2])\n"
                "arr = np.asarray(b)\n"
            ),
            after=(
                "import numpy as np\n"
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "b = ndd.random.uniform(batch_size=4, shape=[2])\n"
                "# TODO(ndd-migrate): NDD503 use `np.asarray(ndd.as_tensor(batch))` (or `batch.tensors[i]` for one sample)\n"
                "arr = np.asarray(b)\n"
            ),
        ),
    ),
    valid=(
        (
            "import numpy as np\nimport nvidia.dali.experimental.dynamic as ndd\n\n"
            "b = ndd.random.uniform(batch_size=4, shape=[2])\narr = np.asarray(ndd.as_tensor(b))\nfirst = np.asarray(b.tensors[0])\n"
        ),
        # a Tensor converts fine
        "import numpy as np\nimport nvidia.dali.experimental.dynamic as ndd\n\nt = ndd.random.uniform(shape=[2])\narr = np.asarray(t)\n",
    ),
)


class Impl(FlowRule):
    rule = RULE

    def visit_Call(self, node: cst.Call) -> None:
        quals = self.ctx.resolver.get_metadata(QualifiedNameProvider, node.func, None) or ()
        if not node.args or not {q.name for q in quals} & _NUMPY or len(quals) != 1:
            return
        first = node.args[0]
        if first.keyword is not None or first.star or self.flow.kind(first.value) is not Data.BATCH:
            return
        self.ctx.report(
            self.code,
            node,
            "numpy of a `Batch` is a 0-d object array",
            hint="use `np.asarray(ndd.as_tensor(batch))` (or `batch.tensors[i]` for one sample)",
            fixed=False,
        )
