"""Tests that expect a pipeline to raise where the migrated program would not (NDD905).

A test of pipeline mode says which error it expects in one of these ways: the nose decorator
``@raises(E)`` on the test, ``with pytest.raises(E):`` / ``with self.assertRaises(E):`` /
``with assert_raises(E):`` around the code, or a checker given the callable,
``assert_raises(E, pipe.build)`` (also ``pytest.raises``, ``self.assertRaises``, and a ``lambda``),
or ``try: pipe.build()`` followed by ``assert False`` (``raise``, ``self.fail(...)``) and ``except E:``.
Two expectations have no dynamic-mode form:

* the pipeline's *build* (or its creation) is expected to raise and the test never runs it: the
  migration drops ``pipe.build()`` and the pipeline becomes a generator function, whose body runs
  nothing until it is iterated, so the error never comes;
* its *run* is expected to raise a given type and the pipeline has a Python operator
  (``fn.python_function``, ``ops.PythonFunction``): pipeline mode wraps what the function raises,
  and the outputs it refuses, in ``RuntimeError: Critical error in pipeline`` (DALI 2.4, CPU,
  ``exec_async=False, exec_pipelined=False``), while the migrated plain Python
  (:mod:`ndd_migrate.codegen.python_function`) raises the function's own ``ValueError`` (or an
  unpacking ``ValueError``). ``Exception`` is satisfied by both, except where the operator has
  several outputs: pipeline mode refuses a list where it wants a tuple (``TypeError``), plain
  Python unpacks the list and raises nothing.

An error of another operator (a decoder on bad data) is raised alike in both modes: it keeps
nothing. The scan only finds candidates (``(node, construct, pipeline expression, (message,
hint))``, the shape of :mod:`ndd_migrate.model.features.manual_uses`); the analysis keeps those whose expression
holds a pipeline of this module, and asks :func:`run_differs` about a run.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ndd_migrate.model import constructs
from ndd_migrate.model.features.manual_uses import RAISE_CHECKERS
from ndd_migrate.syntax import cstutil, names, tree
from ndd_migrate.syntax.cstutil import SkipsTrivia

PYTHON_OPERATORS = frozenset({"nvidia.dali.fn.python_function", "nvidia.dali.ops.PythonFunction"})
BROAD = frozenset({"Exception", "BaseException"})
_KEEP = "keep it in pipeline mode: what it tests is pipeline mode's own behaviour"

BUILD_RAISES = (
    "{test} expects {what} to raise `{expected}` (`{code}`) and never runs it: dynamic mode has no "
    "build step: the generator runs nothing until it is iterated, so the error never comes",
    _KEEP,
)
PYTHON_RUN_RAISES = (
    "{test} expects `{receiver}.run()` to raise `{expected}` (`{code}`) and the pipeline has a Python "
    'operator: pipeline mode raises `RuntimeError` ("Critical error in pipeline") for what the function raises '
    "or returns wrongly, the migrated plain Python raises the function's own error (a `ValueError`), or none",
    _KEEP,
)
PYTHON_OUTPUTS_RAISE = (
    "{test} expects `{receiver}.run()` to raise `{expected}` (`{code}`) and the pipeline has a Python "
    "operator of several outputs: pipeline mode refuses a function that returns them in a list, not a tuple "
    "(`RuntimeError` from a `TypeError`), the migrated plain Python unpacks the list, so the error may never come",
    _KEEP,
)


@dataclass
class _Expectation:
    test: str  # the enclosing test (`Class.method`), or "<module>"
    code: str  # how the test says it: `@raises(RuntimeError)`, `with pytest.raises(TypeError)`, ...
    expected: list[str]  # the expected exceptions, as written
    scope: cst.CSTNode  # the test: where "never runs it" is looked for


def _last_name(expr: cst.BaseExpression) -> str | None:
    return expr.attr.value if isinstance(expr, cst.Attribute) else expr.value if isinstance(expr, cst.Name) else None


def _expected(call: cst.Call) -> list[str] | None:
    """The exceptions ``raises(E1, E2)`` / ``pytest.raises((E1, E2))`` expects, or None when it is not such a call."""
    if not isinstance(call, cst.Call) or _last_name(call.func) not in RAISE_CHECKERS or not call.args:
        return None
    first = call.args[0]
    if first.keyword is not None or first.star:
        return None
    if isinstance(call.func, cst.Name) and call.func.value == "raises":  # nose: `raises(E1, E2)`
        values = [a.value for a in call.args if a.keyword is None and not a.star]
    else:
        values = [first.value]
    found = []
    for value in values:
        found.extend(e.value for e in value.elements) if isinstance(value, cst.Tuple) else found.append(value)
    return [cstutil.code(v) for v in found]


def _roles(scope: cst.CSTNode) -> dict[str, set[str]]:
    """How each plain name is used in ``scope``: ``build`` (``x.build()``, ``x.build`` given to a
    checker), ``run`` (the same for ``run``), ``bound`` (assigned) or ``other``."""
    roles: dict[str, set[str]] = {}

    class Uses(cst.CSTVisitor):
        def __init__(self) -> None:
            self.seen: set[int] = set()

        def visit_Attribute(self, node: cst.Attribute) -> None:
            self.seen.add(id(node.attr))
            if isinstance(node.value, cst.Name) and node.attr.value in ("build", "run"):
                roles.setdefault(node.value.value, set()).add(node.attr.value)
                self.seen.add(id(node.value))

        def visit_Arg(self, node: cst.Arg) -> None:
            if node.keyword is not None:
                self.seen.add(id(node.keyword))

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            if isinstance(node.target, cst.Name):
                roles.setdefault(node.target.value, set()).add("bound")
                self.seen.add(id(node.target))

        def visit_For(self, node: cst.For) -> None:  # `for pipe in pipes:`
            if isinstance(node.target, cst.Name):
                roles.setdefault(node.target.value, set()).add("bound")
                self.seen.add(id(node.target))

        def visit_Name(self, node: cst.Name) -> None:
            if id(node) not in self.seen:
                roles.setdefault(node.value, set()).add("other")

    tree.visit(scope, Uses())
    return roles


def _candidates(found: _Expectation, region: cst.CSTNode, direct: cst.Attribute | None = None) -> list[tuple]:
    """The pipelines whose build, creation or run ``region`` expects to raise; with ``direct`` (the
    ``pipe.build`` a checker is given), ``region`` is the checker's call."""
    roles = _roles(found.scope)
    fields = {"test": _who(found.test), "code": found.code, "expected": ", ".join(found.expected)}
    out = []

    def build(node: cst.CSTNode, receiver: cst.Name) -> None:
        if roles.get(receiver.value, set()) <= {"build", "bound"}:
            what = f"`{receiver.value}.build()`"
            out.append((node, constructs.BUILD_RAISES, receiver, _advice(BUILD_RAISES, what=what, **fields)))

    def run(node: cst.CSTNode, receiver: cst.Name) -> None:
        broad = bool(set(found.expected) & BROAD)
        construct = constructs.PYTHON_OUTPUTS_RAISE if broad else constructs.PYTHON_RUN_RAISES
        advice = PYTHON_OUTPUTS_RAISE if broad else PYTHON_RUN_RAISES
        out.append((node, construct, receiver, _advice(advice, receiver=receiver.value, **fields)))

    if direct is not None:
        (build if direct.attr.value == "build" else run)(region, direct.value)
        return out
    built: set[str] = set()

    class Region(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and not node.args:
                if func.attr.value == "build" and func.value.value not in built:
                    built.add(func.value.value)
                    build(node, func.value)
                elif func.attr.value == "run":
                    run(node, func.value)

        def visit_Expr(self, node: cst.Expr) -> None:  # `P()`: the creation alone
            call = node.value
            if isinstance(call, cst.Call) and not (
                isinstance(call.func, cst.Attribute) and call.func.attr.value in ("build", "run")
            ):
                created(call)

        def visit_Assign(self, node: cst.Assign) -> None:  # `pipe = P()`, pipe used no further
            target = node.targets[0].target if len(node.targets) == 1 else None
            if (
                isinstance(node.value, cst.Call)
                and isinstance(target, cst.Name)
                and roles.get(target.value) == {"bound"}
            ):
                created(node.value)

    def created(call: cst.Call) -> None:
        what = f"creating the pipeline (`{cstutil.code(call)}`)"
        out.append((call, constructs.BUILD_RAISES, call, _advice(BUILD_RAISES, what=what, **fields)))

    tree.visit(region, Region())
    return out


def _who(test: str) -> str:
    return "the program" if test == "<module>" else f"the test `{test}`"


def _advice(advice: tuple[str, str], **fields) -> tuple[str, str]:
    return (advice[0].format(**fields), advice[1])


def uses(module: cst.Module, nodes=None) -> list[tuple]:
    """Every pipeline a test of ``module`` expects to raise at its build, creation or run, as
    candidates ``(node, construct, pipeline expression, (message, hint))``.

    ``nodes``, when given, are the module's nodes but its trivia (the analysis' ``parents``): a
    module that names none of the checkers (:data:`RAISE_CHECKERS`, as a name or an attribute) has
    no expectation, and is not walked (the walk cost a tenth of ``check`` on a large module)."""
    if nodes is not None and not any(
        (type(n) is cst.Name and n.value in RAISE_CHECKERS) or type(n) is cst.Try for n in nodes
    ):
        return []
    out: list[tuple] = []

    class Scan(SkipsTrivia, cst.CSTVisitor):
        def __init__(self) -> None:
            self.tests: list[tuple[str, cst.CSTNode]] = []

        def _test(self) -> tuple[str, cst.CSTNode]:
            return self.tests[-1] if self.tests else ("<module>", module)

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            self.tests.append((f"{self._test()[0]}.{node.name.value}".removeprefix("<module>."), node))

        def leave_ClassDef(self, node: cst.ClassDef) -> None:
            self.tests.pop()

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            self.tests.append((f"{self._test()[0]}.{node.name.value}".removeprefix("<module>."), node))
            for decorator in node.decorators:
                expected = _expected(decorator.decorator)
                if expected is not None and _last_name(decorator.decorator.func) == "raises":
                    found = _Expectation(self.tests[-1][0], "@" + cstutil.code(decorator.decorator), expected, node)
                    out.extend(_candidates(found, node.body))

        def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
            self.tests.pop()

        def visit_With(self, node: cst.With) -> None:
            for item in node.items:
                expected = _expected(item.item)
                if expected is not None and cstutil.positional_count(item.item) == 1:
                    test, scope = self._test()
                    out.extend(
                        _candidates(_Expectation(test, f"with {cstutil.code(item.item)}", expected, scope), node.body)
                    )

        def visit_Try(self, node: cst.Try) -> None:
            """``try: pipe.build()`` then ``assert False`` (``raise``, ``self.fail(...)``): the
            test expects the build to raise what its ``except`` clauses catch."""
            body = node.body.body
            for i, stmt in enumerate(body):
                call = _build_statement(stmt)
                if call is None or not any(_fails(after) for after in body[i + 1 :]):
                    continue
                caught = [cstutil.code(h.type) for h in node.handlers if h.type is not None] or ["BaseException"]
                test, scope = self._test()
                code = f"try: {cstutil.code(call)} ... except {', '.join(caught)}"
                out.extend(_candidates(_Expectation(test, code, caught, scope), call, direct=call.func))

        def visit_Call(self, node: cst.Call) -> None:
            expected = _expected(node)
            if expected is None or len(node.args) < 2 or node.args[1].keyword is not None:
                return
            test, scope = self._test()
            found = _Expectation(test, cstutil.code(node), expected[:1], scope)
            given = node.args[1].value
            if (
                isinstance(given, cst.Attribute)
                and isinstance(given.value, cst.Name)
                and given.attr.value in ("build", "run")
            ):
                out.extend(_candidates(found, node, direct=given))
            elif isinstance(given, cst.Lambda):
                out.extend(_candidates(found, given.body))
            elif isinstance(given, cst.Name):  # `assert_raises(E, MyPipeline, 3)`: its creation
                what = f"creating the pipeline (`{given.value}(...)`)"
                fields = {"test": _who(test), "code": found.code, "expected": expected[0]}
                out.append((node, constructs.BUILD_RAISES, given, _advice(BUILD_RAISES, what=what, **fields)))

    tree.visit(module, Scan())
    return out


def _build_statement(stmt: cst.CSTNode) -> cst.Call | None:
    """The call of ``pipe.build()`` that ``stmt`` is, alone, or None."""
    expr = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
    call = expr.value if isinstance(expr, cst.Expr) else None
    if not (isinstance(call, cst.Call) and not call.args and isinstance(call.func, cst.Attribute)):
        return None
    return call if call.func.attr.value == "build" and isinstance(call.func.value, cst.Name) else None


def _fails(stmt: cst.CSTNode) -> bool:
    """Does ``stmt`` fail the test where it runs: ``assert False``, ``raise ...``, ``self.fail(...)``?"""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    if isinstance(small, cst.Raise):
        return True
    if isinstance(small, cst.Assert):  # `assert(False)` too: libcst keeps the parentheses on the name
        return isinstance(small.test, cst.Name) and small.test.value == "False"
    call = small.value if isinstance(small, cst.Expr) else None
    return isinstance(call, cst.Call) and _last_name(call.func) == "fail"


def run_differs(resolver: cst.MetadataDependent, pipeline: cst.CSTNode, construct: str) -> bool:
    """Does the migrated ``pipeline`` raise otherwise than pipeline mode where a test expects its
    run to raise? Only with a Python operator: any for an expected specific type, one with several
    outputs (or a number not written out) for ``Exception``."""
    outputs = []

    class Operators(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if names.dali_name(resolver, node.func) in PYTHON_OPERATORS:
                arg = cstutil.kwarg(node, "num_outputs")
                outputs.append(1 if arg is None else cstutil.literal_value(arg.value))

    tree.visit(pipeline, Operators())
    if construct == constructs.PYTHON_RUN_RAISES:
        return bool(outputs)
    return any(n != 1 for n in outputs)
