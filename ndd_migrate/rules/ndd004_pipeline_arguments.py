"""NDD004 pipeline-arguments: executor-only pipeline arguments are dropped at call sites."""

from __future__ import annotations

import functools

import libcst as cst

from ndd_migrate.codegen import prefetch
from ndd_migrate.dali import pipeline_args
from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.types import ImportedPipeline
from ndd_migrate.syntax import cstutil

RULE = Rule(
    code="NDD004",
    name="pipeline-arguments",
    summary="executor-only pipeline arguments have no dynamic-mode counterpart",
    what=(
        "At call sites of a migrated pipeline function (in its module or another module of the run, and in "
        "its decorator), drops the arguments that "
        "only tune pipeline mode's executor: `prefetch_queue_depth`, `exec_async`, `exec_pipelined`, "
        "`exec_dynamic`, `set_affinity`, `bytes_per_sample`, `max_streams`, `py_num_workers`, ... "
        "`prefetch_queue_depth` stays at a call of a function decorated with the support module's "
        "`prefetching` (that call's prefetch depth). "
        "`batch_size`, `num_threads`, `device_id` and `seed` stay: they are parameters of the migrated "
        "function (given in another module, they are added to its signature). A call site that passes settings through `**kwargs` (or `*args`) keeps its pipeline "
        "unconverted: which settings the mapping carries is known only at run time, and the migrated "
        "function accepts only the ones the module gives by name. A `@pipeline_def` function with a parameter "
        "named `batch_size`, `num_threads`, `device_id`, `seed` or `prefetch_queue_depth` is left as it is: "
        "DALI gives a call's value to the function only (the pipeline takes the decorator's), and the "
        "migrated function would have one name for both."
    ),
    why="The migrated generator does not accept them: passing one would raise `TypeError`.",
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "Dropping them changes no output. The migrated generator computes its batches ahead as the "
        "pipeline did, with the support module's `prefetching` (depth 2, `@pipeline_def`'s literal "
        "`prefetch_queue_depth`, or the call's); where a nested generator prefetches (the epoch-aware "
        "shape) a depth given at the call is dropped."
    ),
    examples=(
        Example(
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def\n"
                "def p():\n"
                "    return fn.random.uniform()\n\n\n"
                "pipe = p(batch_size=8, prefetch_queue_depth=3, exec_async=False)\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def p(*, batch_size):\n"
                "    while True:\n"
                "        yield ndd.random.uniform(batch_size=batch_size).evaluate(),\n\n\n"
                "pipe = p(batch_size=8, prefetch_queue_depth=3)\n"
            ),
        ),
    ),
)


class Impl(RuleImpl):
    rule = RULE

    def blockers(self, pipeline):
        """Call sites that pass arguments through ``*``/``**``: they may carry pipeline settings
        (``num_threads``, ``device_id``, executor-only ones) that the migrated function would not
        take — a ``TypeError`` only at run time. And parameters of the function named like a setting
        the migrated function takes (:func:`_shadowing`)."""
        found = _shadowing(pipeline)
        for call, starred in self._starred_calls.get(id(pipeline), ()):
            spelled = cst.Module([]).code_for_node(starred.value)
            found.append(
                (
                    call,
                    f"a call passes arguments through `{starred.star}{spelled}`, which may carry pipeline settings",
                    f"pass the pipeline settings by name (`num_threads=...`, `device_id=...`) and drop executor-only "
                    f"ones (`prefetch_queue_depth`, `exec_*`) from `{spelled}`, then run ndd-migrate again",
                )
            )
        return found

    @functools.cached_property
    def _starred_calls(self) -> dict:
        """``id`` of each pipeline → its call sites with a ``*``/``**`` argument, and the first
        such argument (found once: every pipeline asks)."""
        by_owner: dict = {}
        for call, owner in self.ctx.model.call_sites.items():
            starred = next((a for a in call.args if a.star), None)
            if starred is not None:
                by_owner.setdefault(id(owner), []).append((call, starred))
        return by_owner

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        pipeline = self.ctx.model.call_sites.get(original) or self._imported(original)
        if pipeline is None or not pipeline.convert or not isinstance(updated, cst.Call):
            return updated
        # A constructor parameter of that name stays: the generator takes it. A pipeline converted
        # in another module takes the settings given here (that module is told: crossfile.py).
        taken = _parameters(pipeline) if not isinstance(pipeline, ImportedPipeline) else set()
        if prefetch.on_call(pipeline):  # the call's own prefetch depth (the support module's `prefetching`)
            taken.add("prefetch_queue_depth")
        dropped = {
            a.keyword.value
            for a in original.args
            if a.keyword is not None and a.keyword.value in pipeline_args.EXECUTOR_ONLY and a.keyword.value not in taken
        }
        if not dropped or not self.ctx.applies(self.code, original):
            return updated
        for name in sorted(dropped):
            self.ctx.report(
                self.code,
                cstutil.kwarg(original, name),
                f"`{name}` has no dynamic-mode counterpart: dropped",
                fixed=True,
            )
        return cstutil.remove_kwargs(updated, dropped)

    def _imported(self, call: cst.Call) -> ImportedPipeline | None:
        """The pipeline another module of the run converts (in this run, not before it) that
        ``call`` makes; the settings it gives by keyword are recorded for that module."""
        found = self.ctx.kind(call)
        pipeline = found[1] if found is not None else None
        if not isinstance(pipeline, ImportedPipeline) or not pipeline.convert or pipeline.migrated_in is not None:
            return None
        given = {a.keyword.value for a in call.args if a.keyword is not None} & set(pipeline_args.PARAMETERS)
        if given:
            self.ctx.imports.call_args.setdefault(pipeline.qualname, set()).update(given)
        return pipeline


# The settings the migrated function reads itself: a parameter of the same name would be both.
_SHADOWED = (*pipeline_args.PARAMETERS, "prefetch_queue_depth")


def _shadowing(pipeline) -> list[tuple]:
    """``def p(root, batch_size=32)`` under ``@pipeline_def``: DALI hands a call's ``batch_size=`` to
    the function only, so the pipeline runs with the decorator's batch size (or none: `build()`
    fails), whatever the function does with its own. The migrated function has one name for both,
    and would read batches of the argument's size."""
    if getattr(pipeline, "decorator", None) is None or not isinstance(pipeline.node, cst.FunctionDef):
        return []
    return [
        (
            param,
            f"the parameter `{name}` shadows the pipeline setting of that name: DALI gives a call's `{name}=` to "
            f"the function only, and the pipeline takes its `{name}` from the decorator (or its default); the "
            "migrated function has one name for both",
            "rename the parameter (or give the setting in the decorator only) so that each keeps its meaning, "
            "then run ndd-migrate again",
        )
        for param in cstutil.all_params(pipeline.node.params)
        if (name := param.name.value) in _SHADOWED
    ]


def _parameters(pipeline) -> set[str]:
    """The names the migrated function takes as parameters of its own: a `@pipeline_def`
    function's, or a legacy class's ``__init__``'s (``self`` aside)."""
    node = getattr(pipeline, "init", None) or pipeline.node
    if not isinstance(node, cst.FunctionDef):
        return set()
    return {p.name.value for p in cstutil.all_params(node.params)}
