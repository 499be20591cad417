"""NDD506 reader-in-loop: a reader constructed anew for every epoch repeats the same order."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ScopeProvider

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.flow_rule import FlowRule
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.values.ndd_flow import Data
from ndd_migrate.syntax import tree
from ndd_migrate.syntax.cstutil import SkipsTrivia

RULE = Rule(
    code="NDD506",
    name="reader-in-loop",
    summary="a reader created inside the epoch loop starts over every epoch",
    what=(
        "Finds an ndd reader constructed inside a loop that also iterates it (`reader.next_epoch()` in the "
        "same loop body), or inside a `for epoch in ...` loop (any loop variable whose name contains "
        "`epoch`)."
    ),
    why=(
        "A reader is meant to be created once and asked for one epoch after another. A fresh reader starts "
        "from its initial state every time: with `random_shuffle=True` or `shuffle_after_epoch=True` and no "
        "seed, DALI 2.4.0 gave the same sample order in every epoch from fresh readers (8 files: "
        "`[4, 1, 2, 5, 3, 7, 6, 0]` three times), while one reader reshuffled each epoch. It also pays the "
        "reader's start-up (listing files, filling the shuffle buffer) every epoch."
    ),
    fix_safety=FixSafety.MANUAL,
    fix="Manual: move the construction before the loop (its arguments may depend on loop variables).",
    examples=(
        Example(
            before=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "for epoch in range(10):\n"
                "    reader = ndd.readers.File(file_root='/data', random_shuffle=True)\n"
                "    for jpegs, labels in reader.next_epoch(batch_size=8):\n"
                "        pass\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "for epoch in range(10):\n"
                "    # TODO(ndd-migrate): NDD506 create the reader once, before the loop, and call "
                "`next_epoch()` on it each epoch\n"
                "    reader = ndd.readers.File(file_root='/data', random_shuffle=True)\n"
                "    for jpegs, labels in reader.next_epoch(batch_size=8):\n"
                "        pass\n"
            ),
        ),
        Example(
            before=(
                "import nvidia.dali.experimental.dynamic as d\n\n"
                "while True:\n"
                "    for jpegs, labels in d.readers.File(file_root='/data').next_epoch(batch_size=8):\n"
                "        pass\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as d\n\n"
                "while True:\n"
                "    # TODO(ndd-migrate): NDD506 create the reader once, before the loop, and call "
                "`next_epoch()` on it each epoch\n"
                "    for jpegs, labels in d.readers.File(file_root='/data').next_epoch(batch_size=8):\n"
                "        pass\n"
            ),
            title="iterated where it is created",
        ),
    ),
    valid=(
        (
            "import nvidia.dali.experimental.dynamic as ndd\n\n"
            "reader = ndd.readers.File(file_root='/data')\n"
            "for epoch in range(10):\n"
            "    for jpegs, labels in reader.next_epoch(batch_size=8):\n"
            "        pass\n"
        ),
        # one reader per directory, each read once
        (
            "import nvidia.dali.experimental.dynamic as ndd\n\n"
            "for root in roots:\n"
            "    readers.append(ndd.readers.File(file_root=root))\n"
        ),
        # a single loop over a fresh reader is one epoch
        (
            "import nvidia.dali.experimental.dynamic as ndd\n\n"
            "for jpegs, labels in ndd.readers.File(file_root='/data').next_epoch(batch_size=8):\n"
            "    pass\n"
        ),
    ),
)


class Impl(FlowRule):
    rule = RULE

    def visit_Call(self, node: cst.Call) -> None:
        if self.flow.kind(node) is not Data.READER:
            return
        for loop in reversed(self.loops()):
            if self._in_body(node, loop) and (_epoch_loop(loop) or self._iterates(loop, node)):
                self.ctx.report(
                    self.code,
                    node,
                    "a reader constructed in the loop starts over every epoch",
                    hint="create the reader once, before the loop, and call `next_epoch()` on it each epoch",
                    fixed=False,
                )
                return

    def _in_body(self, node: cst.CSTNode, loop: cst.CSTNode) -> bool:
        """Inside the loop's body, not its header (``for x in reader.next_epoch()`` is one epoch)."""
        return self.ctx.line_of(node)[:2] >= self.ctx.line_of(loop.body)[:2]

    def _iterates(self, loop: cst.CSTNode, reader: cst.Call) -> bool:
        """Does the loop body call ``next_epoch`` on this very reader (directly, or a name bound to it)?"""
        targets = {n for n, b in self.flow.bindings.items() if b[0] == "value" and b[1] is reader}
        for receiver in _next_epoch_receivers(loop.body):
            if receiver is reader:
                return True
            if isinstance(receiver, cst.Name) and targets:
                scope = self.ctx.resolver.get_metadata(ScopeProvider, receiver, None)
                if scope is not None and targets & {a.node for a in scope[receiver.value]}:
                    return True
        return False


def _epoch_loop(loop: cst.CSTNode) -> bool:
    return isinstance(loop, cst.For) and isinstance(loop.target, cst.Name) and "epoch" in loop.target.value.lower()


def _next_epoch_receivers(body: cst.CSTNode) -> list[cst.BaseExpression]:
    """``x`` of every ``x.next_epoch(...)`` in ``body`` (nested functions included: they run per epoch too)."""
    found: list[cst.BaseExpression] = []

    class Visitor(SkipsTrivia, cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            if isinstance(call.func, cst.Attribute) and call.func.attr.value == "next_epoch":
                found.append(call.func.value)

    tree.visit(body, Visitor())
    return found
