"""NDD403 set-outputs: a ``Pipeline(...)`` built by hand (``with pipe:`` + ``pipe.set_outputs(...)``)
becomes a generator function, as a ``@pipeline_def`` function would (ndd_migrate.model.sources.hand_built)."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.syntax import tree

HINT = (
    "move the statements of `with pipe:` into a `@pipeline_def` function that returns what `set_outputs` "
    "gets (the `Pipeline(...)` arguments go to its decorator), create the pipeline by calling it, then run "
    "ndd-migrate again"
)

RULE = Rule(
    code="NDD403",
    name="set-outputs",
    summary="a `Pipeline(...)` built by hand with `with pipe:` and `set_outputs` becomes a generator function",
    what=(
        "Reads `pipe = Pipeline(...)` followed by `with pipe:` whose last statement is `pipe.set_outputs(...)` (the "
        "form of DALI's notebooks) as the `@pipeline_def` function it stands for: the `Pipeline(...)` arguments are "
        "its decorator's, the block its body, what `set_outputs` gets its return value. That function is migrated "
        "by NDD001 into a generator named after the variable (`pipe_batches`), placed where the graph was, and "
        "`pipe` becomes a call of it; the uses of `pipe` (`pipe.build()`, `pipe.run()`, outputs) get the usual "
        "rewrites. When a use of `pipe` cannot be rewritten (NDD008) the statements stay as they were. A graph "
        "that cannot be read this way is reported, and the module keeps all its `fn.*` calls outside "
        "`@pipeline_def` functions as they are (the graph may call them): not in the body of a module or a "
        "function (inside an `if`, a loop), "
        "`with pipe:` not right after the assignment, `set_outputs` not the block's last statement, `pipe` "
        "used in the block otherwise, a name bound in the block and read after it before being bound again, a "
        "name the block reads bound again after it."
    ),
    why=(
        "Dynamic mode has no graph to define: the block's statements run once per batch in the generator. The "
        "function takes the place of the block, so the code around it keeps its order."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "The graph's statements now run at the first `next(pipe)`, not where the block was; the names the block "
        "binds become local to the function (checked: no code outside reads them)."
    ),
    examples=(
        Example(
            title="the block becomes a generator function",
            before=(
                "from nvidia.dali import Pipeline, fn\n\n"
                "pipe = Pipeline(batch_size=8, num_threads=2, device_id=None)\n"
                "with pipe:\n"
                "    data = fn.random.uniform(range=[0, 1])\n"
                "    pipe.set_outputs(data)\n"
                "pipe.build()\n"
                "(out,) = pipe.run()\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def pipe_batches(*, batch_size=8, num_threads=2, device_id=None):\n"
                "    ndd.set_num_threads(num_threads)\n"
                "    while True:\n"
                "        data = ndd.random.uniform(range=[0, 1], batch_size=batch_size)\n"
                "        yield data.evaluate(),\n\n\n"
                "pipe = pipe_batches()\n"
                "(out,) = next(pipe)\n"
            ),
        ),
        Example(
            title="a graph built in a factory: the factory returns the generator",
            before=(
                "from nvidia.dali import Pipeline, fn\n\n\n"
                "def make(batch_size):\n"
                "    pipe = Pipeline(batch_size=batch_size, num_threads=2, device_id=None)\n"
                "    with pipe:\n"
                "        pipe.set_outputs(fn.random.uniform(range=[0, 1]))\n"
                "    return pipe\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "def make(batch_size):\n"
                "    @prefetching\n"
                "    def pipe_batches(*, batch_size=batch_size, num_threads=2, device_id=None):\n"
                "        ndd.set_num_threads(num_threads)\n"
                "        while True:\n"
                "            yield ndd.random.uniform(range=[0, 1], batch_size=batch_size).evaluate(),\n\n"
                "    pipe = pipe_batches()\n"
                "    return pipe\n"
            ),
        ),
        Example(
            title="a graph inside an `if`: left for a human",
            before=(
                "from nvidia.dali import Pipeline, fn\n\n"
                "if True:\n"
                "    pipe = Pipeline(batch_size=8, num_threads=2, device_id=0)\n"
                "    with pipe:\n"
                "        pipe.set_outputs(fn.random.uniform(range=[0, 1]))\n"
            ),
            after=(
                "from nvidia.dali import Pipeline, fn\n\n"
                "if True:\n"
                "    # TODO(ndd-migrate): NDD403 not migrated: the graph is not `pipe = Pipeline(...)` + `with pipe:` in "
                f"the body of a module or a function; {HINT}\n"
                "    pipe = Pipeline(batch_size=8, num_threads=2, device_id=0)\n"
                "    with pipe:\n"
                "        pipe.set_outputs(fn.random.uniform(range=[0, 1]))\n"
            ),
        ),
    ),
    valid=("class Pipeline:\n    pass\n\n\npipe = Pipeline()\n",),
)


class Impl(RuleImpl):
    rule = RULE

    def blockers(self, pipeline) -> list[tuple[cst.CSTNode, str, str]]:
        """A hand-built graph is converted only where this rule applies (``# noqa: NDD403`` on
        ``pipe = Pipeline(...)``, ``--ignore NDD403`` keep it as written)."""
        built = self.ctx.model.hand_built
        if (
            built
            and any(g.definition is pipeline.node for g in built.graphs)
            and not self.ctx.applies(self.code, pipeline.node)
        ):
            return [(pipeline.node, "not selected (`# noqa` or `--ignore`)", "")]
        return []

    def visit_Call(self, node: cst.Call) -> None:
        if any(node is call for call in self.ctx.model.explicit_pipelines) and not self._deserialized(node):
            line = self.ctx.line_of(node)[0]
            why = self.ctx.model.hand_built_refused.get(
                line, "the graph is not `pipe = Pipeline(...)` + `with pipe:` in the body of a module or a function"
            )
            self.ctx.report(
                self.code,
                node,
                f"`Pipeline(...)` built by hand (`with pipe:` + `set_outputs`) stays in pipeline mode: {why}",
                hint=f"not migrated: {why}; {HINT}",
                fixed=False,
            )

    def _deserialized(self, call: cst.Call) -> bool:
        """``pipe = Pipeline(...)`` then ``pipe.deserialize_and_build(s)`` in the same function: no graph
        is built by hand there (NDD902 reports the serialized pipeline)."""
        parents = self.ctx.model.parents
        assign = parents.get(call)
        if not (
            isinstance(assign, cst.Assign)
            and len(assign.targets) == 1
            and isinstance(assign.targets[0].target, cst.Name)
        ):
            return False
        scope = assign
        while scope in parents and not isinstance(scope, (cst.FunctionDef, cst.Module)):
            scope = parents[scope]
        finder = _MethodCalls(assign.targets[0].target.value, "deserialize_and_build")
        tree.visit(scope, finder)
        return finder.found

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        built = self.ctx.model.hand_built
        graph = next((g for g in built.graphs if g.definition is node), None) if built else None
        pipeline = self.ctx.model.by_node.get(node) if graph is not None else None
        if pipeline is not None and pipeline.convert:
            self.ctx.report(
                self.code,
                node,
                f"`{graph.var} = Pipeline(...)` + `with {graph.var}:` → generator function `{graph.func}`",
                fixed=True,
            )


class _MethodCalls(cst.CSTVisitor):
    """Whether ``<name>.<method>(...)`` is called."""

    def __init__(self, name: str, method: str) -> None:
        self.name, self.method, self.found = name, method, False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value == self.method
            and isinstance(func.value, cst.Name)
            and func.value.value == self.name
        ):
            self.found = True
