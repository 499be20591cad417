"""NDD903 autoserialize: a pipeline exported to Triton by ``@autoserialize`` stays a pipeline."""

from __future__ import annotations

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model import constructs

RULE = Rule(
    code="NDD903",
    name="autoserialize",
    summary="a pipeline marked with Triton's `@autoserialize` is not migrated",
    what=(
        "Reports a `@pipeline_def` function decorated with `nvidia.dali.plugin.triton.autoserialize` and "
        "leaves it in pipeline mode (the analysis blocks its conversion; see `ndd_migrate/model/features/manual_uses.py`)."
    ),
    why=(
        "`@autoserialize` marks the pipeline for Triton's DALI backend, which serializes it and runs it "
        "in the server. It raises `TypeError` on anything that is not a `pipeline_def`, so migrating the "
        "function breaks the model file, and the backend has no dynamic mode."
    ),
    fix_safety=FixSafety.MANUAL,
    fix=(
        "None. Keep the Triton model in pipeline mode; if Python code also runs this pipeline, migrate a "
        "copy of the function for it."
    ),
    examples=(
        Example(
            before=(
                "from nvidia.dali import fn, pipeline_def\n"
                "from nvidia.dali.plugin.triton import autoserialize\n\n\n"
                "@autoserialize\n"
                "@pipeline_def(batch_size=8, num_threads=2, device_id=0)\n"
                "def preprocess():\n"
                "    jpegs, _ = fn.readers.file(file_root='images')\n"
                "    return fn.decoders.image(jpegs, device='mixed')\n"
            ),
            after=(
                "from nvidia.dali import fn, pipeline_def\n"
                "from nvidia.dali.plugin.triton import autoserialize\n"
                "\n"
                "\n"
                "# TODO(ndd-migrate): NDD903 kept in pipeline mode: `@autoserialize` exports it to Triton's DALI "
                "backend, which loads a serialized pipeline; keep it in pipeline mode for the Triton model; "
                "migrate a copy for Python code that only runs it\n"
                "@autoserialize\n"
                "@pipeline_def(batch_size=8, num_threads=2, device_id=0)\n"
                "def preprocess():\n"
                "    jpegs, _ = fn.readers.file(file_root='images')\n"
                "    return fn.decoders.image(jpegs, device='mixed')\n"
            ),
        ),
    ),
    valid=("def autoserialize(f):\n    return f\n\n\n@autoserialize\ndef helper():\n    return 1\n",),
)


class Impl(RuleImpl):
    """The analysis finds ``@autoserialize`` (:mod:`ndd_migrate.model.features.manual_uses`); its problem, which
    keeps the pipeline in pipeline mode, is reported under this rule's code."""

    rule = RULE
    reports = (constructs.AUTOSERIALIZED,)
