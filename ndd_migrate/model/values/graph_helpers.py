"""The graph helpers the engine and the rules treat apart: the helpers that need the pipeline's
``batch_size`` or RNG (NDD104, NDD105) and those that build part of the graphs of several pipelines
(converted together or not at all).

Both are read from the graph code of :mod:`ndd_migrate.model.values.graph_code`, once the module's
conversions are decided.
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate.model.values.graph_code import HelperCalls, prepared
from ndd_migrate.syntax import names, tree
from ndd_migrate.syntax.cstutil import SkipsTrivia


def threaded_helpers(resolver: cst.MetadataDependent, model) -> dict[cst.FunctionDef, HelperCalls]:
    """The functions of the module that build part of a graph with ops that need the pipeline's
    batch size (an op without a batch input) or its RNG (a random op), called only from graph code
    that is converted: ``def processing(images): ... fn.random.uniform(...)`` called from a
    ``@pipeline_def`` body. Each gets keyword parameters ``batch_size`` and ``rng=None`` that its
    callers pass on (NDD104, NDD105), since the generator's own are not in its scope.

    Decided once, after the conversions (read while the module is rewritten): every pipeline whose
    graph runs the helper is converted (Context.may_rewrite_dali_calls then rewrites its ``fn.*``), the helper is only called (never passed on), by name, from
    a pipeline body or another such helper, and does not itself bind ``batch_size`` or ``rng``."""
    graph, found = prepared(resolver, model)
    if found.helpers is not None:
        return found.helpers
    if model.by_hand():
        found.helpers = {}  # helpers stay pipeline-mode code (Context.may_rewrite_dali_calls)
        return found.helpers
    candidates = _candidates(graph)
    found.helpers = {node: candidates[node] for node in _needed(graph, candidates)}
    return found.helpers


def _candidates(graph) -> dict[cst.FunctionDef, HelperCalls]:
    """The graph helpers that could take the values: a ``def`` (not a root, never passed on) whose
    every pipeline converts and that spells neither ``batch_size`` nor ``rng``; each with the calls
    of ops in it that need them and its callers."""
    candidates: dict[cst.FunctionDef, HelperCalls] = {}
    for function, owners, is_root in graph.graph_functions():
        node = function.node
        if is_root or not isinstance(node, cst.FunctionDef) or node in graph.escapes:
            continue
        if not owners or not all(owner.convert for owner in owners):
            continue
        ops = _OpCalls()
        tree.visit(node.body, ops)
        if ops.names & {"batch_size", "rng"} or {p.name.value for p in function.params} & {"batch_size", "rng"}:
            continue
        candidates[node] = _needs(graph, ops.calls)
    for node, helper in candidates.items():
        for call in graph.call_sites.get(node, ()):
            helper.callers[call] = _caller(graph, call)
    return candidates


def _needs(graph, calls: list[cst.Call]) -> HelperCalls:
    """Of a helper's ``calls``, the ops that need the batch size (no batch input) and the random ops
    given no ``rng=``/``seed=``."""
    from ndd_migrate.dali.tables import op_info

    helper = HelperCalls()
    for call in calls:
        path = names.fn_path(graph.dali_name(call.func))
        info = op_info(path) if path else None
        if info is None or info.ndd is None or info.reader or any(a.star for a in call.args):
            continue
        if info.batch_size_arg and not any(a.keyword is None for a in call.args) and not _has_kwarg(call, "batch_size"):
            helper.sizes.append(call)
        if info.random and not _has_kwarg(call, "rng") and not _has_kwarg(call, "seed"):
            helper.randoms.append(call)
    return helper


def _needed(graph, candidates: dict[cst.FunctionDef, HelperCalls]) -> set[cst.FunctionDef]:
    """Only the helpers that need the values, and those that call them; every caller must have them
    (a pipeline body, or another helper that takes them)."""
    needed = {node for node, helper in candidates.items() if helper.sizes or helper.randoms}
    changed = True
    while changed:
        changed = False
        for node in candidates:
            if node not in needed and any(callee in needed for callee in _callees(graph, node)):
                needed.add(node)
                changed = True
        for node in list(needed):
            if any(caller not in graph.roots and caller not in needed for caller in candidates[node].callers.values()):
                needed.discard(node)
                changed = True
    return needed


def shared_helpers(resolver: cst.MetadataDependent, model) -> list[tuple[str, dict]]:
    """The module's functions (or lambdas) that build part of the graphs of several pipelines, each
    as its name and, for each pipeline whose graph runs it, a call that reaches it from that graph. Such a
    helper is rewritten to dynamic mode only when all of those pipelines convert
    (Context.may_rewrite_dali_calls), so the engine converts them together or not at all."""
    if len(model.pipelines) < 2:
        return []
    graph, _ = prepared(resolver, model)
    shared = []
    for function, owners, is_root in graph.graph_functions():
        if is_root or len(owners) < 2:
            continue
        reaching: dict = {}
        for call in graph.call_sites.get(function.node, ()):
            for owner in graph.reached_by.get(_caller(graph, call), ()):
                reaching.setdefault(owner, call)
        if reaching:  # each call spells the helper's name (graph._resolve_function)
            func = next(iter(reaching.values())).func
            shared.append((func.value if isinstance(func, cst.Name) else f"self.{func.attr.value}", reaching))
    return shared


def kept_library_helpers(resolver: cst.MetadataDependent, model) -> list[tuple[str, dict, str]]:
    """The module's library helpers another module keeps in pipeline mode (``model.kept_helpers``,
    ndd_migrate.model.features.library_helpers), each as its name, a call reaching it from the graph
    of each pipeline here that runs it, and why it stays."""
    if not model.kept_helpers:
        return []
    graph, _ = prepared(resolver, model)
    found = []
    for node, why in model.kept_helpers.items():
        reaching: dict = {}
        for call in graph.call_sites.get(node, ()):
            for owner in graph.reached_by.get(_caller(graph, call), ()):
                reaching.setdefault(owner, call)
        if reaching:
            found.append((node.name.value, reaching, why))
    return found


def imported_helper_calls(resolver: cst.MetadataDependent, model) -> list[tuple[cst.Call, set, set[str]]]:
    """Each call of an imported name in graph code: the call, the pipelines whose graph runs it, and
    the call's qualified names (ndd_migrate.model.features.library_helpers)."""
    if not model.call_qualnames or not model.pipelines:
        return []
    graph, _ = prepared(resolver, model)
    found = []
    for function, owners, _ in graph.graph_functions():
        for call in function.calls:
            quals = model.call_qualnames.get(call)
            if quals:
                found.append((call, owners, quals))
    return found


def _caller(graph, call: cst.Call) -> cst.CSTNode:
    """The graph function (a pipeline body or a helper) ``call`` is written in."""
    return next(f.node for f in graph.functions.values() if call in f.calls)


def _callees(graph, node: cst.CSTNode) -> set:
    return {graph.callee[c].node for c in graph.functions[node].calls if c in graph.callee}


def _has_kwarg(call: cst.Call, name: str) -> bool:
    return any(a.keyword is not None and a.keyword.value == name for a in call.args)


class _OpCalls(SkipsTrivia, cst.CSTVisitor):
    """The calls in a function's body (not in nested functions) and the names it spells."""

    def __init__(self) -> None:
        self.calls: list[cst.Call] = []
        self.names: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False
