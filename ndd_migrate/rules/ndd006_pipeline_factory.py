"""NDD006 pipeline-factory: a function that builds and returns a pipeline returns a generator."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import QualifiedNameProvider

from ndd_migrate.catalog import Example, Rule
from ndd_migrate.diagnostics import FixSafety
from ndd_migrate.rules.base import RuleImpl

RULE = Rule(
    code="NDD006",
    name="pipeline-factory",
    summary="a pipeline factory now returns the migrated generator",
    what=(
        "Reports functions whose every `return` gives a migrated pipeline (`pipe = train_pipe(...); "
        "return pipe`). What they return is followed like the pipeline itself: `build()` and `run()` on "
        "it, in this module or in another module of the run that imports the factory, are rewritten by "
        "NDD002 and NDD003. A function that returns a migrated pipeline on some paths only is reported "
        "at that `return`, for a human: its callers are not followed."
    ),
    why=(
        "Factories are how most training scripts choose a pipeline's settings (train or validation, "
        "shard, batch size). Without following them, `pipe = make_pipe(...); pipe.build()` would keep "
        "calling `build()` on a generator."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "Applied with NDD001: the factory itself is unchanged apart from a `build()` call inside it, "
        "which is removed; its callers are rewritten."
    ),
    examples=(
        Example(
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p(low):\n"
                "    return fn.random.uniform(range=[low, 1.0])\n\n\n"
                "def make_pipe(train):\n"
                "    pipe = p(0.5 if train else 0.0, batch_size=4 if train else 2)\n"
                "    pipe.build()\n"
                "    return pipe\n\n\n"
                "pipe = make_pipe(True)\n"
                "(x,) = pipe.run()\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n"
                "\n"
                "\n"
                "def p(low, *, batch_size=2):\n"
                "    while True:\n"
                "        yield ndd.random.uniform(range=[low, 1.0], batch_size=batch_size).evaluate(),\n"
                "\n"
                "\n"
                "def make_pipe(train):\n"
                "    pipe = p(0.5 if train else 0.0, batch_size=4 if train else 2)\n"
                "    return pipe\n"
                "\n"
                "\n"
                "pipe = make_pipe(True)\n"
                "(x,) = next(pipe)\n"
            ),
        ),
        Example(
            title="a pipeline returned on some paths only",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    return fn.random.uniform()\n\n\n"
                "def maybe_pipe(enabled):\n"
                "    if enabled:\n"
                "        return p()\n"
                "    return None\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n"
                "\n"
                "\n"
                "def p(*, batch_size=2):\n"
                "    while True:\n"
                "        yield ndd.random.uniform(batch_size=batch_size).evaluate(),\n"
                "\n"
                "\n"
                "def maybe_pipe(enabled):\n"
                "    if enabled:\n"
                "        # TODO(ndd-migrate): NDD006 in the callers, on what this returns: remove "
                "`pipe.build()`, `pipe.run()` → `next(pipe)`; or make every `return` give a pipeline\n"
                "        return p()\n"
                "    return None\n"
            ),
        ),
    ),
    valid=(
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "@pipeline_def(batch_size=2)\n"
        "def p():  # noqa: NDD001\n"
        "    return fn.random.uniform()\n\n\n"
        "def make():\n"
        "    return p()\n\n\n"
        "def maybe(flag):\n"
        "    if flag:\n"
        "        return p()\n"
        "    return None\n",
    ),
)


class Impl(RuleImpl):
    rule = RULE

    def leave_FunctionDef(self, original: cst.FunctionDef, updated):
        names = self.ctx.resolver.get_metadata(QualifiedNameProvider, original.name, None) or ()
        for qual in names:
            fn = self.ctx.model.factories.get(qual.name)
            if fn is not None and fn.convert and self.ctx.applies(self.code, original):
                self.ctx.report(
                    self.code, original.name,
                    f"`{original.name.value}` returns a `{fn.qualname}` pipeline, now a generator: "
                    "`build()`/`run()` on what it returns are rewritten",
                    fixed=True,
                )
        return updated

    def leave_Return(self, original: cst.Return, updated):
        fn = self.ctx.model.escapes.get(original)
        if fn is not None and fn.convert:
            self.ctx.report(
                self.code, original,
                "a migrated pipeline is returned, but not on every path: the callers of this function "
                "are not rewritten",
                hint="in the callers, on what this returns: remove `pipe.build()`, `pipe.run()` → "
                "`next(pipe)`; or make every `return` give a pipeline",
                fixed=False,
            )
        return updated
