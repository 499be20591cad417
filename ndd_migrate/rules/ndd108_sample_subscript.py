"""NDD108 sample-subscript: ``x[...]`` on a ``DataNode`` in graph code becomes ``x.slice[...]``."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.values import graph_code
from ndd_migrate.syntax import cstutil

RULE = Rule(
    code="NDD108",
    name="sample-subscript",
    summary="`x[i]` on a `DataNode` slices inside every sample: in dynamic mode it is `x.slice[i]`",
    what=(
        "In graph code (a `@pipeline_def` body, a legacy `define_graph`, and the module's functions and named "
        "lambdas they call), rewrites a subscript whose value is a `DataNode` (a name bound from an `fn.*` call, an "
        "arithmetic of `DataNode`s, a reader's output, `x.gpu()`, another subscript of one) from `x[...]` to "
        "`x.slice[...]`, the same indices. Subscripts of Python values are left alone: the pipeline function's "
        "parameters, literals, module-level names, and the tuple a multi-output op returns when it is bound "
        "to one name (`outputs = fn.readers.file(...)`; `outputs[0]` picks an output). Where the value may be "
        "either (bound from an unknown call, a parameter of a helper called with both), or where the indices "
        "use `None`/`dali.newaxis` (which `Batch.slice` does not take), the pipeline is not migrated and the "
        "TODO says which subscript and what to write. In other functions whose `fn.*` calls are rewritten "
        "(helpers of another module's pipeline), a subscript is rewritten only where its value is known to "
        "be a `DataNode` there (`y = fn.flip(x); y[0:2]`); parameters of unknown kind stay as written. A "
        "helper that takes both and tests which it has, `if isinstance(x, DataNode): x[...] else: x[...]` "
        "(`x` a parameter bound nowhere else), slices in the `if` body and indexes as Python in the "
        "`elif`/`else`: NDD110 makes the test `isinstance(x, ndd.Batch)`, so the same branch runs."
    ),
    why=(
        "A `DataNode` subscript indexes inside each sample (DALI's tensor subscripting: `x[1:3]` keeps rows "
        "1-2 of every sample). In dynamic mode the value is a `Batch`, which has no `__getitem__` (a "
        "`TypeError` on the first batch); `batch.slice[...]` is the same per-sample slicing, while "
        "`batch.tensors[i]` would pick sample i, a different operation."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "Applied with the pipeline rewrite (NDD001), only where the value is known to be a `DataNode`; same "
        "indices, same per-sample result (compared with DALI 2.4.0 for ints, negative ints, ranges, steps and "
        "`[:, i]`)."
    ),
    examples=(
        Example(
            title="per-sample slicing of op outputs; a Python list parameter stays",
            before=(
                "import nvidia.dali.fn as fn\n"
                "from nvidia.dali import pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p(root, sizes):\n"
                "    data = fn.readers.numpy(file_root=root)\n"
                "    xy = fn.cast(data, dtype=7) * 2\n"
                "    return xy[:, 0], data[1:3] * sizes[0]\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def p(root, sizes, *, batch_size=2):\n"
                "    reader = ndd.readers.Numpy(file_root=root)\n"
                "    while True:\n"
                "        for (data,) in reader.next_epoch(batch_size=batch_size):\n"
                "            xy = ndd.cast(data, dtype=7) * 2\n"
                "            yield xy.slice[:, 0].evaluate(), (data.slice[1:3] * sizes[0]).evaluate()\n"
            ),
        ),
        Example(
            title="a value that may be a DataNode or a Python list: left for a human",
            before=(
                "import nvidia.dali.fn as fn\n"
                "from nvidia.dali import pipeline_def\n"
                "from mylib import pick\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    x = pick(fn.random.uniform(shape=[4]))\n"
                "    return x[0]\n"
            ),
            after=(
                "import nvidia.dali.fn as fn\n"
                "from nvidia.dali import pipeline_def\n"
                "from mylib import pick\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    x = pick(fn.random.uniform(shape=[4]))\n"
                "    # TODO(ndd-migrate): NDD108 not migrated: `x[0]`: cannot tell whether `x` is a DataNode "
                "(slicing inside every sample) or a Python container; if it is an op's output, it becomes "
                "`x.slice[0]` in dynamic mode; if it is a list/tuple/dict, it stays `x[0]`. Bind `x` from an "
                "`fn.*` call or a Python literal where it is defined, then run the migration again\n"
                "    return x[0]\n"
            ),
        ),
        Example(
            title="a helper that tests which kind it was given: each branch indexes its own kind",
            before=(
                "import numpy as np\n"
                "import nvidia.dali.fn as fn\n"
                "from nvidia.dali import pipeline_def\n"
                "from nvidia.dali.data_node import DataNode\n\n\n"
                "def crop(x):\n"
                "    if isinstance(x, DataNode):\n"
                "        return x[1:3]\n"
                "    else:\n"
                "        return x[..., 1:3]\n\n\n"
                "GRID = crop(np.zeros([4, 4]))\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p(root):\n"
                "    data = fn.readers.numpy(file_root=root)\n"
                "    return crop(data)\n"
            ),
            after=(
                "import numpy as np\n"
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "def crop(x):\n"
                "    if isinstance(x, ndd.Batch):\n"
                "        return x.slice[1:3]\n"
                "    else:\n"
                "        return x[..., 1:3]\n\n\n"
                "GRID = crop(np.zeros([4, 4]))\n\n\n"
                "@prefetching\n"
                "def p(root, *, batch_size=2):\n"
                "    reader = ndd.readers.Numpy(file_root=root)\n"
                "    while True:\n"
                "        for (data,) in reader.next_epoch(batch_size=batch_size):\n"
                "            yield crop(data).evaluate(),\n"
            ),
        ),
    ),
    valid=(
        # hand-written dynamic-mode code: a Tensor is subscriptable (NDD501 looks at batches)
        "import nvidia.dali.experimental.dynamic as ndd\n\nt = ndd.random.uniform(shape=[3])\nx = t[0]\n",
        # indexing outside a graph (a numpy array in an external source's callback)
        "import numpy as np\n\n\ndef source(info):\n    return np.zeros([4])[1:3]\n",
    ),
)


def analyse(graph: graph_code.Graph, found: graph_code.GraphFacts) -> None:
    """Decide every subscript of the graph functions: rewritten (a ``DataNode``), left (a Python
    value), or a problem of each pipeline whose graph runs it (unknown; indices ``Batch.slice``
    does not take)."""
    from ndd_migrate.model.types import Problem

    unknown: dict[cst.CSTNode, list[cst.Subscript]] = {}  # per statement, for one TODO each
    for pipe_def, owners, _root in graph.graph_functions():
        for sub in pipe_def.subscripts:
            kind = graph.kind(sub.value)
            if kind is None:  # `if isinstance(x, DataNode): x[0] else: x[..., 0]` in a helper taking both
                kind = {True: graph_code.NODE, False: graph_code.PY}.get(graph.guarded(sub.value))
            if kind in (graph_code.PY, graph_code.NODES, graph_code.BOX) or _string_index(sub):
                continue  # Python indexing (a DataNode takes no string index)
            text = cstutil.code(sub)
            value = cstutil.code(sub.value)
            if kind == graph_code.NODE:
                bad = _unsupported_index(graph, sub)
                if bad is None:
                    found.slices.add(sub)
                    found.slice_owners.setdefault(sub, set()).update(owners)
                    continue
                message = f"`{text}`: `{bad}` in the indices of a DataNode: `Batch.slice` has no new axes"
                hint = (
                    f"write `fn.expand_dims({value}, axes=[...])` for the new axis (and the subscript without it), "
                    "then run the migration again"
                )
            else:
                message = (
                    f"`{text}`: cannot tell whether `{value}` is a DataNode (slicing inside every sample) or a "
                    "Python container"
                )
                both = (
                    f"if it is an op's output, it becomes `{value}.slice[{_code_slice(sub)}]` in dynamic mode; if it "
                    f"is a list/tuple/dict, it stays `{text}`"
                )
                helper = graph.parameter_of(sub.value)
                if helper is not None:
                    message += f" (`{value}` is a parameter of `{helper}`, not called with DataNodes only)"
                    hint = (
                        f"{both}. Give the graph its own function for DataNodes and keep `{helper}` for Python "
                        "values, then run the migration again"
                    )
                else:
                    statement = _statement(graph.model.parents, sub)
                    unknown.setdefault(statement, []).append(sub)
                    if len(unknown[statement]) > 1:
                        continue  # one TODO per statement (below)
                    hint = (
                        f"{both}. Bind `{value}` from an `fn.*` call or a Python literal where it is defined, then "
                        "run the migration again"
                    )
            for pipeline in owners:
                pipeline.problems.append(Problem(RULE.code, sub, message, hint))
        for subs in unknown.values():
            if len(subs) > 1:
                _merge(owners, subs)
        unknown.clear()
    for call, name, owners in graph.unfollowed_methods():
        text = cstutil.code(call.func)
        for pipeline in owners:
            pipeline.problems.append(
                Problem(
                    RULE.code,
                    call,
                    f"`{text}(...)` may run the method `{name}` of a class of this module, which is not only called "
                    f"as `self.{name}()` in its class: its subscripts (`x[...]` → `x.slice[...]`) and ops would not be "
                    "rewritten with the graph",
                    f"call `{name}` only as `self.{name}(...)` inside its class (or make it a function of the module), "
                    "then run the migration again",
                )
            )


def _statement(parents: dict, node: cst.CSTNode) -> cst.CSTNode:
    while node in parents and not isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        node = parents[node]
    return node


def _merge(owners, subs: list[cst.Subscript]) -> None:
    """Undecided subscripts of one statement: one problem naming them, in place of the first's."""
    texts = [f"`{cstutil.code(sub)}`" for sub in subs]
    values = ", ".join(dict.fromkeys(f"`{cstutil.code(sub.value)}`" for sub in subs))
    shown = ", ".join(texts[:3]) + (f" and {len(texts) - 3} more" if len(texts) > 3 else "")
    message = f"{shown}: cannot tell whether {values} are DataNodes (slicing inside every sample) or Python containers"
    hint = (
        "if they are op outputs, each `x[i]` becomes `x.slice[i]` in dynamic mode; if they are lists/tuples/dicts, "
        "they stay. Bind each from an `fn.*` call or a Python literal where it is defined, then run the "
        "migration again"
    )
    for pipeline in owners:
        for problem in pipeline.problems:
            if problem.node is subs[0] and problem.about == RULE.code:
                problem.message, problem.hint = message, hint


def _string_index(sub: cst.Subscript) -> bool:
    return any(
        isinstance(e.slice, cst.Index)
        and isinstance(e.slice.value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))
        for e in sub.slice
    )


def _unsupported_index(graph: graph_code.Graph, sub: cst.Subscript) -> str | None:
    """An index ``Batch.slice`` cannot take (``None``, ``dali.newaxis``), spelled as written."""
    for element in sub.slice:
        index = element.slice
        if not isinstance(index, cst.Index):
            continue
        value = index.value
        if isinstance(value, cst.Name) and value.value == "None":
            return "None"
        if isinstance(value, cst.Call):  # `dali.newaxis("C")`: a named new axis
            value = value.func
        dali = graph.dali_name(value) if isinstance(value, (cst.Name, cst.Attribute)) else None
        if dali in ("nvidia.dali.newaxis", "nvidia.dali.data_node.newaxis"):
            return cstutil.code(index.value)
    return None


def _code_slice(sub: cst.Subscript) -> str:
    return cstutil.code(sub)[len(cstutil.code(sub.value)) + 1 : -1]


class Impl(RuleImpl):
    """Rewrites what :func:`analyse` decided in graph code; in other functions whose ``fn.*`` calls
    are rewritten (helpers the module's pipelines do not call: another module's may), subscripts of
    values known to be ``DataNode`` objects (``y = fn.flip(x); y[0:2]``), decided here."""

    rule = RULE

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._graph: graph_code.Graph | None = None
        self._lambdas = 0

    def blockers(self, pipe_def):
        """Decides, once per module, every subscript of the graph code (``analyse``): the ones it
        cannot decide are recorded as problems of their pipelines directly. A DataNode subscript of
        ``fn``'s graph this run may not rewrite (``# noqa``, not selected) blocks ``fn``: kept as it
        is, it would index the batch (its samples), not inside every sample."""
        found = graph_code.analysed(self, analyse)
        return [
            (
                sub,
                (
                    f"`{cstutil.code(sub)}` on a DataNode is not rewritten here (`# noqa: {self.code}` or the rule not "
                    "selected): on a `Batch` it would index the batch, not inside every sample"
                ),
                (
                    f"let {self.code} rewrite it to `{cstutil.code(sub.value)}.slice[{_code_slice(sub)}]`, or write that "
                    "yourself, then run the migration again"
                ),
            )
            for sub in graph_code.unrewritable(self, pipe_def, found.slice_owners)
        ]

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._lambdas += 1

    def leave_Lambda(self, original: cst.Lambda, updated: cst.BaseExpression) -> cst.BaseExpression:
        self._lambdas -= 1
        return updated

    def leave_Subscript(self, original: cst.Subscript, updated: cst.BaseExpression) -> cst.BaseExpression:
        if not isinstance(updated, cst.Subscript):
            return updated
        facts = graph_code.facts(self.ctx.model)
        if original not in facts.slices and not self.ctx.walk.functions:
            return updated
        if not self.ctx.may_rewrite_dali_calls():
            return updated
        if original not in facts.slices and not self._outside_graph_code_node(original, facts):
            return updated
        value = cstutil.code(original.value)
        message = f"`{cstutil.code(original)}` on a DataNode slices inside every sample → `{value}.slice[...]`"
        fixed = self.ctx.applies(self.code, original)
        self.ctx.report(self.code, original, message, hint=f"use `{value}.slice[...]`", fixed=fixed)
        if not fixed:
            return updated
        return updated.with_changes(value=cst.Attribute(updated.value, cst.Name("slice")))

    def _outside_graph_code_node(self, sub: cst.Subscript, facts: graph_code.GraphFacts) -> bool:
        """A subscript of a known DataNode in a function the analysis did not decide."""
        stack = self.ctx.walk.functions
        if not stack or self._lambdas or stack[-1] in facts.functions or _string_index(sub):
            return False
        if any(node in self.ctx.model.by_node for node in stack):
            return False  # a function nested in a pipeline's and not called by it: a callback
        if self._graph is None:
            self._graph = graph_code.Graph(self.ctx.resolver, self.ctx.model)
        graph = self._graph
        return graph.kind(sub.value) == graph_code.NODE and _unsupported_index(graph, sub) is None
