"""Name resolution for the rules: libcst's scope analysis, without the work the rules never use.

The rules resolve names through libcst's ``ScopeProvider`` and ``QualifiedNameProvider`` (see
:mod:`ndd_migrate.syntax.names`). Computed the standard way they cost about a third of the time spent on a
DALI file, in three traversals of the whole tree. Here the same libcst visitors compute the same
answers with less:

* expression contexts and scopes are found by libcst's own visitors, made to skip
  :data:`~ndd_migrate.syntax.cstutil.TRIVIA` (whitespace and punctuation: half the nodes, no names in
  them) and the per-field hook look-ups libcst makes for every field of every node;
* each runs as a plain provider, in one traversal, where libcst's batchable providers cost the
  wrapper one more traversal of the tree to run them;
* qualified names are computed per node when a rule asks (:class:`_QualifiedNames`), not for
  every node of the module up front.

The results are stored under libcst's own provider keys, so a visitor that declares
``ScopeProvider`` or ``QualifiedNameProvider`` reads them as usual.
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst
from libcst.metadata import (
    BaseMetadataProvider,
    ExpressionContextProvider,
    MetadataWrapper,
    PositionProvider,
    QualifiedNameProvider,
    ScopeProvider,
)
from libcst.metadata.expression_context_provider import ExpressionContext, ExpressionContextVisitor
from libcst.metadata.scope_provider import ScopeVisitor

from ndd_migrate.syntax import tree
from ndd_migrate.syntax.cstutil import TRIVIA


class _ContextVisitor(ExpressionContextVisitor):
    """libcst's expression-context visitor, minus trivia and per-field hooks (it has none)."""

    def on_visit(self, node: cst.CSTNode) -> bool:
        return type(node) not in TRIVIA and super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if type(original_node) not in TRIVIA:
            super().on_leave(original_node)

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        pass

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        pass


class _ScopeVisitor(ScopeVisitor):
    """libcst's scope visitor, minus trivia; of the per-field hooks it keeps its only ones, on a
    class's bases."""

    def on_visit(self, node: cst.CSTNode) -> bool:
        return type(node) not in TRIVIA and super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if type(original_node) not in TRIVIA:
            super().on_leave(original_node)

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        if attribute == "bases" and type(node) is cst.ClassDef:
            self.visit_ClassDef_bases(node)

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        if attribute == "bases" and type(original_node) is cst.ClassDef:
            self.leave_ClassDef_bases(original_node)


class _ContextProvider(BaseMetadataProvider[ExpressionContext]):
    """``ExpressionContextProvider``'s answers, from one :class:`_ContextVisitor` pass. (libcst's
    own provider is a batchable one: the wrapper would walk the whole tree once more to run it,
    and inspect the provider's methods first.)"""

    def _gen_impl(self, module: cst.Module) -> None:
        tree.visit(module, _ContextVisitor(self, ExpressionContext.LOAD))


class _ScopeProvider(BaseMetadataProvider[object]):
    """``ScopeProvider``'s answers, from one :class:`_ScopeVisitor` pass."""

    METADATA_DEPENDENCIES = (ExpressionContextProvider,)

    def _gen_impl(self, module: cst.Module) -> None:
        visitor = _ScopeVisitor(self)
        module.visit(visitor)
        visitor.infer_accesses()


class _QualifiedNames(Mapping):
    """What :class:`QualifiedNameProvider` computes, computed only for the nodes asked about.

    libcst's provider walks the whole tree to store, for every node, a lazy call of
    ``scope.get_qualified_names_for(node)``, though the rules ask about few nodes. This mapping
    makes the same call on first access and remembers the answer; a node without a scope
    (whitespace, the ``attr`` of an attribute, a keyword's name) has no qualified names, as with
    libcst's provider.
    """

    def __init__(self, scopes: Mapping) -> None:
        self._scopes = scopes
        self._names: dict[cst.CSTNode, object] = {}

    def __getitem__(self, node: cst.CSTNode):
        names = self._names.get(node)
        if names is None:
            scope = self._scopes.get(node)
            names = scope.get_qualified_names_for(node) if scope is not None else set()
            self._names[node] = names
        return names

    def __iter__(self):
        return iter(self._scopes)

    def __len__(self) -> int:
        return len(self._scopes)


def resolve(wrapper: MetadataWrapper) -> None:
    """Compute ``wrapper``'s expression contexts, scopes and qualified names this way, under
    libcst's keys.

    ``_metadata`` is the wrapper's cache of resolved providers (libcst resolves nothing that is
    already there, and has no public way to supply it), and each provider runs through its
    ``_gen``: the wrapper's public ``resolve`` follows every plain provider with a batched
    traversal of the whole tree, even with no batchable provider to run in it.
    """
    wrapper._metadata[ExpressionContextProvider] = _ContextProvider()._gen(wrapper)
    scopes = _ScopeProvider()._gen(wrapper)
    wrapper._metadata[ScopeProvider] = scopes
    wrapper._metadata[QualifiedNameProvider] = _QualifiedNames(scopes)


def positions_on_demand(wrapper: MetadataWrapper):
    """``node -> CodeRange | None`` for the wrapper's module: libcst's ``PositionProvider`` (a code
    generation pass over the whole module) run at the first question, so a file without findings
    never pays for it, and without the wasted batched traversal (see :func:`resolve`)."""
    table = None

    def position(node: cst.CSTNode):
        nonlocal table
        if table is None:
            table = PositionProvider()._gen(wrapper)
        return table.get(node)

    return position


def references(scope, name: str) -> list:
    """The accesses of ``name`` that see its bindings in ``scope``. (libcst also lists, among a
    binding's references, reads in nested functions that bind the name themselves.)"""
    found, seen = [], set()  # a set beside the list: a name read a thousand times is not a square
    for assignment in scope.assignments[name]:
        for access in assignment.references:
            if access not in seen and _binding_scope(access.scope, name) is scope:
                seen.add(access)
                found.append(access)
    return found


def _binding_scope(scope, name: str):
    """The scope whose binding of ``name`` a read in ``scope`` sees (None: unbound)."""
    current = scope
    while True:
        if current.assignments[name]:
            return current
        if current.parent is current:
            return None
        current = current.parent
