"""A reader object created under an ``if`` of ``__init__`` and called in ``define_graph`` only under
an ``if`` with the same test (docs/target-shape.md, "Reader objects of their own")::

    self.with_meta = kwargs["with_meta"]
    if self.with_meta:
        self.input_meta = ops.readers.Numpy(files=kwargs["meta"])
    ...
    if self.with_meta:
        meta = self.input_meta(name="ReaderM")

The test reads only values fixed when the pipeline is built (``self.<attr>`` assigned once, in
``__init__``, before the ``if``), so it holds at each call where it held at the creation: the
reader exists wherever pipeline mode called it. The generator creates the reader and its stream
under the same ``if`` (what only that case gives, ``kwargs["meta"]``, is evaluated only there), and
draws from the stream where the call stood (ndd_migrate.model.features.twin_readers.stream_mismatch).
Anything the migration cannot show is reported, with the reason.
"""

from __future__ import annotations

import ast

import libcst as cst

from ndd_migrate.model.sources.legacy import LegacyPipeline, OpObject, self_attr
from ndd_migrate.model.sources.legacy_syntax import flatten_targets
from ndd_migrate.syntax import cstutil, pyparse, tree
from ndd_migrate.syntax.cstutil import SkipsTrivia

ELSEWHERE = (
    "several readers, one created in an `if` of `__init__` other than in the first branch of one of its "
    "statements (an `else`, an `elif`, a nested `if`, several branches): decide how their epochs line up"
)


def guard(
    pipeline: LegacyPipeline, op: OpObject, body: list, path: tuple[int, ...]
) -> tuple[cst.If | None, str | None]:
    """``(the `if` of __init__ creating op, None)`` when every call of ``op`` (the one at ``path`` in
    ``define_graph``'s ``body``: its index, then a branch number and an index per ``if``) stands in the
    branch of an ``if`` with the same test, fixed when the pipeline is built; else ``(None, why)``."""
    created = _creating_if(pipeline.init, op) if len(op.ctors) == 1 and not op.several else None
    if created is None:
        return None, ELSEWHERE
    test = cstutil.code(created.test)
    why = _not_fixed(pipeline, created)
    if why is None and _dump(created.test) not in {_dump(t) for t in _tests_on(body, path)}:
        why = (
            f"`self.{op.attr}`, created under `if {test}:` in `__init__`, is called in `define_graph` other than "
            f"in the branch of an `if {test}:`: the migration cannot show the reader exists where it is called"
        )
    return (created, None) if why is None else (None, why)


def _creating_if(init: cst.FunctionDef, op: OpObject) -> cst.If | None:
    """The statement ``if T:`` of ``__init__``'s body whose first branch holds ``self.<attr> = <op's
    constructor>`` as one of its own statements (not in a nested block)."""
    for stmt in init.body.body:
        if isinstance(stmt, cst.If) and any(
            isinstance(inner, cst.SimpleStatementLine)
            and len(inner.body) == 1
            and isinstance(inner.body[0], cst.Assign)
            and inner.body[0].value is op.ctors[0]
            for inner in stmt.body.body
        ):
            return stmt
    return None


def _not_fixed(pipeline: LegacyPipeline, created: cst.If) -> str | None:
    """Why the test of ``created`` may not hold the same value in ``define_graph``, or None: it reads
    only literals and ``self.<attr>`` values, each assigned once, in a statement of ``__init__``'s
    body before ``created``, and nowhere else in the class."""
    test = cstutil.code(created.test)
    reads = _Reads()
    tree.visit(created.test, reads)
    if reads.other:
        return (
            f"several readers, one created under `if {test}:` in `__init__`, a test that reads more than "
            "`self.<attr>` values and literals: the migration cannot show it holds the same where the reader is called"
        )
    assigns = _SelfAssigns()
    for method in (pipeline.init, pipeline.graph, pipeline.setup):
        if method is not None:
            tree.visit(method, assigns)
    before = _SelfAssigns()
    for stmt in pipeline.init.body.body[: pipeline.init.body.body.index(created)]:
        if isinstance(stmt, cst.SimpleStatementLine):
            tree.visit(stmt, before)
    for attr in sorted(reads.attrs):
        if assigns.count.get(attr, 0) != 1 or before.count.get(attr, 0) != 1:
            return (
                f"several readers, one created under `if {test}:` in `__init__`, where `self.{attr}` is not assigned "
                "exactly once, in a statement of `__init__` before the `if`: the migration cannot show the test "
                "holds the same where the reader is called"
            )
    return None


def _tests_on(body: list, path: tuple[int, ...]) -> list[cst.BaseExpression]:
    """The tests of the ``if`` statements in whose own branch (an ``elif``'s included) the statement at
    ``path`` stands (``else`` branches add none)."""
    tests = []
    stmt, rest = body[path[0]], path[1:]
    while rest:
        number, index, rest = rest[0], rest[1], rest[2:]
        chain = [stmt]
        while isinstance(chain[-1].orelse, cst.If):
            chain.append(chain[-1].orelse)
        if number < len(chain):
            tests.append(chain[number].test)
            block = chain[number].body.body
        else:
            block = chain[-1].orelse.body.body
        stmt = block[index]
    return tests


def _dump(test: cst.BaseExpression) -> str:
    """The test as Python reads it (layout, comments and parentheses aside)."""
    return ast.dump(pyparse.ast_parse(f"({cstutil.code(test)})", mode="eval"))


class _Reads(SkipsTrivia, cst.CSTVisitor):
    """The ``self.<attr>`` a test reads; ``other``: it reads something else (a call, an item, a name
    other than ``True``/``False``/``None``, another attribute)."""

    def __init__(self) -> None:
        self.attrs: set[str] = set()
        self.other = False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        attr = self_attr(node)
        if attr is None:
            self.other = True
        else:
            self.attrs.add(attr)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.other = self.other or node.value not in ("True", "False", "None")

    def visit_Call(self, node: cst.Call) -> None:
        self.other = True

    def visit_Subscript(self, node: cst.Subscript) -> None:
        self.other = True


class _SelfAssigns(SkipsTrivia, cst.CSTVisitor):
    """How many times each ``self.<attr>`` is a target (``=``, ``+=``, an annotated one, a ``for``)."""

    def __init__(self) -> None:
        self.count: dict[str, int] = {}

    def _add(self, target: cst.BaseExpression) -> None:
        for node in flatten_targets(target):
            attr = self_attr(node)
            if attr is not None:
                self.count[attr] = self.count.get(attr, 0) + 1

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._add(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._add(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._add(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._add(node.target)
