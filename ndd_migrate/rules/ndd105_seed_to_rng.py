"""NDD105 seed-to-rng: pipeline and per-op seeds become ``ndd.random.RNG`` objects passed as ``rng=``."""

from __future__ import annotations

import libcst as cst

from ndd_migrate import support
from ndd_migrate.codegen import reader_seed, shape
from ndd_migrate.dali.tables import op_info
from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.values import graph_helpers
from ndd_migrate.syntax import cstutil, names

RULE = Rule(
    code="NDD105",
    name="seed-to-rng",
    summary="random ops take `rng=` in dynamic mode, not `seed=`",
    what=(
        "In a migrated pipeline function, a pipeline-level `seed` becomes `rng = ndd.random.RNG(seed=seed)` "
        "created once and passed as `rng=rng` to every random op (not created when no random op draws from it); a random op's own `seed=S` becomes its own "
        "`ndd.random.RNG(seed=S)`, also created once. A shuffling reader (`random_shuffle=`) without `seed=` "
        "gets the seed the pipeline gave it, `seed=dali_op_seed(seed, 0)` (imported from the project's "
        "support module, `ndd_support.py`: word 0 of `std::seed_seq{seed}`, as DALI's C++ pipeline derives it for the first operator "
        "of its graph), when the code shows the reader is that first operator; otherwise `seed=seed`, and "
        "the changed sample order is reported at the reader. "
        "Outside a pipeline function, `seed=` on a random op "
        "is reported (also in hand-written `ndd` code, where it is a `TypeError`)."
    ),
    why=(
        "Dynamic-mode random ops do not accept `seed=`. An RNG created per call would repeat the same "
        "numbers every batch; created once, it advances like the pipeline's generator. A dynamic-mode reader "
        "without `seed=` shuffles in one fixed order (DALI 2.4.0), the same on every rank, where the "
        "pipeline's order followed its seed (`seed=12 + rank`)."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "The same seed does not give the same numbers in both modes (the pipeline derives per-op seeds "
        "differently): the stream is reproducible, not identical. `verify` aligns random states to prove "
        "the translation instead. A reader given `seed=seed` (not the first operator) is seeded as "
        "before, but its order is not the pipeline's."
    ),
    examples=(
        Example(
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=8, seed=7)\n"
                "def noise():\n"
                "    a = fn.random.uniform(range=[0.0, 1.0])\n"
                "    b = fn.random.normal(seed=123)\n"
                "    return a, b\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def noise(*, batch_size=8, seed=7):\n"
                "    rng = ndd.random.RNG(seed=seed)\n"
                "    normal_rng = ndd.random.RNG(seed=123)\n"
                "    while True:\n"
                "        a = ndd.random.uniform(range=[0.0, 1.0], batch_size=batch_size, rng=rng)\n"
                "        b = ndd.random.normal(batch_size=batch_size, rng=normal_rng)\n"
                "        yield a.evaluate(), b.evaluate()\n"
            ),
        ),
        Example(
            title="a shuffling reader without a seed: the one the pipeline gave it",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=8, seed=7)\n"
                "def files(root):\n"
                "    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)\n"
                "    return fn.decoders.image(jpegs), labels\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import dali_op_seed, prefetching\n\n\n"
                "@prefetching\n"
                "def files(root, *, batch_size=8, seed=7):\n"
                "    reader = ndd.readers.File(file_root=root, random_shuffle=True, seed=dali_op_seed(seed, 0))\n"
                "    while True:\n"
                "        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
                "            yield ndd.decoders.image(jpegs).evaluate(), labels.evaluate()\n"
            ),
        ),
    ),
    valid=(
        "import nvidia.dali.experimental.dynamic as ndd\n\nrng = ndd.random.RNG(seed=1)\nx = ndd.random.normal(batch_size=2, rng=rng)\n",
    ),
)


class Impl(RuleImpl):
    rule = RULE

    def __init__(self, ctx) -> None:
        super().__init__(ctx)

    def _helpers(self) -> dict:
        return graph_helpers.threaded_helpers(self.ctx.resolver, self.ctx.model)

    def _in_helper(self, call: cst.Call) -> bool:
        return any(call in helper.randoms for helper in self._helpers().values())

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        """A helper building part of the graph (graph_helpers.threaded_helpers) takes ``rng=None``: the
        RNG of the generator that calls it (none when the pipeline had no seed)."""
        if original not in self._helpers() or not self.ctx.applies(self.code, original):
            return updated
        return updated.with_changes(params=shape.add_kwonly(updated.params, "rng", cst.Name("None")))

    def _helper_call(self, original: cst.Call, updated: cst.Call) -> cst.Call | None:
        """``processing(images)`` → ``processing(images, rng=rng)``: the caller's RNG, if it has one."""
        for node, helper in self._helpers().items():
            caller = helper.callers.get(original)
            if caller is None or not self.ctx.applies(self.code, node):
                continue
            if caller in self._helpers():
                return cstutil.add_kwarg(updated, "rng", cst.Name("rng"))
            owner = self.ctx.model.by_node.get(caller) or next(
                (p for p in self.ctx.model.pipelines.values() if getattr(p, "graph", None) is caller), None
            )
            rng = self.ctx.model.plan.pipeline_rng.get(owner.qualname) if owner is not None else None
            return cstutil.add_kwarg(updated, "rng", cst.Name(rng)) if rng else updated
        return None

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if isinstance(updated, cst.Call):
            threaded = self._helper_call(original, updated)
            if threaded is not None:
                return threaded
        dali = self.dali_name(original.func)
        path = names.fn_path(dali)
        if path is None and names.is_ndd(dali):
            return self._ndd_seed(original, updated, dali)
        info = op_info(path) if path else None
        if info is not None and info.reader:
            return self._reader_seed(original, updated)
        if info is None or not info.random or info.ndd is None:
            return updated
        return self._random_op(original, updated, path)

    def _random_op(self, original: cst.Call, updated: cst.Call, path: str) -> cst.BaseExpression:
        """A random op draws from an RNG, not from ``seed=``: the one NDD001 planned for it or its
        pipeline, or a helper's ``rng`` parameter; outside a pipeline, ``seed=`` is reported."""
        pipeline = self.ctx.enclosing_pipeline()
        seed = cstutil.kwarg(original, "seed")
        if pipeline is None and self._in_helper(original) and self.ctx.applies(self.code, original):
            self.ctx.report(
                self.code, original, f"`fn.{path}` draws from `rng` (a parameter of the helper)", fixed=True
            )
            return cstutil.add_kwarg(updated, "rng", cst.Name("rng"))
        if pipeline is None:
            # Only where `fn.*` becomes `ndd.*`: in code that stays in pipeline mode (helpers of a
            # pipeline that is kept), `seed=` is right as it is.
            if seed is not None and self.ctx.may_rewrite_dali_calls():
                self.ctx.report(
                    self.code,
                    seed,
                    "`seed=` is not accepted by dynamic-mode random ops",
                    hint="create `ndd.random.RNG(seed=...)` once and pass it as `rng=`",
                    fixed=False,
                )
            return updated
        if not pipeline.convert or not isinstance(updated, cst.Call):
            return updated
        rng_name = self.ctx.model.plan.op_rngs.get(original) or self.ctx.model.plan.pipeline_rng.get(pipeline.qualname)
        if rng_name is None or cstutil.kwarg(original, "rng"):
            return updated
        self.ctx.report(self.code, seed or original, f"`fn.{path}` draws from `{rng_name}`", fixed=True)
        updated = cstutil.remove_kwargs(updated, {"seed"})
        return cstutil.add_kwarg(updated, "rng", cst.Name(rng_name))

    def _reader_seed(self, original: cst.Call, updated):
        """A shuffling reader of a seeded pipeline, without a seed of its own, gets the seed the
        pipeline gave it (``dali_op_seed(seed, 0)``) when that can be read from the code, else the
        pipeline's ``seed`` (ndd_migrate.codegen.reader_seed)."""
        pipeline = self.ctx.enclosing_pipeline()
        if (
            pipeline is None
            or not pipeline.convert
            or not isinstance(updated, cst.Call)
            or original is not reader_seed.reader_call(pipeline)
        ):
            return updated
        if reader_seed.shuffles_with_open_seed(original):  # said where the user reads
            if self.ctx.applies(self.code, original):
                self.ctx.report(self.code, original, reader_seed.OPEN_SEED_ORDER, fixed=True)
            return updated
        if not reader_seed.shuffles_unseeded(original) or not self.ctx.applies(self.code, original):
            return updated
        if not pipeline.given("seed"):  # said where the user reads: at the reader, and in the summary
            self.ctx.report(self.code, original, reader_seed.UNSEEDED_ORDER, fixed=True)
            return updated
        first = reader_seed.reader_comes_first(pipeline, self.dali_name)
        if first:
            message = "the reader shuffles with the seed the pipeline gave it: `dali_op_seed(seed, 0)`, the same order"
            self.ctx.report(self.code, original, message, fixed=True)
        else:  # a changed order is said where the user reads: at the reader, and in the summary
            self.ctx.report(
                self.code, original, reader_seed.OTHER_ORDER, hint=reader_seed.OTHER_ORDER_HINT, fixed=False
            )
        op_seed = self.ctx.support(support.OP_SEED) if first else None
        return cstutil.add_kwarg(updated, "seed", reader_seed.seed_value(first, op_seed))

    def _ndd_seed(self, original: cst.Call, updated, dali: str):
        path = dali[len(names.NDD) + 1 :]
        seed = cstutil.kwarg(original, "seed")
        if seed is not None and path.startswith("random.") and path != "random.RNG":
            self.ctx.report(
                self.code,
                seed,
                f"`ndd.{path}` does not accept `seed=`",
                hint="create `ndd.random.RNG(seed=...)` once and pass it as `rng=`",
                fixed=False,
            )
        return updated
