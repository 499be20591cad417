"""Which pipelines feed a framework iterator or ask for their reader's metadata, and so get the
epoch-aware shape of docs/target-shape.md ("Framework iterators").

The epoch-aware function also gives the reader's metadata: ``pipe_meta, pipe = f(...)``. That is
only possible when every call site of the function is a plain ``name = f(...)`` statement, so the
decision is made here, once per module, before any rule rewrites (NDD001 shapes the function, NDD411
the call sites and the iterator, NDD005 ``epoch_size``/``reader_meta``).
"""

from __future__ import annotations

import libcst as cst

# Rewritten (NDD411): the PyTorch iterators, whose batches ``.torch()`` reproduces.
TORCH_ITERATORS = {
    "nvidia.dali.plugin.pytorch.DALIGenericIterator": None,  # output_map given by the caller
    "nvidia.dali.plugin.pytorch.DALIClassificationIterator": ("data", "label"),
}
# Reported (NDD411): iterators of other frameworks, which hand out their own tensor types.
OTHER_ITERATORS = {
    f"nvidia.dali.plugin.{fw}.{cls}"
    for fw, classes in {
        "jax": ("DALIGenericIterator", "iterator.DALIGenericIterator", "data_iterator"),
        "paddle": ("DALIGenericIterator", "DALIClassificationIterator"),
        "mxnet": ("DALIGenericIterator", "DALIClassificationIterator", "DALIGluonIterator"),
        "pytorch": ("DALIRaggedIterator",),
        "tf": ("DALIIterator",),
    }.items()
    for cls in classes
}
METADATA_METHODS = ("epoch_size", "reader_meta")


def meta_name(pipe: str) -> str:
    """The name the reader's metadata gets next to the pipeline object ``pipe``."""
    return f"{pipe}_meta"


def epoch_aware(call: cst.Call, dali: str | None) -> cst.BaseExpression | None:
    """The pipeline expression of an iterator call that may get the epoch-aware shape."""
    if dali in TORCH_ITERATORS and call.args and call.args[0].keyword is None:
        return call.args[0].value
    return None


def metadata_receiver(node: cst.Call) -> cst.BaseExpression | None:
    """``pipe`` of ``pipe.epoch_size(...)`` / ``pipe.reader_meta(...)``."""
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value in METADATA_METHODS:
        return func.value
    return None


def plain_call_sites(model, assigns) -> set:
    """Pipeline functions all of whose call sites are ``name = f(...)`` statements."""
    plain = {id(value) for _, target, value in assigns if isinstance(target, cst.Name)}
    out = set()
    for fn in model.pipelines.values():
        sites = [call for call, f in model.call_sites.items() if f is fn]
        if sites and all(id(call) in plain for call in sites):
            out.add(fn)
    return out


def mark(analyzer, uses: list[cst.BaseExpression]) -> None:
    """Set ``fn.epochs`` for the pipeline functions that ``uses`` (iterator arguments, receivers of
    ``epoch_size``/``reader_meta``) show to need the reader's metadata, when every use is a name
    bound directly by a call site, and the function has a reader and plain call sites only."""
    model = analyzer.model
    direct = {
        (scope, target.value): model.call_sites[value]
        for scope, target, value in analyzer._assigns
        if isinstance(target, cst.Name) and value in model.call_sites
    }
    plain = plain_call_sites(model, analyzer._assigns)
    factories = set(map(id, model.factories.values()))
    for expr in uses:
        fn = _bound_pipeline(analyzer, direct, expr)
        if fn is not None and fn in plain and fn.reader_index is not None and fn.given("batch_size") and id(fn) not in factories:
            fn.epochs = True


def _bound_pipeline(analyzer, direct, expr):
    if not isinstance(expr, cst.Name):
        return None
    scope = analyzer._scope_of(expr)
    while scope is not None and not scope.assignments[expr.value]:
        scope = None if scope.parent is scope else scope.parent
    return direct.get((scope, expr.value))
