"""NDD904 tf-dataset: TensorFlow's ``DALIDataset`` needs a pipeline object."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model import constructs
from ndd_migrate.model.features import manual_uses
from ndd_migrate.model.types import Kind

RULE = Rule(
    code="NDD904",
    name="tf-dataset",
    summary="TensorFlow's `DALIDataset` has no dynamic-mode form",
    what=(
        "Reports `nvidia.dali.plugin.tf.DALIDataset(...)` and `...tf.experimental.DALIDatasetWithInputs(...)`. "
        "A pipeline function whose pipeline is passed to one is not migrated, also where the call is in "
        "another module of the run (NVIDIA's TensorFlow examples define the pipeline in one module and make "
        "the dataset in another): the finding is then at the function, naming that call."
    ),
    why=(
        "`DALIDataset` serializes the pipeline and runs it inside TensorFlow's graph as a dataset op. "
        "Dynamic mode has no TensorFlow integration (DALI ships dynamic-mode helpers for PyTorch only), "
        "and the migrated generator cannot be serialized."
    ),
    fix_safety=FixSafety.MANUAL,
    fix=(
        "None. Keep the pipeline in pipeline mode for TensorFlow, or wrap the migrated generator in "
        "`tf.data.Dataset.from_generator`, converting each batch with `np.asarray(ndd.as_tensor(batch))` "
        "(batches then go through host memory, and `tf.data` no longer sees DALI's GPU outputs)."
    ),
    examples=(
        Example(
            before=(
                "import tensorflow as tf\n"
                "from nvidia.dali import fn, pipeline_def\n"
                "from nvidia.dali.plugin.tf import DALIDataset\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    return fn.random.uniform()\n\n\n"
                "ds = DALIDataset(pipeline=p(), batch_size=2, output_dtypes=(tf.float32,))\n"
            ),
            after=(
                "import tensorflow as tf\n"
                "from nvidia.dali import fn, pipeline_def\n"
                "from nvidia.dali.plugin.tf import DALIDataset\n"
                "\n"
                "\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    return fn.random.uniform()\n"
                "\n"
                "\n"
                "# TODO(ndd-migrate): NDD904 kept in pipeline mode: its pipeline feeds TensorFlow's `DALIDataset`, "
                "which has no dynamic-mode form; keep it in pipeline mode for TensorFlow, or wrap the "
                "migrated generator in `tf.data.Dataset.from_generator` (batches then go through host "
                "memory)\n"
                "ds = DALIDataset(pipeline=p(), batch_size=2, output_dtypes=(tf.float32,))\n"
            ),
        ),
    ),
    valid=("import tensorflow as tf\n\nds = tf.data.Dataset.from_tensor_slices([1, 2, 3])\n",),
)


class Impl(RuleImpl):
    """Datasets over pipelines the analysis cannot tie to a pipeline function of this module (a
    ``Pipeline`` object, an imported one); for the others the engine reports the blocked function."""

    rule = RULE
    reports = (constructs.TF_DATASET,)

    def leave_Call(self, original: cst.Call, updated):
        if self.dali_name(original.func) not in manual_uses.TF_DATASETS:
            return updated
        arg = manual_uses.pipeline_arg(original)
        found = self.ctx.kind(arg) if arg is not None else None
        if (found and found[0] is Kind.PIPELINE) or original in self.ctx.model.traced_keeps:
            return updated  # reported at the pipelines it keeps
        self.ctx.report(
            self.code,
            original,
            "TensorFlow's `DALIDataset` has no dynamic-mode form",
            hint=manual_uses.TF_DATASET[1],
            fixed=False,
        )
        return updated
