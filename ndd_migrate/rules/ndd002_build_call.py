"""NDD002 build-call: ``pipe.build()`` disappears."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.types import Kind
from ndd_migrate.plan import uses

RULE = Rule(
    code="NDD002",
    name="build-call",
    summary="`pipe.build()` has nothing to build in dynamic mode",
    what=(
        "Removes `pipe.build()` statements on objects returned by a migrated pipeline function, keeping "
        "the comments that were attached to them; a block left empty gets `pass`. A loop over a list of "
        "pipelines that only builds them (`for p in pipes: p.build()`, `[p.build() for p in pipes]`) "
        "goes as a whole. So do the `schedule_run()` and `release_outputs()` statements of the scheduled "
        "API: `next(pipe)` (NDD003, for `outputs()` and `share_outputs()`) runs and gives a step at once."
    ),
    why=(
        "The migrated function is a generator; it has no `build` method, so the call would raise; nor "
        "`schedule_run` or `release_outputs`, and there is nothing to schedule or release."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix="Applied together with NDD001, which turns the pipeline function into a generator.",
    examples=(
        Example(
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    return fn.random.uniform()\n\n\n"
                "pipe = p()\n"
                "# build once\n"
                "pipe.build()\n"
                "(x,) = pipe.run()\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def p(*, batch_size=2):\n"
                "    while True:\n"
                "        yield ndd.random.uniform(batch_size=batch_size).evaluate(),\n\n\n"
                "pipe = p()\n"
                "# build once\n"
                "(x,) = next(pipe)\n"
            ),
        ),
    ),
    valid=("import subprocess\n\nsubprocess.run(['ls'])\nclass B:\n    def build(self): pass\nB().build()\n",),
)


#: Methods whose statements only prepare or tidy a pipeline's run: nothing to do in dynamic mode.
REMOVED = ("build", "schedule_run", "release_outputs")


class Impl(RuleImpl):
    rule = RULE

    def claims(self, use):
        """``pipe.build()`` as a statement of its own: removed."""
        if use.kind is not Kind.PIPELINE or use.context != uses.METHOD or use.detail not in REMOVED:
            return None
        if use.detail != "build" and self.ctx.model.plan.mixes_run_apis(use.pipeline):
            return "pipeline mode raises where `run()` is mixed with the scheduled API, and no call would here"
        stmt = use.statement
        if self._built_in_comprehension(stmt) is use.holder:
            return self.ctx.applies(self.code, stmt) or None
        if (
            use.holder.args
            or not isinstance(stmt, cst.SimpleStatementLine)
            or len(stmt.body) != 1
            or not isinstance(stmt.body[0], cst.Expr)
            or stmt.body[0].value is not use.holder
        ):
            return f"`{use.detail}()` used as a value"
        return self.ctx.applies(self.code, stmt) or None

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock):
        body = self._filter(original.body, updated.body)
        if body is None:
            return updated
        return updated.with_changes(body=body or [cst.SimpleStatementLine([cst.Pass()])])

    def leave_Module(self, original: cst.Module, updated: cst.Module):
        body = self._filter(original.body, updated.body)
        return updated if body is None else updated.with_changes(body=body)

    def _filter(self, original, updated) -> list | None:
        """The statements without the ``build()`` calls, their comments moved to the next statement."""
        if len(original) != len(updated) or not any(self._is_build(s) or self._build_loop(s) for s in original):
            return None
        out: list = []
        carried: list = []
        for orig, stmt in zip(original, updated):
            loop = self._build_loop(orig)
            if loop or self._is_build(orig):
                if loop:
                    self.ctx.report(self.code, orig, f"a loop that only {_does(orig)} pipelines removed", fixed=True)
                else:
                    func = orig.body[0].value.func
                    hint = self.ctx.migrated_before_hint(func.value)
                    self.ctx.report(self.code, orig, f"`pipe.{func.attr.value}()` removed", hint=hint, fixed=True)
                carried.extend(stmt.leading_lines)
                trailing = getattr(stmt, "trailing_whitespace", None)
                if trailing is not None and trailing.comment is not None:
                    carried.append(cst.EmptyLine(comment=trailing.comment))
                continue
            if carried:
                stmt = stmt.with_changes(leading_lines=[*carried, *stmt.leading_lines])
                carried = []
            out.append(stmt)
        return out

    def _build_loop(self, stmt: cst.CSTNode) -> bool:
        """``for p in pipes: p.build()`` over a list of converted pipelines (only builds in its body),
        or ``[p.build() for p in pipes]`` as a statement: nothing is left to do."""
        call = self._built_in_comprehension(stmt)
        if call is not None:
            loop = stmt.body[0].value.for_in
        elif isinstance(stmt, cst.For) and stmt.orelse is None and isinstance(stmt.body, cst.IndentedBlock):
            if not all(self._is_build(s) for s in stmt.body.body):
                return False
            loop = stmt
        else:
            return False
        return self.ctx.converted_kind(loop.iter, Kind.PIPELINES) is not None and self.ctx.applies(self.code, stmt)

    @staticmethod
    def _built_in_comprehension(stmt) -> cst.Call | None:
        """The ``p.build()`` of a statement ``[p.build() for p in pipes]`` (one ``for``, no ``if``)."""
        if not (
            isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
        ):
            return None
        comp = stmt.body[0].value
        if not isinstance(comp, cst.ListComp) or comp.for_in.inner_for_in is not None or comp.for_in.ifs:
            return None
        call = comp.elt
        if not (isinstance(call, cst.Call) and not call.args and isinstance(call.func, cst.Attribute)):
            return None
        if call.func.attr.value not in REMOVED or not isinstance(call.func.value, cst.Name):
            return None
        target = comp.for_in.target
        return call if isinstance(target, cst.Name) and target.value == call.func.value.value else None

    def _is_build(self, stmt: cst.CSTNode) -> bool:
        if not (
            isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
        ):
            return False
        call = stmt.body[0].value
        if not (
            isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value in REMOVED
        ):
            return False
        return self.ctx.converted_kind(call.func.value, Kind.PIPELINE) is not None and self.ctx.applies(self.code, stmt)


def _does(loop: cst.CSTNode) -> str:
    """What a loop that NDD002 removes does to each pipeline: "builds", or calls which methods on."""
    if isinstance(loop, cst.For):
        calls = [stmt.body[0].value for stmt in loop.body.body]
    else:  # `[p.build() for p in pipes]`
        calls = [loop.body[0].value.elt]
    methods = sorted({call.func.attr.value for call in calls})
    return "builds" if methods == ["build"] else "calls " + ", ".join(f"`{m}()`" for m in methods) + " on"
