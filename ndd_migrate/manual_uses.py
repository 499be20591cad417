"""Uses of a pipeline that only a real ``Pipeline`` can serve, so its function must stay as it is.

Migrating a ``@pipeline_def`` function turns what it returns into a generator of batches. Most other
uses of the pipeline object are reported and left to a human (NDD005), but for these the rewrite
itself would break working code with nothing better to offer, so they *block* the conversion:

* ``pipe.serialize()`` / ``nvidia.dali.plugin.tf.serialize_pipeline(pipe)`` (NDD902): dynamic mode
  has no graph to serialize; the protobuf feeds Triton's DALI backend, C++ or ``Pipeline.deserialize``;
* ``@nvidia.dali.plugin.triton.autoserialize`` on the function (NDD903): it raises ``TypeError`` on
  anything that is not a ``pipeline_def``;
* ``nvidia.dali.plugin.tf.DALIDataset(pipeline=pipe)`` (NDD904): it runs the serialized pipeline
  inside TensorFlow's graph;
* ``MyIterator(pipe, ...)`` of a class deriving from a DALI iterator (NDD411, found by
  :func:`ndd_migrate.iterators.subclass_uses`): the base class runs the pipeline.

The analysis records the candidates while it walks the module and, once it knows what each name
holds, turns those whose pipeline is known into blocking problems of that pipeline function.
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate import constructs, names

SERIALIZE_PIPELINE = "nvidia.dali.plugin.tf.serialize_pipeline"
AUTOSERIALIZE_DECORATOR = "nvidia.dali.plugin.triton.autoserialize"
TF_DATASETS = frozenset(
    {
        "nvidia.dali.plugin.tf.DALIDataset",
        "nvidia.dali.plugin.tf.experimental.DALIDatasetWithInputs",
    }
)

# (why the function is not migrated, what to do instead) for each construct.
SERIALIZE = (
    "its pipeline is serialized, and dynamic mode has no graph to serialize",
    "keep it in pipeline mode where the serialized form is used (Triton's DALI backend, C++, "
    "`Pipeline.deserialize`); migrate a copy for Python code that only runs it",
)
AUTOSERIALIZE = (
    "`@autoserialize` exports it to Triton's DALI backend, which loads a serialized pipeline",
    "keep it in pipeline mode for the Triton model; migrate a copy for Python code that only runs it",
)
TF_DATASET = (
    "its pipeline feeds TensorFlow's `DALIDataset`, which has no dynamic-mode form",
    "keep it in pipeline mode for TensorFlow, or wrap the migrated generator in "
    "`tf.data.Dataset.from_generator` (batches then go through host memory)",
)


def consumed_pipeline(
    resolver: cst.MetadataDependent, call: cst.Call
) -> tuple[str, cst.BaseExpression, tuple[str, str]] | None:
    """``(code, pipeline expression, (message, hint))`` when ``call`` needs a real pipeline object."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "serialize":
        return (constructs.SERIALIZED, func.value, SERIALIZE)
    name = names.dali_name(resolver, func)
    if name == SERIALIZE_PIPELINE and call.args:
        return (constructs.SERIALIZED, call.args[0].value, SERIALIZE)
    if name in TF_DATASETS:
        arg = pipeline_arg(call)
        if arg is not None:
            return (constructs.TF_DATASET, arg, TF_DATASET)
    return None


def pipeline_arg(call: cst.Call) -> cst.BaseExpression | None:
    """The ``pipeline`` argument of a ``DALIDataset(...)`` call (keyword or first positional)."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "pipeline":
            return arg.value
    first = call.args[0] if call.args else None
    return first.value if first is not None and first.keyword is None and not first.star else None


def autoserialize_decorator(resolver: cst.MetadataDependent, node: cst.FunctionDef) -> cst.Decorator | None:
    """The ``@autoserialize`` decorator of a function, if it has one."""
    for decorator in node.decorators:
        expr = decorator.decorator
        if names.dali_name(resolver, expr.func if isinstance(expr, cst.Call) else expr) == AUTOSERIALIZE_DECORATOR:
            return decorator
    return None
