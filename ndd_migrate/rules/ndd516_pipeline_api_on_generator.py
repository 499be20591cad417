"""NDD516 pipeline-api-on-generator: pipeline-mode API on what a migrated pipeline function gives.

A module's own generator functions in the shape `migrate` writes (``migrated_shape.migrated_pipelines``:
a ``while True:`` that yields, in a function that spells the ``ndd`` name, or the epoch-aware shape
that returns its reader's metadata and such a generator) are recognised; names bound once from a
call of one (the second of two names unpacked, for the epoch-aware shape) are followed to their
reads in that scope. Functions imported from a
module migrated before are NDD002/NDD003/NDD008's (``ndd_migrate.model.crossfile``).
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ScopeProvider

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model import migrated_shape

#: What a pipeline has and a generator has not, with what to write instead.
INSTEAD = {
    "build": "drop it: the generator needs no build",
    "run": "call `next(<it>)`",
    "schedule_run": "call `next(<it>)`: dynamic mode has no separate scheduling",
    "share_outputs": "call `next(<it>)`: dynamic mode has no separate scheduling",
    "outputs": "call `next(<it>)`: dynamic mode has no separate scheduling",
    "release_outputs": "drop it: there is nothing to release",
    "epoch_size": "read `reader.get_metadata()` inside the generator function, or count the batches",
    "reader_meta": "read `reader.get_metadata()` inside the generator function",
    "reset": "call the generator function again for a new one",
    "max_batch_size": "use the batch size the generator function is called with",
    "feed_input": "pass the data to the generator function (or read it inside)",
    "checkpoint": "use `ndd.checkpoint.Checkpoint` with the reader and RNG registered",
    "len": "count the batches with the reader's metadata (`reader.get_metadata()`)",
}

RULE = Rule(
    code="NDD516",
    name="pipeline-api-on-generator",
    summary="pipeline-mode API (`.build()`, `.run()`, `.epoch_size()`, `len()`) on a migrated pipeline's generator",
    what=(
        "In a module with generator functions in the migrated shape (a `while True:` loop that yields, in a "
        "function that uses `ndd`), finds `x.build()`, `x.run()`, `x.schedule_run()`, `x.share_outputs()`, "
        "`x.epoch_size()`, `x.reset()`, `x.max_batch_size`, `len(x)` and the like where `x` is bound once from "
        "a call of one of them, or unpacked beside the reader's metadata from a call of one in the epoch-aware "
        "shape (`x_meta, x = p(...)`)."
    ),
    why=(
        "Calling the migrated function gives a generator: each of these is an `AttributeError` or a "
        "`TypeError` at run time, typically after the first epoch, in code that a hand edit or a partial "
        "migration left in pipeline mode."
    ),
    fix_safety=FixSafety.MANUAL,
    fix="Manual: the hint says what to write instead; `migrate` rewrites these uses when it converts the pipeline.",
    examples=(
        Example(
            before=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def train_pipe(*, batch_size=2):\n"
                "    reader = ndd.readers.File(file_root='/data')\n"
                "    while True:\n"
                "        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
                "            yield labels.evaluate(),\n\n\n"
                "pipe = train_pipe()\n"
                "pipe.build()\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def train_pipe(*, batch_size=2):\n"
                "    reader = ndd.readers.File(file_root='/data')\n"
                "    while True:\n"
                "        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
                "            yield labels.evaluate(),\n\n\n"
                "pipe = train_pipe()\n"
                "# TODO(ndd-migrate): NDD516 drop it: the generator needs no build\n"
                "pipe.build()\n"
            ),
        ),
    ),
    valid=(
        "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
        "def train_pipe(*, batch_size=2):\n"
        "    while True:\n"
        "        yield ndd.random.uniform(batch_size=batch_size),\n\n\n"
        "pipe = train_pipe()\n"
        "(x,) = next(pipe)\n",
        # a generator outside the migrated shape
        "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
        "def counter():\n"
        "    while True:\n"
        "        yield 1\n\n\n"
        "c = counter()\n"
        "c.build()\n",
    ),
)


class Impl(RuleImpl):
    rule = RULE

    def visit_Module(self, node: cst.Module) -> None:
        """The reads of names bound once from a call of a generator function in the migrated shape,
        each with the generator function's name (original nodes)."""
        self._reads: dict[cst.Name, str] = {}
        if self.ctx.model.names.ndd is None or not any(_loops_forever(s) for s in node.body):
            return  # the text is made (and parsed again) only for a module that may have the shape
        generators, epochs = migrated_shape.migrated_shapes(node.code.encode("utf-8", "surrogatepass"))
        if not (generators or epochs):
            return
        for found in self.ctx.model.parents:
            target = _generator_bound(found, generators, epochs)
            if target is None:
                continue
            scope = self.ctx.resolver.get_metadata(ScopeProvider, found, None)
            if scope is None or len(scope.assignments[target.value]) != 1:
                continue
            for assignment in scope.assignments[target.value]:
                self._reads.update((access.node, found.value.func.value) for access in assignment.references)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.value in self._reads and node.attr.value in INSTEAD and node.attr.value != "len":
            self._report(node, node.value, f"`.{node.attr.value}`", node.attr.value)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name) and func.value == "len" and len(node.args) == 1:
            value = node.args[0].value
            if value in self._reads:
                self._report(node, value, "`len()`", "len")

    def _report(self, node: cst.CSTNode, value: cst.Name, what: str, key: str) -> None:
        self.ctx.report(
            self.code,
            node,
            f"{what} of `{value.value}`, a generator from `{self._reads[value]}()`: it has none",
            hint=INSTEAD[key].replace("<it>", value.value),
            fixed=False,
        )


def _generator_bound(node: cst.CSTNode, generators: set[str], epochs: set[str]) -> cst.Name | None:
    """The name ``node`` binds a generator to: ``pipe = p(...)`` of a generator function ``p``, or
    ``pipe_meta, pipe = p(...)`` of one in the epoch-aware shape; else None."""
    if not (
        isinstance(node, cst.Assign)
        and len(node.targets) == 1
        and isinstance(node.value, cst.Call)
        and isinstance(node.value.func, cst.Name)
    ):
        return None
    target, called = node.targets[0].target, node.value.func.value
    if isinstance(target, cst.Name) and called in generators:
        return target
    if (
        isinstance(target, (cst.Tuple, cst.List))
        and called in epochs
        and len(target.elements) == 2
        and isinstance(target.elements[1].value, cst.Name)
    ):
        return target.elements[1].value
    return None


def _loops_forever(statement: cst.CSTNode) -> bool:
    """A top-level function with a ``while`` statement in its body, or in the body of a function
    defined in it (the migrated shapes' loop; the epoch-aware shape's is in its nested generator)."""
    if not isinstance(statement, cst.FunctionDef) or not isinstance(statement.body, cst.IndentedBlock):
        return False
    body = statement.body.body
    return any(isinstance(s, cst.While) for s in body) or any(_loops_forever(s) for s in body)
