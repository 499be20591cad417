"""NDD517 mixed-device-arithmetic: arithmetic of a CPU and a GPU value in dynamic-mode code raises."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.operand_rule import OperandRule
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.values.ndd_devices import HandWritten
from ndd_migrate.syntax import cstutil

RULE = Rule(
    code="NDD517",
    name="mixed-device-arithmetic",
    summary="arithmetic of a CPU and a GPU batch raises in dynamic mode; move the CPU operand with `.gpu()`",
    what=(
        "In hand-written dynamic-mode code, follows each value's device through a function in the order it runs "
        "(`ndd.<op>(...)` where its `device=` says or where its inputs are, a reader's batches on the reader's "
        "device, `.gpu()`/`.cpu()`) and finds arithmetic (`a * b`, a comparison, `x += y`, an `ndd.math` function) "
        "with an operand on the CPU and another on the GPU wherever the function runs. Values whose device only "
        "the caller knows (parameters) are not judged."
    ),
    why=(
        "Dynamic mode's arithmetic raises `ValueError: Cannot mix GPU and CPU inputs.` (DALI 2.4.0, "
        "`_arithmetic.py`); pipeline mode moved the CPU operand to the GPU, so code written by its habits fails "
        "on its first batch, on GPU machines only."
    ),
    fix_safety=FixSafety.SAFE,
    fix="`.gpu()` on the CPU operand: the operation then runs where it could only run, on the GPU.",
    examples=(
        Example(
            before=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def batches(root):\n"
                "    reader = ndd.readers.File(file_root=root)\n"
                "    for jpegs, labels in reader.next_epoch(batch_size=8):\n"
                '        images = ndd.decoders.image(jpegs, device="gpu")\n'
                "        yield images * ndd.random.uniform(range=[0.5, 1.5], batch_size=8)\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def batches(root):\n"
                "    reader = ndd.readers.File(file_root=root)\n"
                "    for jpegs, labels in reader.next_epoch(batch_size=8):\n"
                '        images = ndd.decoders.image(jpegs, device="gpu")\n'
                "        yield images * ndd.random.uniform(range=[0.5, 1.5], batch_size=8).gpu()\n"
            ),
        ),
    ),
    valid=(
        # both on the GPU; a parameter's device is its caller's business
        (
            "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
            "def scale(images, factor):\n"
            '    images = ndd.decoders.image(images, device="gpu")\n'
            '    return images * factor + ndd.random.uniform(range=[0, 1], batch_size=8, device="gpu")\n'
        ),
    ),
)


class Impl(OperandRule):
    rule = RULE

    def visit_Module(self, node: cst.Module) -> None:
        self._cpu: dict[cst.BaseExpression, cst.CSTNode] = {}
        if not self.ctx.model.names.ndd:
            return  # no dynamic-mode code of its own
        run = HandWritten(self.ctx)
        run.run_module(node)
        self._cpu = run.cpu_operands()

    def operand(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
        if original not in self._cpu:
            return updated
        operand = cstutil.code(original)
        fixed = self.ctx.applies(self.code, original)
        self.ctx.report(
            self.code,
            original,
            f"`{operand}` is on the CPU and `{cstutil.code(self._cpu[original])}` mixes it with a GPU value",
            hint=f"write `{operand}.gpu()`",
            fixed=fixed,
        )
        return cstutil.with_gpu(updated) if fixed else updated
