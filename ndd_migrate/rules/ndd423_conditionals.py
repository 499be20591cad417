"""NDD423 conditionals: a data-dependent ``if`` under ``enable_conditionals=True`` → per-sample selection.

With ``enable_conditionals=True`` DALI's AutoGraph turns ``if``/``else``, ``and``/``or``/``not`` and
conditional expressions on data into per-sample control flow: the predicate is one boolean per
sample, every branch runs on the sub-batch of samples that took it and the names the branches
assign are merged back in sample order. A plain copy in dynamic mode silently does something else:
``bool(batch)`` is always True, so every sample takes the ``if`` branch. Simple ``if`` statements
are rewritten as that per-sample selection; every other construct whose test reads data gets a
finding that says what to rewrite, how, and why it was not done automatically.
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate.dali.tables import op_info
from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.syntax import cstutil, names, tree
from ndd_migrate.syntax.cstutil import SkipsTrivia

RULE = Rule(
    code="NDD423",
    name="conditionals",
    summary="a data-dependent `if` under `enable_conditionals=True` becomes a per-sample selection",
    what=(
        "In a pipeline with `enable_conditionals=True`, a simple data-dependent `if` — a statement of the "
        "function's body, an optional plain `else`, branches of `name = expression` lines without random ops — "
        "becomes a per-sample selection: one boolean per sample, each branch run on the sub-batch that took it "
        "(skipped when none did), every name the branches assign scattered back in sample order; "
        "`enable_conditionals=` is dropped. Every other data-dependent construct (`elif`, nested `if`s, other "
        "statements or random ops in a branch, a conditional expression, `and`/`or`/`not`, `while`) is reported "
        "with what a copy would do wrong, the names to merge and the random ops involved, and the function is "
        "not rewritten."
    ),
    why=(
        "Pipeline mode decides each sample separately and runs each branch on the sub-batch that took it. "
        "In dynamic mode `bool(batch)` is always True: a copied `if` runs its first branch for every sample, "
        "silently. Random ops inside a branch draw one state (7 words) per call for their sub-batch, so equal "
        "random numbers need the same sub-batches, and `rng.advance(7 * k)` for the k random ops of a branch "
        "that no sample took."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "The rewrite gives the pipeline's samples (checked against DALI with all, some and no samples taking a "
        "branch). By hand, for the reported cases: `taken = [bool(np.asarray(t)) for t in pred.tensors]`; run "
        "each branch on `ndd.as_batch([x.tensors[i] for i in idx])` (random ops without input get "
        "`batch_size=len(idx)`); scatter each merged name back in sample order."
    ),
    examples=(
        Example(
            title="a simple `if`: per-sample selection",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=4, enable_conditionals=True)\n"
                "def pipe(root):\n"
                "    x = fn.readers.numpy(file_root=root)\n"
                "    if fn.reductions.max(x) > 1:\n"
                "        x = x / fn.reductions.max(x)\n"
                "    return x\n"
            ),
            after=(
                "import numpy as np\n"
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def pipe(root, *, batch_size=4):\n"
                "    reader = ndd.readers.Numpy(file_root=root)\n"
                "    while True:\n"
                "        for (x,) in reader.next_epoch(batch_size=batch_size):\n"
                "            taken = [bool(np.asarray(t)) for t in (ndd.reductions.max(x) > 1).tensors]\n"
                "            then_idx = [i for i, t in enumerate(taken) if t]\n"
                "            if then_idx:\n"
                "                x_then = ndd.as_batch([x.tensors[i] for i in then_idx])\n"
                "                x_then_2 = x_then / ndd.reductions.max(x_then)\n"
                "            x = ndd.as_batch([x_then_2.tensors[then_idx.index(i)] if t else x.tensors[i] for i, t in enumerate(taken)])\n"
                "            yield x.evaluate(),\n"
            ),
        ),
        Example(
            title="a random op in a branch: left for a human, with the reason",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=4, enable_conditionals=True)\n"
                "def pipe(root):\n"
                "    x = fn.readers.numpy(file_root=root)\n"
                "    if fn.reductions.max(x) > 1:\n"
                "        x = x * fn.random.uniform(range=[0.5, 1.0])\n"
                "    return x\n"
            ),
            after=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=4, enable_conditionals=True)\n"
                "def pipe(root):\n"
                "    x = fn.readers.numpy(file_root=root)\n"
                "    # TODO(ndd-migrate): NDD423 not migrated: `if fn.reductions.max(x) > 1` is decided per "
                "sample here; in dynamic mode `bool(batch)` is always True and a copy would run the `if` branch "
                "for every sample: split the batch by the predicate, run each branch on its sub-batch and merge "
                "`x` back in sample order; the random ops of a branch (`fn.random.uniform`) draw for their "
                "sub-batch only, and `rng.advance(7 * k)` stands for the k random ops of a branch no sample took "
                "(not rewritten automatically: random ops inside a branch); rewrite `pipe` by hand "
                "(see docs/target-shape.md)\n"
                "    if fn.reductions.max(x) > 1:\n"
                "        x = x * fn.random.uniform(range=[0.5, 1.0])\n"
                "    return x\n"
            ),
        ),
    ),
)


def explain(resolver, fn_node: cst.FunctionDef) -> tuple[list[tuple[cst.CSTNode, str]], list[cst.If]]:
    """``(node, why)`` for every data-dependent conditional the migration cannot rewrite, and the
    simple ``if`` statements it rewrites (see :func:`_not_simple`)."""
    finder = _Conditionals(resolver, fn_node)
    tree.visit(fn_node.body, finder)
    return finder.found, finder.simple


class _Conditionals(SkipsTrivia, cst.CSTVisitor):
    def __init__(self, resolver, fn_node: cst.FunctionDef) -> None:
        self.resolver = resolver
        self.fn_node = fn_node
        self.data = _data_names(resolver, fn_node)
        self.found: list[tuple[cst.CSTNode, str]] = []
        self.simple: list[cst.If] = []

    def _reads_data(self, expr: cst.CSTNode) -> bool:
        return any(
            (isinstance(n, cst.Name) and n.value in self.data)
            or (isinstance(n, cst.Call) and _is_dali(self.resolver, n))
            for n in tree.walk(expr)
        )

    def visit_If(self, node: cst.If) -> None:
        if not self._reads_data(node.test):
            return
        reason = _not_simple(self.resolver, self.fn_node, node)
        if reason is None:
            self.simple.append(node)
            return
        branches = [node.body] + ([node.orelse] if node.orelse is not None else [])
        merged = sorted(set.intersection(*(_assigned(b) for b in branches)) if node.orelse else _assigned(node.body))
        random = sorted({r for b in branches for r in _random_ops(self.resolver, b)})
        text = (
            f"`if {cstutil.code(node.test)}` is decided per sample here; in dynamic mode `bool(batch)` is always True "
            "and a copy would run the `if` branch for every sample: split the batch by the predicate, run each "
            "branch on its sub-batch"
        )
        if merged:
            text += " and merge " + ", ".join(f"`{m}`" for m in merged) + " back in sample order"
        if random:
            text += (
                "; the random ops of a branch (" + ", ".join(f"`fn.{r}`" for r in random) + ") draw for their "
                "sub-batch only, and `rng.advance(7 * k)` stands for the k random ops of a branch no sample took"
            )
        self.found.append((node, f"{text} (not rewritten automatically: {reason})"))

    def visit_IfExp(self, node: cst.IfExp) -> None:
        if self._reads_data(node.test):
            self.found.append(
                (
                    node,
                    f"`... if {cstutil.code(node.test)} else ...` on data picks per sample here; in "
                    "dynamic mode it always picks the first value: select per sample by hand",
                )
            )

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        if self._reads_data(node):
            self.found.append(
                (
                    node,
                    f"`{cstutil.code(node)}` combines per-sample booleans here; in dynamic mode "
                    "`and`/`or` test `bool(batch)` (always True): use `&`/`|` on the batches",
                )
            )

    def visit_While(self, node: cst.While) -> None:
        if self._reads_data(node.test):
            self.found.append(
                (
                    node,
                    f"`while {cstutil.code(node.test)}` on data: DALI rejects it too; loop in Python over the samples",
                )
            )


def _data_names(resolver, fn_node: cst.FunctionDef) -> set[str]:
    """Names the function binds from an expression that calls DALI or reads such a name (to a fixpoint)."""
    assigns = [
        (t, v)
        for n in tree.walk(fn_node.body)
        if isinstance(n, cst.Assign)
        for t, v in ((t.target, n.value) for t in n.targets)
    ]
    data: set[str] = set()
    changed = True
    while changed:
        changed = False
        for target, value in assigns:
            reads = any(
                (isinstance(n, cst.Name) and n.value in data) or (isinstance(n, cst.Call) and _is_dali(resolver, n))
                for n in tree.walk(value)
            )
            if reads:
                for n in tree.walk(target):
                    if isinstance(n, cst.Name) and n.value not in data:
                        data.add(n.value)
                        changed = True
    return data


def _is_dali(resolver, call: cst.Call) -> bool:
    dali = names.dali_name(resolver, call.func)
    return bool(dali and (names.fn_path(dali) or names.math_function(dali)))


def _random_ops(resolver, block: cst.CSTNode) -> set[str]:
    out = set()
    for n in tree.walk(block):
        if isinstance(n, cst.Call):
            path = names.fn_path(names.dali_name(resolver, n.func))
            info = op_info(path) if path else None
            if info and info.random:
                out.add(path)
    return out


def _assigned(block: cst.CSTNode) -> set[str]:
    return {
        n.value
        for a in tree.walk(block)
        if isinstance(a, cst.AssignTarget)
        for n in tree.walk(a.target)
        if isinstance(n, cst.Name)
    }


def _not_simple(resolver, fn_node: cst.FunctionDef, node: cst.If) -> str | None:
    """Why a data-dependent ``if`` is not rewritten automatically, or None. Rewritten: a statement of
    the function's own body, an optional plain ``else``, branches of ``name = expression`` lines
    without random ops (their states would be drawn for a sub-batch, which ``verify`` cannot align
    yet), every name a single branch assigns bound before the ``if`` (DALI requires it too)."""
    body = list(fn_node.body.body)
    if node not in body:
        return "it is nested in another block"
    if isinstance(node.orelse, cst.If):
        return "`elif` chains"
    branches = [node.body] + ([node.orelse.body] if node.orelse is not None else [])
    for branch in branches:
        for stmt in branch.body:
            if not (
                isinstance(stmt, cst.SimpleStatementLine)
                and len(stmt.body) == 1
                and isinstance(stmt.body[0], cst.Assign)
                and len(stmt.body[0].targets) == 1
                and isinstance(stmt.body[0].targets[0].target, cst.Name)
            ):
                return "a branch holds more than `name = expression` statements"
    if any(_random_ops(resolver, b) for b in branches):
        return "random ops inside a branch"
    before = set().union(*(_assigned(s) for s in body[: body.index(node)]))
    before |= {p.name.value for p in (*fn_node.params.params, *fn_node.params.kwonly_params)}
    sets = [_assigned(b) for b in branches] + ([] if node.orelse is not None else [set()])
    if any(name not in before for name in set.union(*sets) - set.intersection(*sets)):
        return "a name assigned in one branch only is not bound before the `if`"
    return None


def selection(ctx, node: cst.If, data: set[str], used: set[str]) -> list[cst.BaseStatement]:
    """The per-sample form of a simple data-dependent ``if`` (``node`` is the updated statement):
    per-sample booleans, one sub-batch per branch (skipped when no sample took it), and every name
    the branches assign scattered back in sample order."""
    code = cst.Module([]).code_for_node
    asarray, as_batch = code(ctx.numpy("asarray")), code(ctx.ndd("as_batch"))
    taken = cstutil.fresh("taken", used)
    test = code(node.test)
    test = test if test.replace("_", "").isalnum() else f"({test})"
    out = [cst.parse_statement(f"{taken} = [bool({asarray}(t)) for t in {test}.tensors]\n")]
    branches = [("then", node.body, "if t")]
    if node.orelse is not None:
        branches.append(("else", node.orelse.body, "if not t"))
    results: list[tuple[str, dict[str, str]]] = []
    for label, block, keep in branches:
        idx = cstutil.fresh(f"{label}_idx", used)
        out.append(cst.parse_statement(f"{idx} = [i for i, t in enumerate({taken}) {keep}]\n"))
        renames: dict[str, str] = {}
        inner: list = []
        for stmt in block.body:
            assign = stmt.body[0]
            for name in sorted(_names(assign.value) & (data - set(renames))):
                renames[name] = cstutil.fresh(f"{name}_{label}", used)
                inner.append(cst.parse_statement(f"{renames[name]} = {as_batch}([{name}.tensors[i] for i in {idx}])\n"))
            value = assign.value.visit(_Rename(renames))
            target = assign.targets[0].target.value
            renames[target] = cstutil.fresh(f"{target}_{label}", used)
            inner.append(
                stmt.with_changes(
                    body=[assign.with_changes(targets=[cst.AssignTarget(cst.Name(renames[target]))], value=value)],
                    leading_lines=[],
                )
            )
        out.append(cst.If(test=cst.Name(idx), body=cst.IndentedBlock(inner)))
        results.append((idx, {t: renames[t] for t in _assigned(block)}))
    for name in sorted(set().union(*(r[1] for r in results))):
        picks = [f"{r[1][name]}.tensors[{r[0]}.index(i)]" if name in r[1] else f"{name}.tensors[i]" for r in results]
        other = picks[1] if len(picks) > 1 else f"{name}.tensors[i]"
        out.append(
            cst.parse_statement(f"{name} = {as_batch}([{picks[0]} if t else {other} for i, t in enumerate({taken})])\n")
        )
    return out


def _names(expr: cst.CSTNode) -> set[str]:
    finder = _Rename({})
    tree.visit(expr, finder)
    return finder.seen


class _Rename(SkipsTrivia, cst.CSTTransformer):
    """Renames the names an expression reads (not keyword names, attribute names or lambdas) and
    collects them in ``seen``."""

    def __init__(self, renames: dict[str, str]) -> None:
        self.renames = renames
        self.seen: set[str] = set()
        self._not_read: set[cst.Name] = set()

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._not_read.add(node.keyword)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._not_read.add(node.attr)

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        if original in self._not_read:
            return updated
        self.seen.add(original.value)
        return updated.with_changes(value=self.renames.get(original.value, original.value))


class Impl(RuleImpl):
    """Rewrites the simple ``if``s of a converted pipeline once NDD001 has built the generator
    (the ``if`` is replaced by several statements, which NDD001's statement-by-statement reading of
    the body must not see), and drops ``enable_conditionals=`` from its call sites."""

    rule = RULE

    def blockers(self, pipeline):
        """Data-dependent conditionals of a pipeline with ``enable_conditionals``: the simple ones
        are rewritten (``fn.conditionals``), the others block it."""
        if not pipeline.conditionals_enabled:
            return []
        problems, pipeline.conditionals = explain(self.ctx.resolver, pipeline.node)
        return [(node, why, "") for node, why in problems]

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # keyed by the `if`'s test: NDD001 may copy the statement itself (new leading lines)
        self._pending: dict[cst.BaseExpression, list] = {}

    def leave_If(self, original: cst.If, updated: cst.If) -> cst.If:
        pipeline = self.ctx.enclosing_pipeline()
        if pipeline is None or not pipeline.convert or original not in pipeline.conditionals:
            return updated
        used = (
            set(pipeline.local_names)
            | set(self.ctx.model.plan.op_rngs.values())
            | set(self.ctx.model.plan.pipeline_rng.values())
        )
        data = _data_names(self.ctx.resolver, pipeline.node)
        self._pending[updated.test] = selection(self.ctx, updated, data, used)
        pipeline.local_names |= used
        self.ctx.report(self.code, original, f"`if {cstutil.code(original.test)}` → per-sample selection", fixed=True)
        return updated

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        if not self._pending:
            return updated
        pending, self._pending = self._pending, {}
        return updated.visit(_Replace(pending))

    def leave_Call(self, original: cst.Call, updated: cst.BaseExpression) -> cst.BaseExpression:
        pipeline = self.ctx.model.call_sites.get(original)
        arg = cstutil.kwarg(original, "enable_conditionals")
        if pipeline is None or not pipeline.convert or arg is None or not isinstance(updated, cst.Call):
            return updated
        self.ctx.report(
            self.code, arg, "`enable_conditionals` dropped: the `if`s are per-sample selections now", fixed=True
        )
        return cstutil.remove_kwargs(updated, {"enable_conditionals"})


class _Replace(SkipsTrivia, cst.CSTTransformer):
    def __init__(self, pending: dict[cst.BaseExpression, list]) -> None:
        self.pending = pending

    def leave_If(self, original: cst.If, updated: cst.If):
        stmts = self.pending.get(original.test)
        if stmts is None:
            return updated
        return cst.FlattenSentinel([stmts[0].with_changes(leading_lines=original.leading_lines), *stmts[1:]])
