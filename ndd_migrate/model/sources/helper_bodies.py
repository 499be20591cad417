"""The statements that take the place of a graph-helper call (:mod:`.graph_methods`): the
helper's body with its parameters bound, and the call's own statement where the helper returned.

A helper returning in one place (its last statement) gives ``body; images, labels = E``. One
returning early from ``if`` branches (``if self.labels is not None: ...; return images, labels``
then ``return images``) is first put in tail form (:func:`ndd_migrate.syntax.tail_returns.single_exit`:
each path ends in its own ``return``), and the call's statement takes the place of each
``return``: ``if self.labels is not None: ...; images, labels = images, labels else: images,
labels = images``. Every path runs the statements it ran in the helper, then binds what that path
returned, as the call did; the ``if`` is the helper's, evaluated where pipeline mode evaluated it.
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate.syntax import cstutil, tail_returns, tree
from ndd_migrate.syntax.cstutil import ScopeNames, Substitute


def in_tail_form(method: cst.FunctionDef) -> cst.FunctionDef | None:
    """``method`` with every ``return`` at the end of its path; None when one is in a loop, a
    ``with`` or a ``try``, or would need statements copied into several branches."""
    if not isinstance(method.body, cst.IndentedBlock):
        return method
    body = tail_returns.single_exit(list(method.body.body))
    if body is None:
        return None
    return method.with_changes(body=method.body.with_changes(body=body))


def inlined_body(
    stmt: cst.SimpleStatementLine, method: cst.FunctionDef, substitutions: dict, assigned: list
) -> tuple[list, list]:
    """The parameters assigned, the helper's body, then the call's statement with the helper's
    result in place of the call, all with ``substitutions``; ``stmt``'s comments above them. And the
    assignments that took the result apart, one per name (those at the end of the body only)."""
    body = list(method.body.body)
    if body and cstutil.is_docstring(body[0]):
        body = body[1:]
    body = [s.visit(Substitute(substitutions)) if substitutions else s for s in body]
    body = [s.deep_clone() for s in body]
    # `param = <argument>`: the parameter may be renamed, the argument is the caller's own text
    assigned = [_renamed_target(s, substitutions) for s in assigned]
    last = single(body[-1], cst.Return) if body else None
    returns = tail_returns.returns_in(body)
    if returns == 0 or (returns == 1 and last is not None):
        tail = _tail(stmt.body[0], last.value if last is not None else None)
        body = body[:-1] if last is not None else body
    else:  # returns ending `if` branches: the call's statement in place of each
        body = tail_returns.map_tails(body, lambda ret, line: _tail(stmt.body[0], ret.value, line))
        tail = []
    out = [*assigned, *body, *tail]
    if not out:
        out = [cst.SimpleStatementLine([cst.Pass()])]
    out[0] = out[0].with_changes(leading_lines=[*stmt.leading_lines, *out[0].leading_lines])
    return out, out[len(out) - len(tail) :] if len(tail) > 1 else []


def _renamed_target(stmt: cst.SimpleStatementLine, substitutions: dict) -> cst.SimpleStatementLine:
    """``param = value`` with ``param`` renamed as ``substitutions`` says."""
    assign = stmt.body[0]
    target = assign.targets[0].target
    new = substitutions.get(target.value, target) if isinstance(target, cst.Name) else target
    return stmt.with_changes(body=[assign.with_changes(targets=[assign.targets[0].with_changes(target=new)])])


def _tail(small, result: cst.BaseExpression | None, line: cst.SimpleStatementLine | None = None) -> list:
    """The call's own statement with the helper's result in place of the call: ``images, labels =
    resized, labels`` is one assignment per name (:func:`_one_per_name`). ``line``: the ``return``
    it replaces, whose comments it keeps."""
    value = result.deep_clone() if result is not None else cst.Name("None")
    if isinstance(small, cst.Assign):
        out = _one_per_name(small, value)
        if out is None:
            out = [cst.SimpleStatementLine([small.with_changes(value=value)])]
    elif isinstance(small, cst.Return):
        bare = {"value": None, "whitespace_after_return": cst.MaybeSentinel.DEFAULT}
        returned = small.with_changes(value=result.deep_clone()) if result is not None else small.with_changes(**bare)
        out = [cst.SimpleStatementLine([returned])]
    elif result is None or pure(result):
        out = []  # `self.helper()` for its statements: nothing is left to evaluate
    else:
        out = [cst.SimpleStatementLine([cst.Expr(value)])]
    if line is not None and out:
        out[0] = out[0].with_changes(leading_lines=line.leading_lines, trailing_whitespace=line.trailing_whitespace)
    return out


def _one_per_name(small: cst.Assign, value: cst.BaseExpression) -> list[cst.SimpleStatementLine] | None:
    """``a, b = x, y`` as ``a = x`` and ``b = y`` when that is the same (names on the left, each
    read by no value after its own, as many values as names; ``b = b`` is nothing), else None: the
    caller's names of the helper's results, each bound to what it holds, and one the graph never
    reads can go (:mod:`ndd_migrate.syntax.dead_locals`) — a tuple assignment of one unread name
    is a linter's unused variable."""
    target = small.targets[0].target if len(small.targets) == 1 else None
    if not isinstance(target, (cst.Tuple, cst.List)) or not isinstance(value, cst.Tuple):
        return None
    names = [e.value for e in target.elements]
    if len(names) != len(value.elements) or not all(isinstance(n, cst.Name) for n in names):
        return None
    if any(isinstance(e, cst.StarredElement) for e in value.elements):
        return None
    if len({n.value for n in names}) != len(names):
        return None
    for position, name in enumerate(names):
        later = ScopeNames()
        for element in value.elements[position + 1 :]:
            tree.visit(element, later)
        if name.value in later.all:
            return None
    return [
        cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(n.value))], e.value)])
        for n, e in zip(names, value.elements)
        if not (isinstance(e.value, cst.Name) and e.value.value == n.value)
    ]


def single(stmt, kind):
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], kind):
        return stmt.body[0]
    return None


def literal(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, (cst.SimpleString, cst.Integer, cst.Float)) or (
        isinstance(expr, cst.Name) and expr.value in ("None", "True", "False")
    )


def pure(expr: cst.BaseExpression) -> bool:
    """Names, literals and tuples of them: evaluating them does nothing."""
    if isinstance(expr, cst.Name) or literal(expr):
        return True
    return isinstance(expr, cst.Tuple) and all(pure(e.value) for e in expr.elements)
