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
  :func:`ndd_migrate.model.features.iterator_subclasses.subclass_uses`): the base class runs the pipeline;
* programs that test pipeline mode itself (NDD905): ``pipe.enable_api_check(...)`` (the check that
  ``run()`` is not mixed with ``schedule_run()``/``share_outputs()``/``release_outputs()``/``outputs()``,
  none of which dynamic mode has), and ``assert_raises(E, pipe.run)`` on a pipeline fed by
  ``feed_input`` (pipeline mode refuses a fed batch larger than ``batch_size``, DALI 2.4: "The
  external source callback returned an unexpected batch size", or fed to a source the graph
  dropped: ``KeyError``; a dynamic-mode batch has no such bound, so the expected error never comes).
  Tests that expect a build, a creation or a Python operator's run to raise are found by
  :mod:`ndd_migrate.model.features.expected_errors`.

The analysis records the candidates while it walks the module and, once it knows what each name
holds, turns those whose pipeline is known into blocking problems of that pipeline function.
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate.model import constructs
from ndd_migrate.syntax import cstutil, names, tree

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


API_CHECK = (
    "the program tests pipeline mode's API check (`{code}`: whether `run()` may be mixed with "
    "`schedule_run()`, `share_outputs()`, `release_outputs()` and `outputs()`), and dynamic mode has "
    "none of these methods",
    "keep it in pipeline mode: what it tests is pipeline mode's own behaviour",
)
FED_RUN_RAISES = (
    "the program expects `{receiver}.run` to raise (`{code}`) on data fed with `feed_input`: pipeline mode "
    "checks what is fed (at most `batch_size` samples, into a source the graph uses) and dynamic mode "
    "takes any batch, so the error it tests for never comes",
    "keep it in pipeline mode: what it tests is pipeline mode's own behaviour",
)
# Calls that expect their callable argument to raise: `assert_raises(E, f)` (nose, DALI's tests),
# `pytest.raises(E, f)`, `self.assertRaises(E, f)`.
RAISE_CHECKERS = frozenset({"assert_raises", "assertRaises", "raises"})


def _with_code(advice: tuple[str, str], **names) -> tuple[str, str]:
    return (advice[0].format(**names), advice[1])


def consumed_pipeline(
    resolver: cst.MetadataDependent, call: cst.Call
) -> tuple[str, cst.BaseExpression, tuple[str, str]] | None:
    """``(code, pipeline expression, (message, hint))`` when ``call`` needs a real pipeline object."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "serialize":
        return (constructs.SERIALIZED, func.value, SERIALIZE)
    if isinstance(func, cst.Attribute) and func.attr.value == "enable_api_check":
        return (constructs.API_CHECK, func.value, _with_code(API_CHECK, code=cstutil.code(call)))
    last = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
    if last in RAISE_CHECKERS and len(call.args) >= 2:
        run = call.args[1].value
        if isinstance(run, cst.Attribute) and run.attr.value == "run" and call.args[1].keyword is None:
            advice = _with_code(FED_RUN_RAISES, receiver=cstutil.code(run.value), code=cstutil.code(call))
            return (constructs.FED_RUN_RAISES, run.value, advice)
    name = names.dali_name(resolver, func)
    if name == SERIALIZE_PIPELINE and call.args:
        return (constructs.SERIALIZED, call.args[0].value, SERIALIZE)
    if name in TF_DATASETS:
        arg = pipeline_arg(call)
        if arg is not None:
            return (constructs.TF_DATASET, arg, TF_DATASET)
    return None


def feeds_input(node: cst.CSTNode) -> bool:
    """Does the definition ``node`` (a ``Pipeline`` subclass) call ``feed_input``?"""
    found = []

    class Feeds(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            if isinstance(call.func, cst.Attribute) and call.func.attr.value == "feed_input":
                found.append(call)

    tree.visit(node, Feeds())
    return bool(found)


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
