"""NDD902 serialize: serialized pipelines have no dynamic-mode form."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model import constructs
from ndd_migrate.model.features import manual_uses
from ndd_migrate.model.types import Kind

RULE = Rule(
    code="NDD902",
    name="serialize",
    summary="a serialized pipeline has no dynamic-mode form",
    what=(
        "Reports `pipe.serialize()` and `nvidia.dali.plugin.tf.serialize_pipeline(pipe)` on a pipeline, "
        "`Pipeline.deserialize(...)`, `pipe.deserialize_and_build(...)` and `serialized_pipeline=` arguments. A pipeline function whose "
        "pipeline is serialized is not migrated, also where another module of the run serializes it (the "
        "finding is then at the function, naming that module's call)."
    ),
    why=(
        "`serialize()` writes the pipeline's graph as protobuf for Triton's DALI backend, C++ or "
        "`Pipeline.deserialize`. Dynamic mode runs operators eagerly from Python: there is no graph, so "
        "neither side of the round trip exists there, and the migrated generator has no `serialize`."
    ),
    fix_safety=FixSafety.MANUAL,
    fix=(
        "None. Keep the pipeline in pipeline mode where its serialized form is consumed; for Python "
        "training code, migrate a copy of the function (or call the `@pipeline_def` function directly "
        "instead of deserializing it)."
    ),
    examples=(
        Example(
            title="a serialized pipeline stays as it is",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    return fn.random.uniform()\n\n\n"
                "pipe = p()\n"
                "pipe.serialize(filename='model.dali')\n"
            ),
            after=(
                "from nvidia.dali import fn, pipeline_def\n"
                "\n"
                "\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    return fn.random.uniform()\n"
                "\n"
                "\n"
                "pipe = p()\n"
                "# TODO(ndd-migrate): NDD902 kept in pipeline mode: its pipeline is serialized, and dynamic mode has "
                "no graph to serialize; keep it in pipeline mode where the serialized form is used (Triton's "
                "DALI backend, C++, `Pipeline.deserialize`); migrate a copy for Python code that only runs "
                "it\n"
                "pipe.serialize(filename='model.dali')\n"
            ),
        ),
        Example(
            title="deserializing",
            before=(
                "from nvidia.dali import Pipeline\n\npipe = Pipeline.deserialize(filename='model.dali', batch_size=8)\n"
            ),
            after=(
                "from nvidia.dali import Pipeline\n"
                "\n"
                "# TODO(ndd-migrate): NDD902 dynamic mode cannot load a serialized pipeline: call the "
                "`@pipeline_def` function it was made from (migrated, it yields the batches), or keep "
                "pipeline mode here\n"
                "pipe = Pipeline.deserialize(filename='model.dali', batch_size=8)\n"
            ),
        ),
    ),
    valid=(
        "import json\n\n\nclass Model:\n    def serialize(self):\n        return json.dumps({})\n\n\n"
        "Model().serialize()\n",
    ),
)

_DESERIALIZE = "nvidia.dali.Pipeline.deserialize"
_HINT = (
    "dynamic mode cannot load a serialized pipeline: call the `@pipeline_def` function it was made from "
    "(migrated, it yields the batches), or keep pipeline mode here"
)


class Impl(RuleImpl):
    """What the analysis cannot tie to a pipeline function of this module; ``.serialize()`` on one
    of them blocks its conversion and is reported by the engine (see :mod:`ndd_migrate.model.features.manual_uses`)."""

    rule = RULE
    reports = (constructs.SERIALIZED,)

    def leave_Call(self, original: cst.Call, updated):
        name = self.dali_name(original.func)
        if name == _DESERIALIZE:
            self._report(original, "`Pipeline.deserialize` has no dynamic-mode form")
        elif isinstance(original.func, cst.Attribute) and original.func.attr.value == "deserialize_and_build":
            self._report(
                original, "`deserialize_and_build` loads a serialized pipeline, which has no dynamic-mode form"
            )
        elif name == manual_uses.SERIALIZE_PIPELINE and not self._known_pipeline(original):
            self._report(original, "`serialize_pipeline` needs a pipeline-mode pipeline")
        elif name is not None:  # any DALI callable (`DALIIteratorWrapper`, `Pipeline`, ...)
            for arg in original.args:
                if arg.keyword is not None and arg.keyword.value == "serialized_pipeline":
                    self._report(arg, "`serialized_pipeline=` has no dynamic-mode form")
        return updated

    def _known_pipeline(self, call: cst.Call) -> bool:
        found = self.ctx.kind(call.args[0].value) if call.args else None
        return bool(found and found[0] is Kind.PIPELINE)

    def _report(self, node: cst.CSTNode, message: str) -> None:
        self.ctx.report(self.code, node, message, hint=_HINT, fixed=False)
