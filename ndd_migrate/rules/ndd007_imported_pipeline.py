"""NDD007 imported-pipeline: a pipeline made by a function of a module outside the run."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ScopeProvider

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model import crossfile

RULE = Rule(
    code="NDD007",
    name="imported-pipeline",
    summary="a pipeline from another module: its call sites change when that module is migrated",
    what=(
        "Reports `build()` and `run()` on a name bound from a call of an imported function that this run "
        "does not define (the defining module was not given), when both are called on it: the object is "
        "almost surely a DALI pipeline. When `migrate` or `check` runs over both modules (a directory), "
        "the call sites are rewritten instead (NDD002, NDD003), and this rule stays silent. Project modules "
        "that a file imports are read from disk even when not given (pre-commit passes only the staged "
        "files): one still in pipeline mode makes each `build()` or `run()` on its pipeline a finding here, "
        "naming the file, and the call sites stay as they are; one already migrated makes them NDD002 and "
        "NDD003 findings, with their fixes."
    ),
    why=(
        "Migrating the module that defines the pipeline function turns it into a generator function; "
        "`build()` and `run()` in the modules that import it would then fail."
    ),
    fix_safety=FixSafety.MANUAL,
    fix=(
        "Run `ndd-migrate migrate` over the defining module and this one together. By hand, once the "
        "defining module is migrated: remove `pipe.build()`, and `pipe.run()` becomes `next(pipe)`."
    ),
    examples=(
        Example(
            before=(
                "import nvidia.dali.fn as fn  # noqa: F401\n"
                "from train import train_pipe\n\n"
                "pipe = train_pipe('/data', batch_size=32)\n"
                "pipe.build()\n"
                "images, labels = pipe.run()\n"
            ),
            after=(
                "import nvidia.dali.fn as fn  # noqa: F401\n"
                "from train import train_pipe\n"
                "\n"
                "pipe = train_pipe('/data', batch_size=32)\n"
                "# TODO(ndd-migrate): NDD007 if `train_pipe` of `train` is migrated (a generator function), "
                "remove `pipe.build()`; migrate both files in one run to have it done\n"
                "pipe.build()\n"
                "# TODO(ndd-migrate): NDD007 if `train_pipe` of `train` is migrated (a generator function), "
                "`pipe.run()` → `next(pipe)`; migrate both files in one run to have it done\n"
                "images, labels = pipe.run()\n"
            ),
        ),
    ),
    valid=(
        "from service import make_app\n\napp = make_app()\napp.run()\n",
        "from tools import make_target\n\ntarget = make_target()\ntarget.build()\n",
    ),
)

_ADVICE = {
    "build": "remove `{name}.build()`",
    "run": "`{name}.run()` → `next({name})`",
}


class Impl(RuleImpl):
    rule = RULE

    def leave_Call(self, original: cst.Call, updated):
        func = original.func
        if not (
            isinstance(func, cst.Attribute)
            and func.attr.value in _ADVICE
            and isinstance(func.value, cst.Name)
            and not original.args
        ):
            return updated
        name = func.value.value
        scope = self.ctx.resolver.get_metadata(ScopeProvider, func.value, None)
        quals = self.ctx.model.crossfile.foreign.get((scope, name))
        if quals is None:
            return updated
        module = quals[0].rpartition(".")[0]
        function = "` or `".join(qual.rpartition(".")[2] for qual in quals)
        defined_in = crossfile.lookup(self.ctx.model.crossfile.outside, quals[0])
        if defined_in is not None:
            # Known to be a pipeline-mode pipeline of a file not in the run: nothing to edit here,
            # only a run over both files, so no TODO (it would stay behind after that run).
            self.ctx.report(
                self.code,
                original,
                f"`{name}` comes from `{function}` of `{module}` ({defined_in}), still in pipeline mode "
                "and not in this run: left as it is",
                hint=_ADVICE[func.attr.value].format(name=name)
                + f" once `{defined_in}` is migrated; migrate it and this file in one run to have it done",
                fixed=False,
                todo=False,
            )
            return updated
        self.ctx.report(
            self.code,
            original,
            f"`{name}` comes from `{function}` of `{module}`, which this run does not migrate",
            hint=f"if `{function}` of `{module}` is migrated (a generator function), "
            + _ADVICE[func.attr.value].format(name=name)
            + "; migrate both files in one run to have it done",
            fixed=False,
        )
        return updated
