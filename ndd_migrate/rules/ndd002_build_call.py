"""NDD002 build-call: ``pipe.build()`` disappears."""

from __future__ import annotations

import libcst as cst

from ndd_migrate import plan
from ndd_migrate.analysis import Kind
from ndd_migrate.catalog import Example, Rule
from ndd_migrate.diagnostics import FixSafety
from ndd_migrate.rules.base import RuleImpl

RULE = Rule(
    code="NDD002",
    name="build-call",
    summary="`pipe.build()` has nothing to build in dynamic mode",
    what=(
        "Removes `pipe.build()` statements on objects returned by a migrated pipeline function, keeping "
        "the comments that were attached to them; a block left empty gets `pass`."
    ),
    why="The migrated function is a generator; it has no `build` method, so the call would raise.",
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
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
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


class Impl(RuleImpl):
    rule = RULE

    def claims(self, use):
        """``pipe.build()`` as a statement of its own: removed."""
        if use.kind is not Kind.PIPELINE or use.context != plan.METHOD or use.detail != "build":
            return None
        stmt = use.statement
        if (
            use.holder.args
            or not isinstance(stmt, cst.SimpleStatementLine)
            or len(stmt.body) != 1
            or not isinstance(stmt.body[0], cst.Expr)
            or stmt.body[0].value is not use.holder
        ):
            return "`build()` used as a value"
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
        if len(original) != len(updated) or not any(self._is_build(s) for s in original):
            return None
        out: list = []
        carried: list = []
        for orig, stmt in zip(original, updated):
            if self._is_build(orig):
                hint = self.ctx.migrated_before_hint(orig.body[0].value.func.value)
                self.ctx.report(self.code, orig, "`pipe.build()` removed", hint=hint, fixed=True)
                carried.extend(stmt.leading_lines)
                trailing = stmt.trailing_whitespace.comment
                if trailing is not None:
                    carried.append(cst.EmptyLine(comment=trailing))
                continue
            if carried:
                stmt = stmt.with_changes(leading_lines=[*carried, *stmt.leading_lines])
                carried = []
            out.append(stmt)
        return out

    def _is_build(self, stmt: cst.CSTNode) -> bool:
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)):
            return False
        call = stmt.body[0].value
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "build"):
            return False
        return (
            self.ctx.converted_kind(call.func.value, Kind.PIPELINE) is not None
            and self.ctx.applies(self.code, stmt)
        )
