"""NDD005 pipeline-object: uses of a pipeline object other than ``build()``/``run()``."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.analysis import Kind
from ndd_migrate.catalog import Example, Rule
from ndd_migrate.diagnostics import FixSafety
from ndd_migrate.rules.base import RuleImpl

HINTS = {
    "epoch_size": "use `reader.get_metadata()['epoch_size']` of the reader inside the migrated function",
    "reader_meta": "use `reader.get_metadata()` of the reader inside the migrated function",
    "reset": "create a new generator by calling the migrated function again",
    "schedule_run": "call `next(pipe)`; dynamic mode has no separate scheduling",
    "share_outputs": "call `next(pipe)`; dynamic mode has no separate scheduling",
    "outputs": "call `next(pipe)`; dynamic mode has no separate scheduling",
    "release_outputs": "nothing to release: drop the call",
    "checkpoint": "use ndd.checkpoint.Checkpoint with the reader and RNG registered",
    "serialize": "dynamic mode cannot serialize a pipeline; keep the pipeline-mode code for that use",
}

RULE = Rule(
    code="NDD005",
    name="pipeline-object",
    summary="this use of a pipeline object has no counterpart on the migrated generator",
    what=(
        "Reports uses of an object returned by a migrated pipeline function other than `build()` and "
        "`run()`: other methods (`epoch_size`, `reset`, `schedule_run`, `checkpoint`, ...) and passing the "
        "object to other code (a framework iterator, a helper). Each report says what to use instead."
    ),
    why=(
        "After migration the object is a generator of batches. Code that expects a `Pipeline` (its "
        "methods, a `DALIGenericIterator`) would fail at run time."
    ),
    fix_safety=FixSafety.MANUAL,
    fix="No automatic fix: the replacement depends on what the surrounding code does with the pipeline.",
    examples=(
        Example(
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    return fn.random.uniform()\n\n\n"
                "pipe = p()\n"
                "n = pipe.epoch_size('Reader')\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def p(*, batch_size=2):\n"
                "    while True:\n"
                "        yield ndd.random.uniform(batch_size=batch_size),\n\n\n"
                "pipe = p()\n"
                "# TODO(ndd-migrate): NDD005 use `reader.get_metadata()['epoch_size']` of the reader inside the "
                "migrated function\n"
                "n = pipe.epoch_size('Reader')\n"
            ),
        ),
    ),
)


class Impl(RuleImpl):
    rule = RULE

    def leave_Attribute(self, original: cst.Attribute, updated):
        attr = original.attr.value
        if attr in ("build", "run") or self.ctx.converted_kind(original.value, Kind.PIPELINE) is None:
            return updated
        self.ctx.report(
            self.code, original, f"`.{attr}` of a pipeline object has no counterpart on the migrated generator",
            hint=HINTS.get(attr, f"`.{attr}` does not exist on the migrated generator; rewrite this use"),
            fixed=False,
        )
        return updated

    def leave_Arg(self, original: cst.Arg, updated):
        if self.ctx.converted_kind(original.value, Kind.PIPELINE) is None:
            return updated
        self.ctx.report(
            self.code, original, "a pipeline object is passed on; it is now a generator of batches",
            hint="the callee gets a generator: take batches with `next(pipe)` (framework iterators: see NDD4xx)",
            fixed=False,
        )
        return updated

    def leave_Element(self, original: cst.Element, updated):
        if self.ctx.converted_kind(original.value, Kind.PIPELINE) is None:
            return updated
        self.ctx.report(
            self.code, original, "a pipeline object is put in a collection; it is now a generator of batches",
            hint="code that consumes this collection gets generators: take batches with `next(pipe)`",
            fixed=False,
        )
        return updated
