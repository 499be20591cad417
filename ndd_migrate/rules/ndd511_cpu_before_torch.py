"""NDD511 cpu-before-torch: ``batch.cpu().torch()`` copies GPU data to the host for PyTorch."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.flow_rule import FlowRule
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.values.ndd_flow import is_data

RULE = Rule(
    code="NDD511",
    name="cpu-before-torch",
    summary="`.cpu().torch()` is a device round trip; `.torch()` hands GPU data to PyTorch in place",
    what="Finds `.cpu().torch(...)` on a value known to be an ndd `Batch` or `Tensor` and removes the `.cpu()`.",
    why=(
        "`.torch()` wraps the data where it lives (DLPack, no copy by default); on GPU data `.cpu()` first "
        "copies everything to host memory, and training code then usually moves it back with `.cuda()`. On "
        "CPU data `.cpu()` returns the object itself, so it is only noise."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "Unsafe: for GPU data the resulting torch tensor is now on the GPU, not the CPU; code that needs a "
        "host tensor (numpy conversion, CPU-only models) must move it itself."
    ),
    examples=(
        Example(
            before=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "reader = ndd.readers.File(file_root='/data')\n"
                "for jpegs, labels in reader.next_epoch(batch_size=8):\n"
                "    images = ndd.decoders.image(jpegs, device='gpu')\n"
                "    x = images.cpu().torch().cuda()\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "reader = ndd.readers.File(file_root='/data')\n"
                "for jpegs, labels in reader.next_epoch(batch_size=8):\n"
                "    images = ndd.decoders.image(jpegs, device='gpu')\n"
                "    x = images.torch().cuda()\n"
            ),
        ),
    ),
    valid=(
        (
            "import nvidia.dali.experimental.dynamic as ndd\n\nb = ndd.random.uniform(batch_size=2, shape=[2])\n"
            "x = b.torch()\ny = b.cpu()\n"
        ),
        # not known to be ndd data (a torch tensor has `.cpu()` too)
        "def f(t):\n    return t.cpu().torch()\n",
    ),
)


class Impl(FlowRule):
    rule = RULE

    def leave_Call(self, original: cst.Call, updated: cst.BaseExpression) -> cst.BaseExpression:
        receiver = _cpu_receiver(original)
        if receiver is None or not is_data(self.flow.kind(receiver)):
            return updated
        inner = _cpu_receiver(updated) if isinstance(updated, cst.Call) else None
        fixed = inner is not None and self.ctx.applies(self.code, original)
        self.ctx.report(
            self.code,
            original,
            "`.cpu()` before `.torch()` copies the data to the host",
            hint="call `.torch()` directly (it keeps GPU data on the GPU)",
            fixed=fixed,
        )
        if not fixed:
            return updated
        return updated.with_changes(func=updated.func.with_changes(value=inner))


def _cpu_receiver(call: cst.Call) -> cst.BaseExpression | None:
    """``x`` of ``x.cpu().torch(...)``, else None."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "torch"):
        return None
    inner = func.value
    if (
        isinstance(inner, cst.Call)
        and not inner.args
        and isinstance(inner.func, cst.Attribute)
        and inner.func.attr.value == "cpu"
    ):
        return inner.func.value
    return None
