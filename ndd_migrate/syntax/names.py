"""Which names in a module mean DALI objects: the one resolver every rule uses.

Rules never match on spelling: ``fn.resize`` means nothing unless ``fn`` resolves to
``nvidia.dali.fn``. libcst's :class:`QualifiedNameProvider` follows every import form
(``import nvidia.dali.fn as fn``, ``from nvidia.dali import fn``, ``import nvidia.dali as dali`` +
``dali.fn.x``, ``from nvidia.dali.pipeline import pipeline_def``, ...) and scoping (a local function
named ``pipeline_def`` shadows nothing of DALI's). This module turns its answers into *canonical*
DALI names, so that the many public spellings of one object compare equal.
"""

from __future__ import annotations

import functools

import libcst as cst
from libcst.metadata import QualifiedNameProvider

DALI = "nvidia.dali"
FN = "nvidia.dali.fn"
OPS = "nvidia.dali.ops"
MATH = "nvidia.dali.math"
TYPES = "nvidia.dali.types"
NDD = "nvidia.dali.experimental.dynamic"
PIPELINE_DEF = "nvidia.dali.pipeline_def"
PIPELINE = "nvidia.dali.Pipeline"
#: Graph constants of pipeline mode: DALI 2.4's dynamic-mode ops reject them (`TypeError`).
CONSTANT = "nvidia.dali.types.Constant"
CONSTANTS = frozenset({CONSTANT, "nvidia.dali.types.ScalarConstant"})
#: The class of pipeline mode's graph values (an op's output), under its canonical spelling; in a
#: converted graph every such value is an `ndd.Batch` (DALI 2.4.0).
DATA_NODE = "nvidia.dali.data_node.DataNode"

# Public re-exports: the same object under several module paths.
_ALIASES = {
    "nvidia.dali.pipeline.pipeline_def": PIPELINE_DEF,
    "nvidia.dali.pipeline.experimental.pipeline_def": PIPELINE_DEF,
    "nvidia.dali.pipeline.Pipeline": PIPELINE,
    "nvidia.dali.pipeline.experimental.Pipeline": PIPELINE,
    "nvidia.dali.experimental.pipeline_def": PIPELINE_DEF,
    # DALI 2.4.0 re-exports the class as `nvidia.dali.pipeline.DataNode`; older DALI named it
    # `_EdgeReference` in `nvidia.dali.ops` (gone from 2.4.0: `from nvidia.dali.ops import
    # _EdgeReference` is an ImportError there; code written for both imports it in a `try:`)
    "nvidia.dali.pipeline.DataNode": DATA_NODE,
    "nvidia.dali.ops._EdgeReference": DATA_NODE,
}


@functools.lru_cache(maxsize=4096)
def canonical(qualified: str) -> str:
    """Map a dotted DALI name to the spelling the rules use (re-exports folded together)."""
    for prefix, target in _ALIASES.items():
        if qualified == prefix or qualified.startswith(prefix + "."):
            return target + qualified[len(prefix) :]
    return qualified


def dali_name(resolver: cst.MetadataDependent, node: cst.CSTNode) -> str | None:
    """The canonical ``nvidia.dali...`` name an expression refers to, or None.

    ``resolver`` is the visitor/transformer that declared :class:`QualifiedNameProvider`;
    ``node`` must be an *original* node of the tree the metadata was computed on.
    """
    if not isinstance(node, (cst.Name, cst.Attribute)):
        return None
    names = resolver.get_metadata(QualifiedNameProvider, node, None) or ()
    found = {canonical(q.name) for q in names if q.name == DALI or q.name.startswith(DALI + ".")}
    # Two different DALI objects under one name (conditional imports): do not guess.
    return found.pop() if len(found) == 1 else None


def fn_path(name: str | None) -> str | None:
    """``nvidia.dali.fn.readers.file`` → ``readers.file``; None for anything else."""
    if name and name.startswith(FN + "."):
        return name[len(FN) + 1 :]
    return None


def math_function(name: str | None) -> str | None:
    """``nvidia.dali.math.sqrt`` → ``sqrt``; None for anything else."""
    if name and name.startswith(MATH + "."):
        return name[len(MATH) + 1 :]
    return None


def is_ndd(name: str | None) -> bool:
    return bool(name) and (name == NDD or name.startswith(NDD + "."))


def dotted(expr: cst.BaseExpression) -> str | None:
    """``a.b.c`` spelled out, or None when the expression is not a plain dotted name."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        head = dotted(expr.value)
        return f"{head}.{expr.attr.value}" if head else None
    return None


def build_dotted(path: str) -> cst.BaseExpression:
    """The expression for a dotted path (``ndd.readers.File``)."""
    parts = path.split(".")
    expr: cst.BaseExpression = cst.Name(parts[0])
    for part in parts[1:]:
        expr = cst.Attribute(value=expr, attr=cst.Name(part))
    return expr
