"""NDD109 pipeline-current: ``Pipeline.current().<setting>`` in graph code becomes the parameter."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import GlobalScope, ScopeProvider

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.values import graph_code
from ndd_migrate.syntax import cstutil, names, tree

CURRENT = names.PIPELINE + ".current"

RULE = Rule(
    code="NDD109",
    name="pipeline-current",
    summary="`Pipeline.current()` is None outside a pipeline: read the migrated function's parameter",
    what=(
        "In a `@pipeline_def` body, rewrites `Pipeline.current().batch_size` (any import alias: "
        "`dali.Pipeline.current()`, `nvidia.dali.pipeline.Pipeline.current()`) to `batch_size`, the keyword "
        "parameter the migrated function always has; `.num_threads`, `.device_id` and `.seed` likewise when "
        "the decorator or a call gives them (so the migrated function has that parameter). "
        "`pipe = Pipeline.current()` in the body, with `pipe` read only as `pipe.<setting>`, is removed and "
        "each `pipe.<setting>` reads the parameter likewise. Any other use "
        "(another attribute, the pipeline object itself, a setting no one gives, a call in a helper "
        "function or a `define_graph`, a local name that would shadow the parameter) leaves the pipeline "
        "as it is, with a TODO at the call."
    ),
    why=(
        "`Pipeline.current()` returns the pipeline whose graph is being defined. The migrated function "
        "runs outside any pipeline, where it returns `None`: `None.batch_size` is an `AttributeError` "
        "on the first batch."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "Applied with the pipeline rewrite (NDD001): the parameter holds the value the pipeline was "
        "created with, which is what the attribute read."
    ),
    examples=(
        Example(
            before=(
                "import nvidia.dali as dali\n"
                "import nvidia.dali.fn as fn\n\n\n"
                "@dali.pipeline_def(batch_size=4)\n"
                "def p():\n"
                "    n = dali.Pipeline.current().batch_size\n"
                "    return fn.random.uniform(shape=[n])\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def p(*, batch_size=4):\n"
                "    while True:\n"
                "        n = batch_size\n"
                "        yield ndd.random.uniform(shape=[n], batch_size=batch_size).evaluate(),\n"
            ),
        ),
        Example(
            title="a setting bound to its own name: the statement goes (it would read `batch_size = batch_size`)",
            before=(
                "import nvidia.dali as dali\n"
                "import nvidia.dali.fn as fn\n\n\n"
                "@dali.pipeline_def(batch_size=4)\n"
                "def p():\n"
                "    batch_size = dali.Pipeline.current().batch_size\n"
                "    return fn.random.uniform(shape=[batch_size])\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def p(*, batch_size=4):\n"
                "    while True:\n"
                "        yield ndd.random.uniform(shape=[batch_size], batch_size=batch_size).evaluate(),\n"
            ),
        ),
        Example(
            title="a setting the migrated function has no parameter for: left for a human",
            before=(
                "import nvidia.dali.fn as fn\n"
                "from nvidia.dali import pipeline_def\n"
                "from nvidia.dali.pipeline import Pipeline\n\n\n"
                "@pipeline_def(batch_size=4)\n"
                "def p():\n"
                "    gpu = Pipeline.current().device_id\n"
                "    return fn.random.uniform(shape=[gpu + 1])\n"
            ),
            after=(
                "import nvidia.dali.fn as fn\n"
                "from nvidia.dali import pipeline_def\n"
                "from nvidia.dali.pipeline import Pipeline\n\n\n"
                "@pipeline_def(batch_size=4)\n"
                "def p():\n"
                "    # TODO(ndd-migrate): NDD109 not migrated: `Pipeline.current().device_id`: `Pipeline.current()` "
                "is None outside a pipeline, and no `device_id` is given to `p` (decorator or call) for the migrated "
                "function to take as a parameter; give `device_id=` in the decorator, or use the value itself, then "
                "run the migration again\n"
                "    gpu = Pipeline.current().device_id\n"
                "    return fn.random.uniform(shape=[gpu + 1])\n"
            ),
        ),
    ),
    valid=("from nvidia.dali.pipeline import Pipeline\n\n\ndef size():\n    return Pipeline.current()\n",),
)

_HINT = "then run the migration again"

# `Pipeline` properties → the migrated function's parameter that holds the same value.
SETTINGS = {
    "batch_size": "batch_size",
    "max_batch_size": "batch_size",
    "num_threads": "num_threads",
    "device_id": "device_id",
    "seed": "seed",
}


def analyse(graph: graph_code.Graph, found: graph_code.GraphFacts) -> None:
    """Each ``Pipeline.current()`` in graph code: a rewrite of ``.<setting>`` to the parameter, or a
    problem of each pipeline whose graph runs it."""
    from ndd_migrate.model.types import Problem

    for pipe_def, owners, root in graph.graph_functions():
        for call in pipe_def.current_calls:
            if graph.dali_name(call.func) != CURRENT:
                continue
            around = _Around(call)
            tree.visit(pipe_def.node, around)
            attr = around.found
            if attr is None:
                spelled = f"{around.bound} = {cstutil.code(call)}" if around.bound else cstutil.code(call)
                why = f"`{spelled}`: the pipeline object is None outside a pipeline"
            else:
                why = f"`{cstutil.code(attr)}`: `Pipeline.current()` is None outside a pipeline"
            legacy = pipe_def.node in graph.legacy
            if attr is None and around.bound and root and not legacy:
                alias = _alias(graph, pipe_def.node, call, around.bound)
                failed = _read_settings(graph, owners, alias, around.bound, found) if alias is not None else ()
                if failed is None:
                    continue
                if failed:  # the first setting that cannot be read: reported there
                    for pipeline in owners:
                        pipeline.problems.append(Problem(RULE.code, failed[0], *failed[1]))
                    continue
            for pipeline in owners:
                if attr is None:
                    problem = (why, _bare_hint(around.bound, pipeline))
                elif legacy:
                    problem = (
                        why + " (in `define_graph`)",
                        f"store the value `__init__` passes to `super().__init__` as `self.<name>` and read that "
                        f"instead, {_HINT}",
                    )
                elif not root:
                    problem = (
                        why + " (in a function the pipeline calls)",
                        f"pass `{attr.attr.value}` from the pipeline function as a parameter, {_HINT}",
                    )
                else:
                    problem = _check_setting(graph, pipeline, attr, why)
                if problem is None:
                    found.current[attr] = SETTINGS[attr.attr.value]
                    found.current_owners.setdefault(attr, set()).update(owners)
                else:
                    pipeline.problems.append(Problem(RULE.code, call, *problem))


def _alias(graph, function: cst.FunctionDef, call: cst.Call, bound: str):
    """``pipe = Pipeline.current()``, a statement of the pipeline function's own body binding the
    only ``pipe`` there, read only as ``pipe.<setting>``: ``(statement, [those attributes])``, or None."""
    stmt = next(
        (
            s
            for s in function.body.body
            if isinstance(s, cst.SimpleStatementLine)
            and len(s.body) == 1
            and isinstance(s.body[0], cst.Assign)
            and s.body[0].value is call
        ),
        None,
    )
    if stmt is None:
        return None
    target = stmt.body[0].targets[0].target
    scope = graph.resolver.get_metadata(ScopeProvider, target, None)
    assignments = list(scope[bound]) if scope is not None else []
    if len(assignments) != 1 or getattr(assignments[0], "node", None) is not target:
        return None
    attributes = []
    for reference in assignments[0].references:
        parent = graph.model.parents.get(reference.node)
        if not (isinstance(parent, cst.Attribute) and parent.value is reference.node and parent.attr.value in SETTINGS):
            return None
        attributes.append(parent)
    return stmt, attributes


def _read_settings(graph, owners, alias, bound: str, found):
    """Each ``pipe.<setting>`` of ``pipe = Pipeline.current()`` reads the parameter, and the
    statement goes, when every one of them can (as ``Pipeline.current().<setting>`` would): None;
    else the first that cannot, with its problem."""
    stmt, attributes = alias
    for attr in attributes:
        why = f"`{cstutil.code(attr)}`: `{bound}` is `Pipeline.current()`, which is None outside a pipeline"
        for pipeline in owners:
            problem = _check_setting(graph, pipeline, attr, why)
            if problem is not None:
                return attr, problem
    for attr in attributes:
        found.current[attr] = SETTINGS[attr.attr.value]
        found.current_owners.setdefault(attr, set()).update(owners)
    found.current_aliases.add(stmt)
    found.current_owners.setdefault(stmt, set()).update(owners)
    return None


def _bare_hint(bound: str | None, pipeline) -> str:
    if bound is not None:
        return (
            f"read `Pipeline.current().batch_size` (or `.num_threads`, `.device_id`, `.seed`) where "
            f"`{bound}.<setting>` is used, and drop `{bound}`: the migration turns those into the migrated "
            f"function's parameters; {_HINT}"
        )
    return f"pass the values it is used for as parameters of `{pipeline.node.name.value}`, {_HINT}"


def _check_setting(graph, pipeline, attr: cst.Attribute, why: str) -> tuple[str, str] | None:
    fname = pipeline.node.name.value
    setting = SETTINGS.get(attr.attr.value)
    if setting is None:
        return (
            f"{why}, and the migrated function has no parameter for `{attr.attr.value}`",
            f"use the value itself (pass it as a parameter of `{fname}`), {_HINT}",
        )
    parameters = {name for name, _ in pipeline.parameters()}
    if setting not in parameters:
        if setting in ("num_threads", "device_id", "seed"):
            return (
                f"{why}, and no `{setting}` is given to `{fname}` (decorator or call) for the migrated function "
                "to take as a parameter",
                f"give `{setting}=` in the decorator, or use the value itself, {_HINT}",
            )
        return (
            f"{why}, and the migrated function has no `{setting}` parameter",
            f"use the value itself (pass it as a parameter of `{fname}`), {_HINT}",
        )
    scope = graph.resolver.get_metadata(ScopeProvider, attr, None)
    local = [
        a
        for a in (scope[setting] if scope is not None else ())
        if not isinstance(a.scope, GlobalScope) and not _is_same_setting(a, setting, pipeline)
    ]
    if local:
        return (
            f"{why}, and `{setting}` already names something else in `{fname}`",
            f"rename that `{setting}`, {_HINT}",
        )
    return None


def _is_same_setting(assignment, setting: str, pipeline) -> bool:
    """``device_id = Pipeline.current().device_id`` in the pipeline function itself: the local holds
    the parameter's value, so reading the parameter there changes nothing."""
    node = getattr(assignment, "node", None)
    if assignment.scope is None or not isinstance(node, cst.Name):
        return False
    finder = _Assigns(node)
    tree.visit(pipeline.node.body, finder)
    value = finder.value
    return (
        value is not None
        and finder.direct
        and isinstance(value, cst.Attribute)
        and SETTINGS.get(value.attr.value) == setting
        and isinstance(value.value, cst.Call)
        and isinstance(value.value.func, cst.Attribute)
        and value.value.func.attr.value == "current"
    )


class _Assigns(cst.CSTVisitor):
    """The value a single-target ``name = value`` statement of the function's own body gives
    ``target``, and whether that statement is directly in the body (not nested in a def)."""

    def __init__(self, target: cst.Name) -> None:
        self.target = target
        self.value: cst.BaseExpression | None = None
        self.direct = True
        self._depth = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._depth += 1

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._depth -= 1

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and node.targets[0].target is self.target:
            self.value = node.value
            self.direct = self._depth == 0


class _Around(cst.CSTVisitor):
    def __init__(self, call: cst.Call) -> None:
        self.call = call
        self.found: cst.Attribute | None = None
        self.bound: str | None = None  # `name = Pipeline.current()`

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.value is self.call:
            self.found = node

    def visit_Assign(self, node: cst.Assign) -> None:
        if node.value is self.call and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            self.bound = node.targets[0].target.value


class Impl(RuleImpl):
    rule = RULE

    def blockers(self, pipe_def):
        """Decides, once per module, every ``Pipeline.current()`` of the graph code (``analyse``). One
        of ``fn``'s graph this run may not rewrite (``# noqa``, not selected) blocks ``fn``: kept as
        it is, it is None in the generator."""
        found = graph_code.analysed(self, analyse)
        return [
            (
                node,
                (
                    f"`{cstutil.code(node.body[0]) if isinstance(node, cst.SimpleStatementLine) else cstutil.code(node)}` is not "
                    f"rewritten here (`# noqa: {self.code}` or the rule not selected): `Pipeline.current()` is None "
                    "in the generator"
                ),
                f"let {self.code} rewrite it, or pass the setting as a parameter yourself, then run the migration again",
            )
            for node in graph_code.unrewritable(self, pipe_def, found.current_owners)
        ]

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated):
        """``pipe = Pipeline.current()`` whose every ``pipe.<setting>`` reads the parameter: removed;
        so is ``device_id = Pipeline.current().device_id``, which would become ``device_id = device_id``."""
        if _binds_itself(original, updated, graph_code.facts(self.ctx.model).current):
            self.ctx.report(
                self.code,
                original,
                f"`{cstutil.code(original.body[0])}` removed: the parameter is that setting",
                fixed=True,
            )
            return cst.RemoveFromParent()
        if original not in graph_code.facts(self.ctx.model).current_aliases or not self.ctx.may_rewrite_dali_calls():
            return updated
        if not self.ctx.applies(self.code, original):
            return updated
        self.ctx.report(
            self.code,
            original,
            f"`{cstutil.code(original.body[0])}` removed: its settings read the parameters",
            fixed=True,
        )
        return cst.RemoveFromParent()

    def leave_Attribute(self, original: cst.Attribute, updated: cst.BaseExpression) -> cst.BaseExpression:
        name = graph_code.facts(self.ctx.model).current.get(original)
        if name is None or not self.ctx.may_rewrite_dali_calls():
            return updated
        fixed = self.ctx.applies(self.code, original)
        self.ctx.report(
            self.code,
            original,
            f"`{cstutil.code(original)}` → `{name}` (the migrated function's parameter)",
            hint=f"use the `{name}` parameter",
            fixed=fixed,
        )
        return cst.Name(name, lpar=original.lpar, rpar=original.rpar) if fixed else updated


def _binds_itself(original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine, current: dict) -> bool:
    """``name = Pipeline.current().name`` rewritten to ``name = name`` (a no-op)."""
    if len(original.body) != 1 or len(updated.body) != 1:
        return False
    before, after = original.body[0], updated.body[0]
    if not isinstance(before, cst.Assign) or not isinstance(after, cst.Assign) or len(after.targets) != 1:
        return False
    target = after.targets[0].target
    return (
        before.value in current
        and isinstance(target, cst.Name)
        and isinstance(after.value, cst.Name)
        and after.value.value == target.value
    )
