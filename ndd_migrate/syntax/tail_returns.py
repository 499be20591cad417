"""A function body whose ``return`` statements end ``if`` branches, rewritten so that every
``return`` is the last statement of its path: ``A; if c: B; return X`` then ``C; return Y``
becomes ``A; if c: B; return X else: C; return Y``.

A helper that returns early (``if self.labels is not None: ...; return images, labels`` then
``return images``) cannot have its body pasted in place of its call as it stands: the statements
after the early ``return`` would run too. In this form each path ends in its own ``return``, and
the caller's statement (``images, labels = self.load()``) takes the place of each (see
:func:`map_tails`): the same statements run in the same order on every path, so nothing changes
but where the code is written. Only ``return``s in ``if`` branches are moved; one in a loop, a
``with`` or a ``try`` leaves the body as it is (None).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ndd_migrate.syntax import tree
from ndd_migrate.syntax.cstutil import SkipsTrivia


def single_exit(body: list[cst.BaseStatement]) -> list[cst.BaseStatement] | None:
    """``body`` (a function's statements) with every ``return`` at the end of its path, the end of
    the function an explicit bare ``return`` where it can be reached; None when a ``return`` is
    in a loop, ``with`` or ``try``, after which statements follow in its block, or when moving the
    statements after an ``if`` would copy them into more than one of its branches."""
    count = returns_in(body)
    if count == 0 or (count == 1 and _is_return(body[-1])):
        return body
    if not _always_returns(body):
        body = [*body, cst.SimpleStatementLine([cst.Return(value=None)])]
    return _fold(body)


def is_tail_form(body: list[cst.BaseStatement]) -> bool:
    """Does ``body`` return nowhere, or does every path through it end in a ``return`` that is the
    last statement of its branch (of a last ``if`` with an ``else``, and so on)?"""
    return returns_in(body) == 0 or _all_tails(body)


def _all_tails(stmts: list[cst.BaseStatement]) -> bool:
    if not stmts or any(_returns(s) for s in stmts[:-1]):
        return False
    last = stmts[-1]
    if _is_return(last):
        return True
    return isinstance(last, cst.If) and _has_else(last) and all(_all_tails(b) for b in _branches(last))


def map_tails(
    body: list[cst.BaseStatement], tail: Callable[[cst.Return, cst.BaseStatement], list[cst.BaseStatement]]
) -> list[cst.BaseStatement]:
    """``body`` (in :func:`is_tail_form`) with each ``return`` replaced by ``tail(return, its
    line)``; an ``else`` left empty goes, another branch left empty holds ``pass``."""
    if not body:
        return body
    last = body[-1]
    if _is_return(last):
        return [*body[:-1], *tail(last.body[0], last)]
    if isinstance(last, cst.If) and _returns(last):
        return [*body[:-1], _map_if(last, tail)]
    return body


def _map_if(node: cst.If, tail) -> cst.If:
    orelse = node.orelse
    if isinstance(orelse, cst.If):
        orelse = _map_if(orelse, tail)
    elif isinstance(orelse, cst.Else):
        stmts = map_tails(list(orelse.body.body), tail)
        orelse = orelse.with_changes(body=_block(orelse.body, stmts)) if stmts else None
    return node.with_changes(body=_block(node.body, map_tails(list(node.body.body), tail)), orelse=orelse)


def _fold(stmts: list[cst.BaseStatement]) -> list[cst.BaseStatement] | None:
    """``stmts`` (ending in a ``return`` reached on every path) in tail form."""
    for i, stmt in enumerate(stmts):
        if not _returns(stmt):
            continue
        if _is_return(stmt):
            return stmts if i == len(stmts) - 1 else None
        if not isinstance(stmt, cst.If):
            return None  # a `return` in a loop, `with` or `try`
        folded = _fold_if(stmt, stmts[i + 1 :])
        return None if folded is None else [*stmts[:i], folded]
    return None


def _fold_if(node: cst.If, rest: list[cst.BaseStatement]) -> cst.If | None:
    """``node`` followed by ``rest`` as one ``if`` whose branches each end in a ``return``: a
    branch that can run to its end gets ``rest`` (only one may, unless ``rest`` is empty)."""
    branches = [*_branches(node), *([] if _has_else(node) else [[]])]
    falling = [b for b in branches if not _always_returns(b)]
    if len(falling) > 1 and any(not _is_bare_return(s) for s in rest):
        return None
    folded = [_fold(b if _always_returns(b) else [*b, *(s.deep_clone() for s in rest)]) for b in branches]
    if any(f is None for f in folded):
        return None
    return _rebuilt(node, folded)


def _rebuilt(node: cst.If, bodies: list[list[cst.BaseStatement]]) -> cst.If:
    """``node`` with its branches' bodies (an ``else`` added for the last when it had none)."""
    orelse = node.orelse
    if isinstance(orelse, cst.If):
        orelse = _rebuilt(orelse, bodies[1:])
    elif isinstance(orelse, cst.Else):
        orelse = orelse.with_changes(body=_block(orelse.body, bodies[1]))
    else:
        orelse = cst.Else(body=_block(node.body, bodies[1]))
    return node.with_changes(body=_block(node.body, bodies[0]), orelse=orelse)


def _block(suite: cst.BaseSuite, stmts: list[cst.BaseStatement]) -> cst.BaseSuite:
    if not stmts:
        stmts = [cst.SimpleStatementLine([cst.Pass()])]
    if isinstance(suite, cst.IndentedBlock):
        return suite.with_changes(body=stmts)
    return cst.IndentedBlock(body=stmts)


def _branches(node: cst.If) -> list[list[cst.BaseStatement]]:
    """The statements of each branch: the ``if``'s, each ``elif``'s, the ``else``'s."""
    out = [list(_statements(node.body))]
    if isinstance(node.orelse, cst.If):
        out.extend(_branches(node.orelse))
    elif isinstance(node.orelse, cst.Else):
        out.append(list(_statements(node.orelse.body)))
    return out


def _statements(suite: cst.BaseSuite) -> list[cst.BaseStatement]:
    if isinstance(suite, cst.IndentedBlock):
        return list(suite.body)
    return [cst.SimpleStatementLine(body=list(suite.body))]  # `if c: return x` on one line


def _has_else(node: cst.If) -> bool:
    if isinstance(node.orelse, cst.If):
        return _has_else(node.orelse)
    return isinstance(node.orelse, cst.Else)


def _always_returns(stmts: list[cst.BaseStatement]) -> bool:
    """Does every path through ``stmts`` end in a ``return``?"""
    if not stmts:
        return False
    last = stmts[-1]
    if _is_return(last):
        return True
    return isinstance(last, cst.If) and _has_else(last) and all(_always_returns(b) for b in _branches(last))


def _is_return(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Return)


def _is_bare_return(stmt: cst.CSTNode) -> bool:
    return _is_return(stmt) and len(stmt.body) == 1 and stmt.body[0].value is None


def returns_in(stmts: list[cst.BaseStatement]) -> int:
    """The ``return`` statements of ``stmts``, outside the functions they define."""
    return sum(_returns(s) for s in stmts)


def _returns(node: cst.CSTNode) -> int:
    """The ``return`` statements in ``node``, outside the functions and classes it defines."""
    counter = _Returns()
    tree.visit(node, counter)
    return counter.count


class _Returns(SkipsTrivia, cst.CSTVisitor):
    def __init__(self) -> None:
        self.count = 0

    def visit_Return(self, node: cst.Return) -> None:
        self.count += 1

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False
