"""Locals the migration left without a reader, dropped from the code it writes.

A rewrite can leave a name bound and never read: ``self.iter = 0`` of a ``Pipeline`` subclass
becomes a local nothing reads, ``batch_size = len(batch)`` is written for a base class's
parameter the generator never draws, ``device = "gpu"`` fed only an operator object that is
gone. In a class an unread attribute was harmless; as a local it is what a linter (ruff's
F841) sends back in review. A statement is dropped only when its value cannot do anything by
being computed (:func:`is_pure`), so dropping it changes nothing the program does."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.syntax import cstutil, tree

#: Builtins whose call computes a value from its arguments and nothing else (``list(x)`` would
#: drain an iterator, so it is not one of them).
_PURE_BUILTINS = frozenset({"len", "int", "float", "str", "bool", "abs", "round"})

_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)


def is_pure(expr: cst.BaseExpression, dicts: frozenset[str] = frozenset()) -> bool:
    """Does computing ``expr`` only compute a value (names, literals, operators on them, a few
    builtins)? Attribute reads are not: a property runs code. ``dicts`` names plain dicts (a
    function's ``**kwargs``): reading one of them (``kwargs["key"]``, ``kwargs.get("key", 0)``) is
    pure too."""
    if isinstance(expr, (cst.Name, *_LITERALS)):
        return True
    if _reads_dict(expr, dicts):
        return True
    if isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
        return all(not isinstance(e, cst.StarredElement) and is_pure(e.value) for e in expr.elements)
    if isinstance(expr, cst.UnaryOperation):
        return is_pure(expr.expression)
    if isinstance(expr, (cst.BinaryOperation, cst.BooleanOperation)):
        return is_pure(expr.left) and is_pure(expr.right)
    if isinstance(expr, cst.Comparison):
        return is_pure(expr.left) and all(is_pure(t.comparator) for t in expr.comparisons)
    if isinstance(expr, cst.Call):
        return _constant_array(expr) or (
            isinstance(expr.func, cst.Name)
            and expr.func.value in _PURE_BUILTINS
            and all(not a.star and a.keyword is None and is_pure(a.value) for a in expr.args)
        )
    return False


#: numpy functions that make a new array from their arguments and do nothing else.
_ARRAY_MAKERS = frozenset({"array", "asarray", "zeros", "ones", "full", "arange"})


def _constant_array(call: cst.Call) -> bool:
    """``dali_constant(<array>, dtype=types.X)``, the support module's array of a graph constant
    made in ``__init__`` (NDD101), of an array made from pure values (``np.array(patch_size) *
    1.5``): a subclass whose graph never reads it had the pipeline make a constant node nothing
    used."""
    if not (isinstance(call.func, cst.Name) and call.func.value == "dali_constant") or not call.args:
        return False
    value, *rest = call.args
    return (
        not value.star
        and value.keyword is None
        and _array_of_pure(value.value)
        and all(a.keyword is not None and _dotted(a.value) for a in rest)
    )


def _array_of_pure(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.BinaryOperation):
        return _array_of_pure(expr.left) and _array_of_pure(expr.right)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and _dotted(expr.func):
        root = expr.func.value
        return (
            isinstance(root, cst.Name)
            and root.value in ("np", "numpy")
            and expr.func.attr.value in _ARRAY_MAKERS
            and all(not a.star and (a.keyword is None or a.keyword.value == "dtype") for a in expr.args)
            and all(_array_of_pure(a.value) or _dotted(a.value) for a in expr.args)
        )
    return is_pure(expr)


def _dotted(expr: cst.BaseExpression) -> bool:
    """``types.FLOAT``, ``np.float32``: a name, or an attribute of one (a module's constant)."""
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    return isinstance(expr, cst.Name)


def _reads_dict(expr: cst.BaseExpression, dicts: frozenset[str]) -> bool:
    if isinstance(expr, cst.Subscript):
        return (
            isinstance(expr.value, cst.Name)
            and expr.value.value in dicts
            and len(expr.slice) == 1
            and isinstance(expr.slice[0].slice, cst.Index)
            and isinstance(expr.slice[0].slice.value, _LITERALS)
        )
    return (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Attribute)
        and isinstance(expr.func.value, cst.Name)
        and expr.func.value.value in dicts
        and expr.func.attr.value == "get"
        and 1 <= len(expr.args) <= 2
        and all(not a.star and a.keyword is None and is_pure(a.value) for a in expr.args)
    )


def assigned_name(stmt: cst.CSTNode) -> str | None:
    """``name`` of a statement ``name = <value>`` (one target, one name), else None."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return None
    target = small.targets[0].target
    return target.value if isinstance(target, cst.Name) else None


def without_unread(stmts: list, rest: list, candidates: list, dicts: frozenset[str] = frozenset()) -> list:
    """``stmts`` without each of ``candidates`` (statements of ``stmts``) that binds a name with a
    pure value which nothing else of ``stmts`` and ``rest`` mentions; repeated, since dropping
    ``a = b`` can leave ``b = ...`` unread. Comments above a dropped statement go to the next one;
    a statement with a comment at the end of its line stays, and so do the last ones when a comment
    above them would have nothing to go to. ``dicts``: as :func:`is_pure` takes them."""
    droppable = [s for s in candidates if _droppable(s, dicts)]
    while droppable:
        unread = [
            s for s in droppable if assigned_name(s) not in _mentioned([x for x in [*stmts, *rest] if x is not s])
        ]
        if not unread:
            break
        kept = _dropped(stmts, unread)
        if kept is None:
            break
        stmts = kept
        droppable = [s for s in droppable if s not in unread]
    return stmts


def _droppable(stmt: cst.CSTNode, dicts: frozenset[str]) -> bool:
    name = assigned_name(stmt)
    return name is not None and is_pure(stmt.body[0].value, dicts) and not stmt.trailing_whitespace.comment


def _mentioned(stmts: list) -> set[str]:
    names = cstutil.ScopeNames()
    for stmt in stmts:
        tree.visit(stmt, names)
    return names.all | names.scoped


def _dropped(stmts: list, gone: list) -> list | None:
    out: list = []
    carried: list = []
    for stmt in stmts:
        if any(stmt is g for g in gone):
            carried.extend(line for line in stmt.leading_lines if line.comment is not None)
            continue
        if carried and hasattr(stmt, "leading_lines"):
            stmt = stmt.with_changes(leading_lines=[*carried, *stmt.leading_lines])
            carried = []
        out.append(stmt)
    return None if carried else out
