"""NDD005 pipeline-object: the reader metadata a pipeline object gave, on the migrated pipeline."""

from __future__ import annotations

import libcst as cst

from ndd_migrate import iterators, plan
from ndd_migrate.analysis import Kind, migrated_before
from ndd_migrate.catalog import Example, Rule
from ndd_migrate.diagnostics import FixSafety
from ndd_migrate.rules.base import RuleImpl

RULE = Rule(
    code="NDD005",
    name="pipeline-object",
    summary="`pipe.epoch_size(name)` / `pipe.reader_meta(name)` become the reader's metadata",
    what=(
        "For a pipeline migrated in the epoch-aware shape (docs/target-shape.md, \"Framework iterators\"), "
        "`pipe.epoch_size(name)` becomes `pipe_meta[\"epoch_size\"]` and `pipe.reader_meta(name)` becomes "
        "`pipe_meta`, the reader's `get_metadata()`. Any other use of a pipeline object that no rule "
        "rewrites (`pipe.schedule_run()`, `self.pipe = ...`, passing it to a helper) keeps the pipeline "
        "unconverted: NDD008 says which and why."
    ),
    why=(
        "After migration the object is a generator of batches, which has no `epoch_size()`; the reader "
        "it was asked about is inside the migrated function, and its metadata has the same keys."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "Applied together with NDD001 and NDD411: the call site becomes `pipe_meta, pipe = p(...)`. "
        "`.epoch_size()` without exactly one reader name is marked for a human."
    ),
    examples=(
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


#: Attributes a generator has: on a pipeline migrated before this run (its call sites may use the
#: generator already) they are no findings.
_GENERATOR_ATTRIBUTES = frozenset(
    {"close", "send", "throw", "__next__", "__iter__", "gi_frame", "gi_running", "gi_code", "gi_yieldfrom"}
)


class Impl(RuleImpl):
    rule = RULE

    def claims(self, use):
        """``pipe.epoch_size(name)`` / ``pipe.reader_meta(name)`` of an epoch-aware pipeline; and
        every generator use of a pipeline that another file migrated before this run (``next(pipe)``,
        passing it on, ``pipe.close()``): that code already uses the generator."""
        if use.kind is Kind.PIPELINE and migrated_before(use.pipeline):
            if use.context not in (plan.METHOD, plan.ATTRIBUTE) or use.detail in _GENERATOR_ATTRIBUTES:
                return True
        if use.kind is not Kind.PIPELINE or use.context != plan.METHOD or use.detail not in iterators.METADATA_METHODS:
            return None
        fn = use.pipeline
        if not (getattr(fn, "epochs", False) and self._named(use.node)):
            return "the reader's metadata is given only by the epoch-aware shape (one plain `pipe = p(...)` per call site)"
        return self.ctx.applies(self.code, use.holder) or None

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
                hint=f"use `{cst.Module([]).code_for_node(iterators.meta_of(pipe))}`, the metadata of the pipeline's one reader",
                fixed=False,
            )
            return updated
        if not self.ctx.applies(self.code, original):
            return updated
        meta = iterators.meta_of(pipe)
        self.ctx.report(self.code, original, f"`.{method}(...)` → the reader's `get_metadata()`", fixed=True)
        if method == "reader_meta":
            return meta
        quote = _quote(original.args[0].value)  # the argument's quotes: safe inside an f-string
        return cst.Subscript(meta, [cst.SubscriptElement(cst.Index(cst.SimpleString(f"{quote}epoch_size{quote}")))])

    def _epoch_aware(self, pipe):
        if pipe is None:
            return None
        fn = self.ctx.converted_kind(pipe, Kind.PIPELINE)
        return fn if fn is not None and fn.epochs and self._named(pipe) else None

    def _named(self, pipe) -> bool:
        """A plain name, or an attribute of ``self`` followed like one (``self.pipe``), with room
        for the metadata beside it."""
        return isinstance(pipe, cst.Name) or iterators.followed_attribute(self.ctx.model, pipe) is not None


def _quote(node: cst.BaseExpression) -> str:
    return node.quote if isinstance(node, cst.SimpleString) and node.quote in ("'", '"') else '"'
