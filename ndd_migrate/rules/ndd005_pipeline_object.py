"""NDD005 pipeline-object: uses of a pipeline object other than ``build()``/``run()``."""

from __future__ import annotations

import libcst as cst

from ndd_migrate import iterators
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
        "object to other code (a framework iterator, a helper). Each report says what to use instead. "
        "For a pipeline migrated in the epoch-aware shape (docs/target-shape.md, \"Framework iterators\"), "
        "`pipe.epoch_size(name)` becomes `pipe_meta[\"epoch_size\"]` and `pipe.reader_meta(name)` becomes "
        "`pipe_meta`, the reader's `get_metadata()`."
    ),
    why=(
        "After migration the object is a generator of batches. Code that expects a `Pipeline` (its "
        "methods, a `DALIGenericIterator`) would fail at run time."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "`epoch_size(name)`/`reader_meta(name)` of an epoch-aware pipeline are rewritten (together with "
        "NDD001 and NDD411); every other use is left for a human: the replacement depends on what the "
        "surrounding code does with the pipeline."
    ),
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
                "        yield ndd.random.uniform(batch_size=batch_size).evaluate(),\n\n\n"
                "pipe = p()\n"
                "# TODO(ndd-migrate): NDD005 use `reader.get_metadata()['epoch_size']` of the reader inside the "
                "migrated function\n"
                "n = pipe.epoch_size('Reader')\n"
            ),
        ),
        Example(
            title="reader metadata of a pipeline with a reader: epoch-aware shape",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p(root):\n"
                "    (data,) = fn.readers.numpy(file_root=root, name='Reader')\n"
                "    return data\n\n\n"
                "pipe = p('/data')\n"
                "n = pipe.epoch_size('Reader')\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def p(root, *, batch_size=2):\n"
                "    reader = ndd.readers.Numpy(file_root=root, name='Reader', max_batch_size=batch_size)\n\n"
                "    def batches():\n"
                "        while True:\n"
                "            for (data,) in reader.next_epoch(batch_size=batch_size):\n"
                "                yield data.evaluate(),\n\n"
                "    return reader.get_metadata(), batches()\n\n\n"
                "pipe_meta, pipe = p('/data')\n"
                "n = pipe_meta['epoch_size']\n"
            ),
        ),
    ),
)


class Impl(RuleImpl):
    rule = RULE

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.iterator_args: set[cst.Arg] = set()  # handled by NDD411

    def visit_Call(self, node: cst.Call) -> None:
        if iterators.epoch_aware(node, self.dali_name(node.func)) is not None:
            self.iterator_args.add(node.args[0])

    def leave_Call(self, original: cst.Call, updated):
        """``pipe.epoch_size(name)`` / ``pipe.reader_meta(name)`` of an epoch-aware pipeline."""
        pipe = iterators.metadata_receiver(original)
        fn = self._epoch_aware(pipe)
        if fn is None:
            return updated
        method = original.func.attr.value
        if len(original.args) != 1 or original.args[0].keyword is not None:
            self.ctx.report(
                self.code, original, f"`.{method}()` without one reader name gives a dict by reader name",
                hint=f"use `{iterators.meta_name(pipe.value)}`, the metadata of the pipeline's one reader", fixed=False,
            )
            return updated
        if not self.ctx.applies(self.code, original):
            return updated
        meta = cst.Name(iterators.meta_name(pipe.value))
        self.ctx.report(self.code, original, f"`.{method}(...)` → the reader's `get_metadata()`", fixed=True)
        if method == "reader_meta":
            return meta
        quote = _quote(original.args[0].value)  # the argument's quotes: safe inside an f-string
        return cst.Subscript(meta, [cst.SubscriptElement(cst.Index(cst.SimpleString(f"{quote}epoch_size{quote}")))])

    def _epoch_aware(self, pipe):
        if pipe is None:
            return None
        fn = self.ctx.converted_kind(pipe, Kind.PIPELINE)
        return fn if fn is not None and fn.epochs and isinstance(pipe, cst.Name) else None

    def leave_Attribute(self, original: cst.Attribute, updated):
        attr = original.attr.value
        if attr in ("build", "run") or self.ctx.converted_kind(original.value, Kind.PIPELINE) is None:
            return updated
        if attr in iterators.METADATA_METHODS and self._epoch_aware(original.value):
            return updated  # leave_Call rewrites the call
        if attr == "checkpoint" and self.ctx.converted_kind(original.value, Kind.PIPELINE).checkpointing:
            return updated  # NDD415
        self.ctx.report(
            self.code, original, f"`.{attr}` of a pipeline object has no counterpart on the migrated generator",
            hint=HINTS.get(attr, f"`.{attr}` does not exist on the migrated generator; rewrite this use"),
            fixed=False,
        )
        return updated

    def leave_Arg(self, original: cst.Arg, updated):
        if original in self.iterator_args or self.ctx.converted_kind(original.value, Kind.PIPELINE) is None:
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


def _quote(node: cst.BaseExpression) -> str:
    return node.quote if isinstance(node, cst.SimpleString) and node.quote in ("'", '"') else '"'
