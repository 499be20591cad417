"""NDD202 batch-index: ``out[i]`` on a pipeline output becomes ``out.tensors[i]``."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.types import Kind
from ndd_migrate.plan import uses

RULE = Rule(
    code="NDD202",
    name="batch-index",
    summary="a `Batch` is not subscriptable: pick samples with `.tensors[i]`",
    what=(
        "On outputs of a migrated pipeline, rewrites `out[i]` to `out.tensors[i]`, and the methods of the "
        "sample it gave: `out[i].as_array()` → `np.asarray(out.tensors[i])`, `.shape()` → `list(… .shape)`, "
        '`.layout()` → `(… .layout or "")`, `.as_cpu()` → `.cpu()`. Another method of the sample, or '
        "`isinstance()` of it with a class of `nvidia.dali.backend` (a dynamic-mode `Tensor` is none of them), "
        "keeps the pipeline (NDD008)."
    ),
    why=(
        "`TensorList[i]` gave sample i; `Batch` has no `__getitem__` (a `TypeError`). Per-sample slicing "
        "inside every sample is `batch.slice[...]`, a different operation."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix="Same sample. `out.tensors[i]` is an ndd `Tensor`; use `np.asarray(...)` where numpy was expected.",
    examples=(
        Example(
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    return fn.random.uniform(shape=[3])\n\n\n"
                "pipe = p()\n"
                "out = pipe.run()\n"
                "first = out[0][1]\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def p(*, batch_size=2):\n"
                "    while True:\n"
                "        yield ndd.random.uniform(shape=[3], batch_size=batch_size).evaluate(),\n\n\n"
                "pipe = p()\n"
                "out = next(pipe)\n"
                "first = out[0].tensors[1]\n"
            ),
        ),
    ),
)


#: Methods of a pipeline-mode sample (``TensorCPU``/``TensorGPU``) and what the dynamic-mode
#: ``Tensor`` spells for them.
SAMPLE_METHODS = ("as_array", "shape", "layout", "as_cpu")


class Impl(RuleImpl):
    rule = RULE

    def claims(self, use):
        """``out[i]`` → ``out.tensors[i]``, when what is done with the sample is known."""
        if use.kind is not Kind.BATCH or use.context != uses.SUBSCRIPT:
            return None
        why = self._sample_use(use.holder)
        if why:
            return why
        return self.ctx.applies(self.code, use.holder) or None

    def _sample_use(self, subscript: cst.CSTNode) -> str | None:
        """Why what is done with the sample ``subscript`` gives has no rewrite, or None."""
        parents = self.ctx.model.parents
        parent = parents.get(subscript)
        if isinstance(parent, cst.Attribute) and parent.value is subscript:
            call = parents.get(parent)
            if isinstance(call, cst.Call) and call.func is parent and parent.attr.value not in SAMPLE_METHODS:
                return f"`.{parent.attr.value}()` of a sample has no dynamic-mode counterpart the migration writes"
            if isinstance(call, cst.Call) and call.func is parent and call.args:
                return f"`.{parent.attr.value}()` of a sample is called with arguments"
            return None
        arg = parent if isinstance(parent, cst.Arg) else None
        call = parents.get(arg) if arg is not None else None
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "isinstance":
            kind = call.args[1].value if len(call.args) == 2 else None
            if kind is not None and (self.dali_name(kind) or "").startswith("nvidia.dali.backend"):
                return "`isinstance()` of a sample with a pipeline-mode tensor class: a dynamic-mode `Tensor` is none"
        return None

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """The methods of a sample ``out[i]`` of a migrated output (:data:`SAMPLE_METHODS`)."""
        func = original.func
        if not (
            isinstance(func, cst.Attribute)
            and func.attr.value in SAMPLE_METHODS
            and not original.args
            and isinstance(func.value, cst.Subscript)
            and self.ctx.converted_kind(func.value.value, Kind.BATCH) is not None
            and isinstance(updated.func, cst.Attribute)
            and self.ctx.applies(self.code, func.value)
        ):
            return updated
        sample, method = updated.func.value, func.attr.value
        self.ctx.report(self.code, original, f"`.{method}()` of a sample → the dynamic-mode `Tensor`'s", fixed=True)
        if method == "as_array":
            return cst.Call(self.ctx.numpy("asarray"), [cst.Arg(sample)])
        if method == "as_cpu":
            return updated.with_changes(func=updated.func.with_changes(attr=cst.Name("cpu")))
        read = cst.Attribute(sample, cst.Name(method))
        if method == "layout":  # None when the sample has none; pipeline mode gave ""
            return cst.BooleanOperation(
                read, cst.Or(), cst.SimpleString('""'), lpar=[cst.LeftParen()], rpar=[cst.RightParen()]
            )
        return cst.Call(cst.Name("list"), [cst.Arg(read)])  # a tuple; pipeline mode gave a list

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        if self.ctx.converted_kind(original.value, Kind.BATCH) is None or not isinstance(updated, cst.Subscript):
            return updated
        fixed = self.ctx.applies(self.code, original)
        self.ctx.report(self.code, original, "`out[i]` → `out.tensors[i]`", fixed=fixed, hint="use `.tensors[i]`")
        if not fixed:
            return updated
        return updated.with_changes(value=cst.Attribute(updated.value, cst.Name("tensors")))
