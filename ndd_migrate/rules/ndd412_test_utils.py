"""NDD412 test-utils: a migrated pipeline (or batch) handed to a comparison of DALI's ``test_utils``."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import QualifiedNameProvider, QualifiedNameSource

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.features import test_utils
from ndd_migrate.plan import uses

_BEFORE = (
    "from nvidia.dali import fn, pipeline_def\n"
    "from test_utils import compare_pipelines\n\n\n"
    "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
    "def flipped(root):\n"
    "    data = fn.readers.numpy(file_root=root)\n"
    "    return fn.flip(data, horizontal=1)\n\n\n"
    "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
    "def flipped_twice(root):\n"
    "    data = fn.readers.numpy(file_root=root)\n"
    "    return fn.flip(fn.flip(data), horizontal=1, vertical=1)\n\n\n"
    "def test_flip():\n"
    "    compare_pipelines(flipped('/data'), flipped_twice('/data'), 2, 5)\n"
)
_AFTER = (
    "import nvidia.dali.experimental.dynamic as ndd\n\n"
    "from ndd_support import compare_pipelines, prefetching\n\n\n"
    "@prefetching\n"
    "def flipped(root, *, batch_size=2, num_threads=1, device_id=None):\n"
    "    ndd.set_num_threads(num_threads)\n"
    "    reader = ndd.readers.Numpy(file_root=root)\n"
    "    while True:\n"
    "        for (data,) in reader.next_epoch(batch_size=batch_size):\n"
    "            yield ndd.flip(data, horizontal=1).evaluate(),\n\n\n"
    "@prefetching\n"
    "def flipped_twice(root, *, batch_size=2, num_threads=1, device_id=None):\n"
    "    ndd.set_num_threads(num_threads)\n"
    "    reader = ndd.readers.Numpy(file_root=root)\n"
    "    while True:\n"
    "        for (data,) in reader.next_epoch(batch_size=batch_size):\n"
    "            yield ndd.flip(ndd.flip(data), horizontal=1, vertical=1).evaluate(),\n\n\n"
    "def test_flip():\n"
    "    compare_pipelines(flipped('/data'), flipped_twice('/data'), 2, 5)\n"
)

RULE = Rule(
    code="NDD412",
    name="test-utils",
    summary="a migrated pipeline or batch given to `compare_pipelines` / `check_batch` of DALI's `test_utils`: "
    "the support module's",
    what=(
        "DALI's tests, and the projects that copy them, compare two pipelines with "
        "`test_utils.compare_pipelines(pipe1, pipe2, batch_size, N_iterations, eps=..., max_allowed_error=..., "
        "expected_layout=..., compare_layouts=...)` (both built, run `N_iterations` times, each pair of outputs "
        "checked) and two batches with `test_utils.check_batch(batch1, batch2, batch_size, eps, ...)` (as many "
        "samples, the same shapes, a mean absolute difference within `eps`, the largest within "
        "`max_allowed_error`, the same layouts). Where a migrated pipeline, or an output of one, is given to "
        "them, the name's import moves to the support module, whose functions of the same names and parameters "
        "do what DALI's source documents for pipelines and batches of either mode; the calls stay as written "
        "(`test_utils.compare_pipelines(...)` becomes the support module's `compare_pipelines(...)`). Two "
        "pipelines compared convert together or not at all: a pipeline-mode one and a migrated one draw "
        "different random numbers."
    ),
    why=(
        "DALI's functions call `pipe.build()` and `pipe.run()`, which a migrated pipeline (a generator of "
        "batches) does not have, and read samples with `TensorList.at()`, which a dynamic-mode `Batch` does "
        "not have."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "Applied with NDD001: `from test_utils import compare_pipelines` becomes `from ndd_support import "
        "compare_pipelines` (only the comparisons given migrated values: the other names of `test_utils` stay). "
        "The support module's comparisons take pipeline-mode pipelines and `TensorList`s too, so a call that "
        "compares pipelines that stay in pipeline mode keeps its meaning."
    ),
    examples=(Example(title="two pipelines compared: the import moves, the call stays", before=_BEFORE, after=_AFTER),),
    valid=(
        "from test_utils import compare_pipelines\n\n\n"
        "def test_ours(pipe1, pipe2):\n"
        "    compare_pipelines(pipe1, pipe2, 2, 5)\n",
    ),
)


class Impl(RuleImpl):
    rule = RULE

    def claims(self, use):
        """A migrated pipeline (batch) given as one of the two values a comparison compares."""
        if use.context != uses.ARGUMENT or not isinstance(use.holder, cst.Call):
            return None
        name, _ = self._comparison(use.holder)
        if name is None:
            return None
        compared = self._compared(use.holder, test_utils.COMPARISONS[name])
        if use.node not in compared or use.kind is not test_utils.COMPARISONS[name].kind:
            return f"`{name}()` is given it other than as one of the two values it compares"
        if isinstance(use.holder.func, cst.Attribute) and name in self.ctx.model.names.module_level:
            return f"the module binds `{name}` itself, where the support module's `{name}` would be imported"
        for other in compared:
            found = self.ctx.kind(other)
            if found is not None and not found[1].convert:
                other = getattr(found[1], "display", None) or found[1].qualname.rpartition(".")[2]
                return (
                    f"`{name}()` compares it with a value of `{other}`, which stays in pipeline mode "
                    "(the two modes draw different random numbers): they convert together or not at all"
                )
        return self.ctx.applies(self.code, use.holder) or None

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        name, earlier = self._comparison(original)
        if name is None or earlier:
            return updated  # not one; or the support module's already
        comparison = test_utils.COMPARISONS[name]
        if not any(self.ctx.converted_kind(arg, comparison.kind) for arg in self._compared(original, comparison)):
            return updated
        if not self.ctx.applies(self.code, original):
            return updated
        self.ctx.report(
            self.code,
            original,
            f"`{name}()` of DALI's `test_utils` → the support module's, for migrated values",
            fixed=True,
        )
        if isinstance(original.func, cst.Name):  # imported by name: the import moves, the call stays
            self.ctx.imports.moved_to_support[original.func.value] = name
            return updated
        return updated.with_changes(func=self.ctx.support(name))

    def _comparison(self, call: cst.Call) -> tuple[str | None, bool]:
        """``(name, migrated before)``: the comparison of ``test_utils`` that ``call`` calls (its name
        there; None: none), and whether the name is the support module's already (a module migrated
        before imports it)."""
        for qualified in self.ctx.resolver.get_metadata(QualifiedNameProvider, call.func, None) or ():
            if qualified.source is QualifiedNameSource.IMPORT:
                earlier = test_utils.migrated_before(qualified.name)
                return earlier or test_utils.counterpart(qualified.name), earlier is not None
        return None, False

    @staticmethod
    def _compared(call: cst.Call, comparison: test_utils.Comparison) -> list[cst.BaseExpression]:
        """The two values ``call`` compares, as given (first two positional, or by keyword)."""
        positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star][:2]
        named = [arg.value for arg in call.args if arg.keyword and arg.keyword.value in comparison.parameters]
        return positional + named
