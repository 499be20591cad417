"""NDD110 graph-node-class: ``isinstance(x, DataNode)`` in graph code tests for ``ndd.Batch``."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import BuiltinAssignment, ScopeProvider

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.values import graph_code
from ndd_migrate.syntax import cstutil, names, tree
from ndd_migrate.syntax.cstutil import SkipsTrivia

RULE = Rule(
    code="NDD110",
    name="graph-node-class",
    summary="`isinstance(x, DataNode)` in graph code: in dynamic mode a graph value is an `ndd.Batch`",
    what=(
        "In graph code (a `@pipeline_def` body, a legacy `define_graph`, the module's functions they call) "
        "with the comprehensions and lambdas in it, and in the other functions whose `fn.*` calls are rewritten, "
        "rewrites the class an `isinstance` test "
        "checks from DALI's graph-node class to `ndd.Batch`: `isinstance(x, DataNode)` → `isinstance(x, "
        "ndd.Batch)`, `isinstance(x, (DataNode, list))` → `isinstance(x, (ndd.Batch, list))`, under any "
        "spelling (`nvidia.dali.data_node.DataNode`, `nvidia.dali.pipeline.DataNode`, older DALI's "
        "`nvidia.dali.ops._EdgeReference`). The import goes when nothing else uses it (NDD301). Any other use "
        "of the class in graph code (`type(x) is DataNode`, `issubclass`, a name holding it, "
        "`isinstance(x, NODE_TYPES)` with `NODE_TYPES = (DataNode, list)`) keeps the pipeline in pipeline "
        "mode, with a TODO that says what to write."
    ),
    why=(
        "Pipeline mode's graph code works on `DataNode` objects; the converted generator works on `ndd.Batch` "
        "objects (every op's result, a reader's outputs, arithmetic of batches, `ndd.as_batch(...)` — DALI "
        "2.4.0), never on a `DataNode`. Left as it is, `assert isinstance(images, DataNode)` fails on the first "
        "batch, and `if isinstance(x, DataNode):` quietly takes the other branch."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "Applied with the pipeline rewrite (NDD001). A value is a `DataNode` in pipeline mode exactly when it "
        "is an `ndd.Batch` in the generator (the Python values — parameters, literals, numpy arrays — stay what "
        "they were), so the test gives the same answer, for every batch."
    ),
    examples=(
        Example(
            title="an assert on an op's output; a helper that takes graph values and Python numbers",
            before=(
                "import nvidia.dali.fn as fn\n"
                "from nvidia.dali import pipeline_def\n"
                "from nvidia.dali.data_node import DataNode\n\n\n"
                "def scale(x, k):\n"
                "    return x * k if isinstance(k, DataNode) else x * float(k)\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    x = fn.random.uniform(shape=[3])\n"
                "    assert isinstance(x, DataNode)\n"
                "    return scale(x, 2), scale(x, x)\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "def scale(x, k):\n"
                "    return x * k if isinstance(k, ndd.Batch) else x * float(k)\n\n\n"
                "@prefetching\n"
                "def p(*, batch_size=2):\n"
                "    while True:\n"
                "        x = ndd.random.uniform(shape=[3], batch_size=batch_size)\n"
                "        assert isinstance(x, ndd.Batch)\n"
                "        yield scale(x, 2).evaluate(), scale(x, x).evaluate()\n"
            ),
        ),
        Example(
            title="the class compared by identity: left for a human",
            before=(
                "import nvidia.dali.fn as fn\n"
                "from nvidia.dali import pipeline_def\n"
                "from nvidia.dali.data_node import DataNode\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    x = fn.random.uniform(shape=[3])\n"
                "    assert type(x) is DataNode\n"
                "    return x\n"
            ),
            after=(
                "import nvidia.dali.fn as fn\n"
                "from nvidia.dali import pipeline_def\n"
                "from nvidia.dali.data_node import DataNode\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    x = fn.random.uniform(shape=[3])\n"
                "    # TODO(ndd-migrate): NDD110 not migrated: `assert type(x) is DataNode`: `DataNode` is the class "
                "of graph values, which are `ndd.Batch` objects in dynamic mode, and it is used here other than as "
                "the class an `isinstance` test checks; write `isinstance(value, DataNode)` (which the migration "
                "rewrites to `isinstance(value, ndd.Batch)`), then run the migration again\n"
                "    assert type(x) is DataNode\n"
                "    return x\n"
            ),
        ),
    ),
    valid=(
        # hand-written dynamic-mode code
        "import nvidia.dali.experimental.dynamic as ndd\n\n\ndef is_batch(x):\n    return isinstance(x, ndd.Batch)\n",
    ),
)

_HINT = (
    "write `isinstance(value, {name})` (which the migration rewrites to `isinstance(value, ndd.Batch)`), "
    "then run the migration again"
)


def analyse(graph: graph_code.Graph, found: graph_code.GraphFacts) -> None:
    """Each use of DALI's graph-node class in the graph functions: the class of an ``isinstance``
    test (rewritten), or a problem of each pipeline whose graph runs it."""
    from ndd_migrate.model.types import Problem

    for pipe_def, owners, _root in graph.graph_functions():
        uses = _ClassUses(graph)
        tree.visit(pipe_def.node.body, uses)
        for node in uses.tests:
            found.batch_classes.setdefault(node, set()).update(owners)
        for node, statement, spelled in uses.others:
            message = (
                f"`{_statement_text(statement)}`: `{spelled}` is the class of graph values, which are `ndd.Batch` "
                "objects in dynamic mode, and it is used here other than as the class an `isinstance` test checks"
            )
            for pipeline in owners:
                pipeline.problems.append(Problem(RULE.code, node, message, _HINT.format(name=spelled)))
        for node, statement, alias, spelled in uses.aliases:
            message = (
                f"`{_statement_text(statement)}`: `{alias}` holds `{spelled}`, the class of graph values, which are "
                "`ndd.Batch` objects in dynamic mode; the test is not rewritten through the name"
            )
            hint = f"write the classes in the `isinstance` call itself (`{spelled}` among them), then run the migration again"
            for pipeline in owners:
                pipeline.problems.append(Problem(RULE.code, node, message, hint))


class _ClassUses(SkipsTrivia, cst.CSTVisitor):
    """The uses of the graph-node class in one function's code, with the functions and lambdas it
    defines that are not graph functions of their own (``filter(lambda v: isinstance(v, DataNode),
    outs)``; a callback's test sees no graph value in either mode, rewritten or not), but not in
    the classes it defines nor in annotations, which are not evaluated where it matters:
    ``tests`` the class expressions ``isinstance`` checks, ``others`` every other reference,
    ``aliases`` the ``isinstance`` tests whose class is a name bound to an expression holding it."""

    def __init__(self, graph: graph_code.Graph) -> None:
        self._graph = graph
        self._statements: list[cst.CSTNode] = []
        self.tests: set[cst.CSTNode] = set()
        self.others: list[tuple[cst.CSTNode, cst.CSTNode, str]] = []
        self.aliases: list[tuple[cst.CSTNode, cst.CSTNode, str, str]] = []

    def _is_class(self, node: cst.CSTNode) -> bool:
        return isinstance(node, (cst.Name, cst.Attribute)) and self._graph.dali_name(node) == names.DATA_NODE

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            self._statements.append(node)
        return super().on_visit(node)

    def on_leave(self, node: cst.CSTNode) -> None:
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            self._statements.pop()
        super().on_leave(node)

    def visit_FunctionDef(self, node) -> bool:
        return node not in self._graph.reached_by  # a graph function of its own: decided on its own

    def visit_Lambda(self, node) -> bool:
        return node not in self._graph.reached_by

    def visit_ClassDef(self, node) -> bool:
        return False

    def visit_Annotation(self, node) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> bool:
        args = node.args
        if self._graph.builtin(node.func) != "isinstance" or len(args) != 2 or any(a.star or a.keyword for a in args):
            return True
        tree.visit(args[0].value, self)
        self._classes(node, args[1].value)
        return False

    def _classes(self, call: cst.Call, classes: cst.BaseExpression) -> None:
        """The class operand of ``isinstance``: one class, or a tuple display of them (nested too)."""
        if self._is_class(classes):
            self.tests.add(classes)
        elif isinstance(classes, cst.Tuple):
            for element in classes.elements:
                if isinstance(element, cst.StarredElement):
                    tree.visit(element, self)
                else:
                    self._classes(call, element.value)
        elif isinstance(classes, cst.Name) and self._graph.builtin(classes) is None:
            held = self._held_class(classes)
            if held is not None:
                self.aliases.append((call, self._statement(call), classes.value, held))
        else:
            tree.visit(classes, self)

    def _held_class(self, name: cst.Name) -> str | None:
        """The graph-node class as spelled in a value bound to ``name`` (``NODES = (DataNode, list)``)."""
        for value in self._graph.bound_values(name):
            finder = _Spelled(self._is_class)
            tree.visit(value, finder)
            if finder.spelled is not None:
                return finder.spelled
        return None

    def _statement(self, node: cst.CSTNode) -> cst.CSTNode:
        return self._statements[-1] if self._statements else node

    def _reference(self, node: cst.CSTNode) -> bool:
        if not self._is_class(node):
            return True
        self.others.append((node, self._statement(node), cstutil.code(node)))
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        return self._reference(node)

    def visit_Name(self, node: cst.Name) -> bool:
        return self._reference(node)


class _Spelled(SkipsTrivia, cst.CSTVisitor):
    def __init__(self, is_class) -> None:
        self._is_class = is_class
        self.spelled: str | None = None

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        return self._found(node)

    def visit_Name(self, node: cst.Name) -> bool:
        return self._found(node)

    def _found(self, node) -> bool:
        if self.spelled is None and self._is_class(node):
            self.spelled = cstutil.code(node)
        return self.spelled is None


def _operands(classes: cst.BaseExpression):
    """The classes an ``isinstance`` operand names: itself, or the elements of a tuple display."""
    if isinstance(classes, cst.Tuple):
        for element in classes.elements:
            if isinstance(element, cst.Element):
                yield from _operands(element.value)
    else:
        yield classes


def _statement_text(statement: cst.CSTNode, limit: int = 60) -> str:
    if isinstance(statement, cst.SimpleStatementLine):
        text = "; ".join(" ".join(cstutil.code(small).split()) for small in statement.body)
    elif isinstance(statement, cst.BaseCompoundStatement):  # its first line: `if type(x) is DataNode:`
        first = next(
            line for line in cstutil.code(statement).splitlines() if line.strip() and not line.lstrip().startswith("#")
        )
        text = " ".join(first.split())
    else:
        text = " ".join(cstutil.code(statement).split())
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


class Impl(RuleImpl):
    """Rewrites the ``isinstance`` classes :func:`analyse` decided in graph code; in the other
    functions whose ``fn.*`` calls are rewritten (helpers for another module's pipelines), every
    ``isinstance`` test's graph-node class, decided here as the traversal meets them."""

    rule = RULE

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._outside: set[cst.CSTNode] = set()

    def blockers(self, pipe_def):
        """Decides, once per module, every use of the graph-node class in graph code (``analyse``);
        a test of ``fn``'s graph this run may not rewrite (``# noqa``, not selected) blocks ``fn``:
        kept as it is, it would be false for every graph value of the generator."""
        found = graph_code.analysed(self, analyse)
        return [
            (
                node,
                (
                    f"`{cstutil.code(node)}` in an `isinstance` test is not rewritten here (`# noqa: {self.code}` or the rule "
                    "not selected), and no value of the generator is one: graph values are `ndd.Batch` objects"
                ),
                f"let {self.code} rewrite it to `ndd.Batch`, or write `ndd.Batch` yourself, then run the migration again",
            )
            for node in graph_code.unrewritable(self, pipe_def, found.batch_classes)
        ]

    def visit_Call(self, node: cst.Call) -> None:
        stack = self.ctx.walk.functions
        if not stack or stack[-1] in graph_code.facts(self.ctx.model).functions:
            return
        if any(pipe_def in self.ctx.model.by_node for pipe_def in stack):
            return  # a function nested in a pipeline's and not called by it: a callback
        builtin = isinstance(node.func, cst.Name) and node.func.value == "isinstance" and self._builtin(node.func)
        if not builtin or len(node.args) != 2 or any(a.star or a.keyword for a in node.args):
            return
        self._outside.update(e for e in _operands(node.args[1].value) if self.dali_name(e) == names.DATA_NODE)

    def _builtin(self, func: cst.Name) -> bool:
        scope = self.ctx.resolver.get_metadata(ScopeProvider, func, None)
        assignments = list(scope[func.value]) if scope is not None else []
        return bool(assignments) and all(isinstance(a, BuiltinAssignment) for a in assignments)

    def _rewrite(self, original: cst.CSTNode, updated: cst.BaseExpression) -> cst.BaseExpression:
        if original not in graph_code.facts(self.ctx.model).batch_classes and original not in self._outside:
            return updated
        if not self.ctx.may_rewrite_dali_calls():
            return updated
        fixed = self.ctx.applies(self.code, original)
        message = f"`{cstutil.code(original)}` in an `isinstance` test → `ndd.Batch` (a graph value in dynamic mode)"
        self.ctx.report(self.code, original, message, hint="test for `ndd.Batch`", fixed=fixed)
        return self.ctx.ndd("Batch") if fixed else updated

    def leave_Name(self, original: cst.Name, updated: cst.BaseExpression) -> cst.BaseExpression:
        return self._rewrite(original, updated)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.BaseExpression) -> cst.BaseExpression:
        return self._rewrite(original, updated)
