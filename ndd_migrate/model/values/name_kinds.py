"""What each local name holds (:class:`~ndd_migrate.model.types.Kind`): a pipeline, the batches
``run()`` gives, one batch, a list of pipelines, a pipeline function — from the module's bindings,
in the order the analysis met them (``ModuleModel.kinds``).

Flow-insensitive on purpose (:func:`resolve`): a name has a kind when every binding of it in its
scope agrees, and none when it is rebound to something else anywhere in its scope (no guessing).
The one flow-sensitive case is an output made a numpy array by a rebinding in straight-line code
(:func:`_split_at_conversion`).

``analyzer`` is the :class:`~ndd_migrate.model.analysis.Analyzer`, through its public index
(``model``, ``assigns``, ``parameter_kinds``, ``scope_of``, ``qualnames``, ``parents``).
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate.model.kinds import converts_to_array, expr_kind, loop_parts
from ndd_migrate.model.types import ITEM_KIND, Kind, one_of
from ndd_migrate.syntax import tree
from ndd_migrate.syntax.scopes import references


def resolve(analyzer) -> None:
    """Give each local name one Kind when every binding of it agrees; otherwise none.

    Flow-insensitive on purpose: a name rebound to something else anywhere in its scope is
    not rewritten (no guessing)."""
    model = analyzer.model
    found: dict[tuple[object, str], list] = {}
    entries: dict[tuple[object, str], list] = {}  # (kind, target, value) of each binding
    model.kinds.clear()
    model.kinds.update(analyzer.parameter_kinds)  # parameters the plan follows values into
    for scope, target, value in analyzer.assigns:  # source order: `pipe` is known before `pipe.run()`
        for name, kind in _value_kinds(analyzer, scope, target, value):
            seen = found.setdefault((scope, name), [])
            seen.append(kind)
            entries.setdefault((scope, name), []).append((kind, target, value))
            if kind is not None and all(k is not None and k[0] is kind[0] for k in seen):
                model.kinds[(scope, name)] = (kind[0], one_of(k[1] for k in seen))
            else:
                model.kinds.pop((scope, name), None)
    for (scope, name), kinds in found.items():
        bindings = len(scope.assignments[name]) if scope is not None else 0
        if len(kinds) != bindings:
            model.kinds.pop((scope, name), None)
    model.converted_reads.clear()
    for (scope, name), kinds in found.items():
        if (scope, name) not in model.kinds and scope is not None and len(kinds) == len(scope.assignments[name]):
            _split_at_conversion(analyzer, scope, name, entries[(scope, name)])


def _value_kinds(analyzer, scope, target, value) -> list[tuple[str, tuple | None]]:
    model, qualnames = analyzer.model, analyzer.qualnames
    if isinstance(value, (cst.For, cst.CompFor)):  # `for p in pipes`, `for out in (images, labels)`: each item
        found = expr_kind(model, value.iter, analyzer.scope_of, qualnames)
        if found and found[0] is Kind.FUNCTIONS:  # `for cls in held`, `for cls, args in held.items()`
            return [
                (part.value, (Kind.FUNCTION, one_of(found[1].members)) if holds else None)
                for part, holds in loop_parts(found[1], value.iter, target)
                if isinstance(part, cst.Name)
            ]
        item = (ITEM_KIND.get(found[0]), found[1]) if found and found[0] in ITEM_KIND else None
        return [(target.value, item)] if isinstance(target, cst.Name) else []
    kind = expr_kind(
        model, value, lambda name: analyzer.scope_of(name) or scope, qualnames
    )  # a comprehension's names: its own scope
    if isinstance(target, cst.Name):
        return [(target.value, kind)]
    if isinstance(target, (cst.Tuple, cst.List)):
        if _unpacked_epochs(kind, target):  # `pipe_meta, pipe = p(...)`, migrated before: `pipe` is the generator
            return [(target.elements[0].value.value, None), (target.elements[1].value.value, kind)]
        element = (Kind.BATCH, kind[1]) if kind and kind[0] is Kind.BATCHES else None
        return [(el.value.value, element) for el in target.elements if isinstance(el.value, cst.Name)]
    return []


def _unpacked_epochs(kind: tuple | None, target: cst.Tuple | cst.List) -> bool:
    """Is ``target`` two names unpacking a call of a pipeline migrated on disk in the epoch-aware
    shape, which gives ``(metadata, batches)``?"""
    pipeline = kind[1] if kind and kind[0] is Kind.PIPELINE else None
    return (
        getattr(pipeline, "epochs", False)
        and getattr(pipeline, "migrated_in", None) is not None
        and len(target.elements) == 2
        and all(isinstance(el.value, cst.Name) for el in target.elements)
    )


def _split_at_conversion(analyzer, scope, name: str, bound: list) -> None:
    """``seq, label = pipe.run()`` then ``seq = seq.as_cpu().as_array()`` in the same block: the
    name holds an output up to the rebinding and a numpy array (in both modes) after it. The
    output's kind is kept for the reads between the two statements; every other read sees the
    array (or, around a loop, the array of the previous pass) and is recorded in
    ``converted_reads``, which :func:`~ndd_migrate.model.kinds.lookup` answers with None.

    Flow-sensitive only in straight-line code: the two bindings must be statements of the same
    block, the later one ``name = <name as a numpy array>`` (:func:`converts_to_array`), nothing between
    them may jump (``break``, ``continue``, ``return``, ``raise``) or be inside a ``try`` that could
    catch on the way, and no nested function may read the name."""
    found = _output_then_array(analyzer, name, bound)
    if found is None:
        return
    kind, first, second, value = found
    between = _straight_line_between(analyzer.parents, first, second)
    if between is None:
        return
    live: list[cst.CSTNode] = [*between, value]  # where a read sees the output
    reads = references(scope, name)
    if any(access.scope is not scope for access in reads):
        return
    analyzer.model.kinds[(scope, name)] = kind
    for access in reads:
        if not any(_within(analyzer.parents, access.node, node) for node in live):
            analyzer.model.converted_reads.add(access.node)


def _output_then_array(analyzer, name: str, bound: list) -> tuple | None:
    """``(kind, first target, second target, second value)`` when ``bound`` (the name's
    ``(kind, target, value)`` bindings) is one binding to an output and one rebinding that makes it
    a numpy array, else None."""
    kinded = [(kind, target, value) for kind, target, value in bound if kind is not None]
    rebound = [(target, value) for kind, target, value in bound if kind is None]
    if len(kinded) != 1 or len(rebound) != 1 or kinded[0][0][0] is not Kind.BATCH:
        return None
    (kind, first, _), (second, value) = kinded[0], rebound[0]
    if not (isinstance(second, cst.Name) and converts_to_array(value, name, analyzer.qualnames)):
        return None
    return kind, first, second, value


def _straight_line_between(parents: dict, first: cst.CSTNode, second: cst.CSTNode) -> list | None:
    """The statements between the one that binds ``first`` and the later one that binds ``second``,
    when both are statements of the same block, and nothing between them jumps or may be caught by
    a ``try`` around the block; else None."""
    start, end = _statement_of(parents, first), _statement_of(parents, second)
    block = parents.get(start)
    if start is None or end is None or block is not parents.get(end):
        return None
    body = list(getattr(block, "body", ()))
    if start not in body or end not in body or body.index(start) >= body.index(end):
        return None
    between = body[body.index(start) + 1 : body.index(end)]
    if any(_jumps(stmt) for stmt in between) or _in_try(parents, block):
        return None
    return between


def _statement_of(parents: dict, node: cst.CSTNode) -> cst.SimpleStatementLine | None:
    """The one-statement line that binds ``node`` (an assignment target), or None."""
    current = node
    while current is not None and not isinstance(current, cst.SimpleStatementLine):
        if isinstance(current, cst.BaseCompoundStatement):
            return None
        current = parents.get(current)
    return (
        current if current is not None and len(current.body) == 1 and isinstance(current.body[0], cst.Assign) else None
    )


def _within(parents: dict, node: cst.CSTNode, container: cst.CSTNode) -> bool:
    current = node
    while current is not None:
        if current is container:
            return True
        current = parents.get(current)
    return False


def _in_try(parents: dict, block: cst.CSTNode) -> bool:
    """Is ``block`` inside a ``try`` of its own function (or module)?"""
    current = block
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.Module)):
        if isinstance(current, (cst.Try, cst.TryStar)):
            return True
        current = parents.get(current)
    return False


def _jumps(stmt: cst.CSTNode) -> bool:
    """Does ``stmt`` hold a ``break``/``continue``/``return``/``raise`` (outside nested functions)?"""
    found = []

    class _Finder(cst.CSTVisitor):
        def visit_FunctionDef(self, node):
            return False

        def visit_Lambda(self, node):
            return False

        def visit_ClassDef(self, node):
            return False

        def on_visit(self, node):
            if isinstance(node, (cst.Break, cst.Continue, cst.Return, cst.Raise)):
                found.append(node)
            return super().on_visit(node)

    tree.visit(stmt, _Finder())
    return bool(found)
