"""NDD006 pipeline-factory: a function that builds and returns a pipeline returns a generator."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import QualifiedNameProvider, ScopeProvider

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.types import Kind
from ndd_migrate.plan import uses

RULE = Rule(
    code="NDD006",
    name="pipeline-factory",
    summary="a pipeline factory now returns the migrated generator",
    what=(
        "Reports functions whose every `return` gives a migrated pipeline (`pipe = train_pipe(...); "
        "return pipe`). What they return is followed like the pipeline itself: `build()` and `run()` on "
        "it, in this module or in another module of the run that imports the factory, are rewritten by "
        "NDD002 and NDD003. A pipeline returned on some paths only cannot be followed to the callers: "
        "it stays unconverted (NDD008)."
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
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def p(low, *, batch_size=2):\n"
                "    while True:\n"
                "        yield ndd.random.uniform(range=[low, 1.0], batch_size=batch_size).evaluate(),\n\n\n"
                "def make_pipe(train):\n"
                "    pipe = p(0.5 if train else 0.0, batch_size=4 if train else 2)\n"
                "    return pipe\n\n\n"
                "pipe = make_pipe(True)\n"
                "(x,) = next(pipe)\n"
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

    def claims(self, use):
        """``return pipe`` in a factory: what it returns is followed from its calls."""
        if use.kind is not Kind.PIPELINE or use.context != uses.RETURNED:
            return None
        function = self._function_of(use.node)
        if function is None:
            return None
        quals = self.ctx.resolver.get_metadata(QualifiedNameProvider, function.name, None) or ()
        if any(q.name in self.ctx.model.factories for q in quals):
            return self._callers_followed(function)
        return f"`{function.name.value}` does not return a pipeline on every path, so its callers are not followed"

    def _callers_followed(self, function: cst.FunctionDef) -> bool | str:
        """True when every use of the factory is a call of it by name, whose result the plan follows;
        a method (called as ``self.make()``) or a factory passed around is not followed."""
        if isinstance(self.ctx.model.parents.get(self.ctx.model.parents.get(function)), cst.ClassDef):
            quals = {q.name for q in self.ctx.resolver.get_metadata(QualifiedNameProvider, function.name, None) or ()}
            if quals & set(self.ctx.model.self_calls.values()):
                return True  # called only as `self.make()` in its class: each call is followed (self_methods)
            return (
                f"`{function.name.value}` is a method called other than as `self.{function.name.value}()` in its "
                f"class (or overridden, or decorated): what it returns is not followed"
            )
        scope = self.ctx.resolver.get_metadata(ScopeProvider, function, None)
        for assignment in scope.assignments[function.name.value] if scope is not None else ():
            for access in assignment.references:
                parent = self.ctx.model.parents.get(access.node)
                if not (isinstance(parent, cst.Call) and parent.func is access.node):
                    return f"`{function.name.value}` is used other than by calling it, so its callers are not followed"
        return True

    def _function_of(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        parents = self.ctx.model.parents
        current = parents.get(node)
        while current is not None and not isinstance(current, cst.FunctionDef):
            current = parents.get(current)
        return current

    def leave_FunctionDef(self, original: cst.FunctionDef, updated):
        names = self.ctx.resolver.get_metadata(QualifiedNameProvider, original.name, None) or ()
        for qual in names:
            pipeline = self.ctx.model.factories.get(qual.name)
            if pipeline is not None and pipeline.convert and self.ctx.applies(self.code, original):
                self.ctx.report(
                    self.code,
                    original.name,
                    f"`{original.name.value}` returns a `{getattr(pipeline, 'label', None) or pipeline.qualname}` pipeline, now a generator: "
                    "`build()`/`run()` on what it returns are rewritten",
                    fixed=True,
                )
        return updated
