"""Graph helpers that cross modules: a function of one module holding ``fn.*`` calls, run by the
graph of a pipeline another module defines.

``augment.py`` has ``def decode_and_flip(jpegs): return fn.flip(fn.decoders.image(jpegs))`` and no
pipeline; ``train.py`` imports it and calls it in its ``@pipeline_def``. Whether the helper's
``fn.*`` may become ``ndd.*`` depends on the pipelines of *other* modules: converted while
``train.py``'s pipeline stays, the graph calls dynamic-mode operators on graph nodes; kept while that
pipeline converts, the generator calls pipeline-mode operators on batches. Either way the program
breaks with ``migrate`` exiting 0. So each module says (:func:`record`, read by the engine):

* which of its top-level functions hold ``fn.*`` calls and are no pipeline themselves (its
  *library helpers*; ``FileResult.helpers``: converted or not), and
* which imported names the graphs of its pipelines call, and whether every pipeline calling each
  converts (``FileResult.helper_calls``).

:mod:`ndd_migrate.model.importers` puts them together until they agree: a helper an importer runs
in a graph that stays is kept in pipeline mode where it is defined (``Policy.kept_helpers``), and a
pipeline whose graph runs an imported helper that stays is kept too (``Policy.imported_helpers``),
each with the reason at the call."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.syntax import names, tree
from ndd_migrate.syntax.cstutil import SkipsTrivia


def record(resolver, module: cst.Module, calls: list[tuple[cst.Call, str]]) -> None:
    """Fill ``resolver.model.library_helpers`` (name → its ``def``) and ``call_qualnames`` (each call
    of an imported name → its qualified names), from the analysed ``module`` and its ``calls``."""
    model = resolver.model
    taken = {qual for qual in [*model.pipelines, *model.factories] if "." not in qual}
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value not in taken and _holds_fn_calls(resolver, stmt):
            model.library_helpers[stmt.name.value] = stmt
    local = {stmt.name.value for stmt in module.body if isinstance(stmt, (cst.FunctionDef, cst.ClassDef))}
    for call, qual in calls:
        if isinstance(call, cst.Call) and "." in qual.lstrip(".") and qual.split(".")[0] not in local:
            model.call_qualnames.setdefault(call, set()).add(qual)


def _holds_fn_calls(resolver, function: cst.FunctionDef) -> bool:
    found = _FnCalls(resolver)
    tree.visit(function.body, found)
    return found.seen


class _FnCalls(SkipsTrivia, cst.CSTVisitor):
    def __init__(self, resolver) -> None:
        self.resolver = resolver
        self.seen = False

    def visit_Call(self, node: cst.Call) -> bool:
        if not self.seen and names.fn_path(names.dali_name(self.resolver, node.func)) is not None:
            self.seen = True
        return not self.seen
