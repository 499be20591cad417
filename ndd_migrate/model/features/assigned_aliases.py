"""DALI reached through a name bound by assignment: ``fn = dali.fn``, ``decode = fn.decoders.image``.

The migration knows a DALI name from the module's imports (libcst's qualified names), not from an
assignment: a call through such a name stays a pipeline-mode call, and inside a converted generator
it would build a graph node no one runs. Every pipeline of the module then stays in pipeline mode,
with the reason at the assignment. Values that are DALI constants (``dtype = types.FLOAT``) are not
aliases of anything the migration rewrites, and are left alone.
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate.model import constructs
from ndd_migrate.model.types import PipelineFunction, Problem
from ndd_migrate.syntax import cstutil, names

#: DALI's modules that hold what the migration rewrites, and the callables under them.
_MODULES = (names.DALI, names.FN, names.OPS, names.MATH, names.TYPES)
_CALLABLES = (names.FN + ".", names.OPS + ".", names.MATH + ".")


def note(analyzer, node: cst.Assign) -> None:
    """Remember ``node`` when it binds a name to one of DALI's modules or operators."""
    value = node.value
    if not isinstance(value, (cst.Name, cst.Attribute)) or names.dotted(value) is None:
        return
    dali = names.dali_name(analyzer, value)
    if dali in _MODULES or dali in names.CONSTANTS or (dali is not None and dali.startswith(_CALLABLES)):
        analyzer.model.dali_aliases.append(node)


def block(model) -> None:
    """Each pipeline of the module gets the first such assignment as its problem."""
    if not model.dali_aliases:
        return
    node = model.dali_aliases[0]
    text = cstutil.code(node)
    message = (
        f"`{text}` binds DALI by assignment, which the migration does not follow: calls through that name would "
        "stay pipeline-mode calls in the generator"
    )
    hint = "import the name instead (`from nvidia.dali import fn`, `import nvidia.dali.fn as fn`), then run the migration again"
    for pipeline in model.pipelines.values():
        about = constructs.PIPELINE_FUNCTION if isinstance(pipeline, PipelineFunction) else constructs.PIPELINE_SUBCLASS
        pipeline.problems.append(Problem(about, node, message, hint))
