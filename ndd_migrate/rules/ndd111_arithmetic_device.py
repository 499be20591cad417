"""NDD111 arithmetic-device: a CPU operand of arithmetic with a GPU value is moved to the GPU."""

from __future__ import annotations

import libcst as cst

from ndd_migrate import support
from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.operand_rule import OperandRule
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.values import devices, graph_code
from ndd_migrate.syntax import cstutil

RULE = Rule(
    code="NDD111",
    name="arithmetic-device",
    summary="pipeline mode moved a CPU operand of arithmetic to the GPU; dynamic mode refuses the mix",
    what=(
        'In graph code whose values can be on the GPU (an op with `device="gpu"`/`"mixed"` or a device only the '
        "run knows, `x.gpu()`), follows each value's device in the order the code runs, through the helpers the "
        "pipeline calls (each with the devices its callers give it), and finds the arithmetic (`a * b`, a "
        "comparison, `x += y`, an `nvidia.dali.math` function) whose operands can be on different devices. An "
        "operand on the CPU whose partner is on the GPU every time it runs gets `.gpu()`; one whose partner's "
        "device changes from call to call or is decided at run time (`if load_to_gpu: img = img.gpu()`) becomes "
        "`to_gpu_with(operand, partner)` of the support module, which moves it when the partner is on the GPU. "
        "Where the partner is an expression whose device only the run knows, the pipeline is not migrated and the "
        "TODO says which operand."
    ),
    why=(
        "Pipeline mode ran an arithmetic operation on the GPU when one of its inputs was there and copied the "
        "others to it. Dynamic mode's arithmetic raises `ValueError: Cannot mix GPU and CPU inputs.` instead "
        "(Python numbers and lists it places itself): `images * fn.random.uniform(...)` with GPU-decoded images "
        "fails on its first batch, and only on a machine with a GPU, where CPU-only tests do not look."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "Applied with the pipeline rewrite (NDD001): the same values, computed on the device pipeline mode "
        "computed them on; nothing moves where pipeline mode moved nothing."
    ),
    examples=(
        Example(
            title="a CPU random number scales GPU images",
            before=(
                "import nvidia.dali.fn as fn\n"
                "from nvidia.dali import pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p(root):\n"
                "    jpegs, labels = fn.readers.file(file_root=root)\n"
                '    images = fn.decoders.image(jpegs, device="mixed")\n'
                "    return images * fn.random.uniform(range=[0.5, 1.5]), labels\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def p(root, *, batch_size=2):\n"
                "    reader = ndd.readers.File(file_root=root)\n"
                "    while True:\n"
                "        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
                '            images = ndd.decoders.image(jpegs, device="gpu")\n'
                "            yield (images * ndd.random.uniform(range=[0.5, 1.5], batch_size=batch_size).gpu()).evaluate(), "
                "labels.evaluate()\n"
            ),
        ),
    ),
    valid=(
        # arithmetic outside graph code: numpy's, not DALI's
        "import numpy as np\n\nscaled = np.ones([3]) * np.float32(2)\n",
    ),
)


def analyse(graph: graph_code.Graph, found: graph_code.GraphFacts) -> None:
    """Decide every operand of the graph code's arithmetic: moved (``found.moves``), left, or a
    problem of each pipeline whose graph runs it."""
    from ndd_migrate.model.types import Problem

    run = devices.Devices(graph)
    run.run()
    moves, undecided = run.moves()
    problems = [(operation, operand, _UNDECIDED) for operation, operand in undecided]
    for operation, operand, move in moves:
        if isinstance(operation.node, cst.AugAssign) and operand is operation.node.target:
            problems.append((operation, operand, _TARGET))  # moving `x` of `x *= y` is a statement of its own
            continue
        found.moves[operand] = move
        found.move_owners.setdefault(operand, set()).update(graph.reached_by.get(operation.function, ()))
    told: set[cst.CSTNode] = set()
    for operation, operand, (why, hint) in problems:
        if operation.node in told:
            continue
        told.add(operation.node)
        message = f"`{cstutil.code(operation.node)}`: `{cstutil.code(operand)}` {why}"
        for pipeline in graph.reached_by.get(operation.function, ()):
            pipeline.problems.append(Problem(RULE.code, operation.node, message, hint))


#: Why an operand cannot be moved, and what to do: its partner's device only the run knows and no
#: name tells it; the target of an augmented assignment.
_UNDECIDED = (
    "may be on the CPU while another operand is on the GPU, which only the run decides; pipeline mode moved it to "
    "the GPU, dynamic mode refuses to mix devices",
    "bind each operand to a name first (`scale = ...`), so that the migration can move it when its partner is on "
    "the GPU, or move it yourself with `.gpu()`, then run the migration again",
)
_TARGET = (
    "may be on the CPU while the value is on the GPU: pipeline mode moved it, dynamic mode refuses to mix devices, "
    "and the migration does not move the target of an augmented assignment",
    "spell the operation out with the target moved (`x = x.gpu() * y`), then run the migration again",
)


class Impl(OperandRule):
    """Writes the moves :func:`analyse` decided."""

    rule = RULE

    def blockers(self, pipe_def):
        """Decides, once per module, every arithmetic operand of the graph code (``analyse``). A
        move this run may not write (``# noqa``, the rule not selected) keeps the pipeline."""
        found = graph_code.analysed(self, analyse)
        return [
            (
                operand,
                (
                    f"`{cstutil.code(operand)}` is not moved to the GPU here (`# noqa: {self.code}` or the rule not "
                    "selected): dynamic mode refuses arithmetic of a CPU and a GPU value"
                ),
                f"let {self.code} move it, or write `.gpu()` yourself, then run the migration again",
            )
            for operand in graph_code.unrewritable(self, pipe_def, found.move_owners)
        ]

    def operand(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
        move = graph_code.facts(self.ctx.model).moves.get(original)
        if move is None or not self.ctx.may_rewrite_dali_calls():
            return updated
        operand = cstutil.code(original)
        if move.witnesses:
            partners = ", ".join(move.witnesses)
            written = f"to_gpu_with({operand}, {partners})"
            message = f"`{operand}` goes to the GPU when `{partners}` is there (pipeline mode moved it) → `{written}`"
        else:
            written = f"{operand}.gpu()"
            message = f"`{operand}` is on the CPU, its partner on the GPU (pipeline mode moved it) → `{written}`"
        fixed = self.ctx.applies(self.code, original)
        self.ctx.report(self.code, original, message, hint=f"write `{written}`", fixed=fixed)
        if not fixed:
            return updated
        if move.witnesses:
            bare = updated.with_changes(lpar=(), rpar=()) if updated.lpar else updated
            args = [cst.Arg(bare), *(cst.Arg(cst.Name(w)) for w in move.witnesses)]
            return cst.Call(self.ctx.support(support.TO_GPU_WITH), args)
        return cstutil.with_gpu(updated)
