"""The single traversal that rewrites a module: every rule's ``visit_X``/``leave_X`` hooks run from one
:class:`Dispatcher`, which first decides which pipelines convert (blockers, converters and the
claims on every use of the migration plan, to a fixed point) and places TODO comments on the way out.
"""

from __future__ import annotations

import functools
from collections import defaultdict

import libcst as cst
from libcst.metadata import QualifiedNameProvider, ScopeProvider

from ndd_migrate.engine.catalog import rule_modules
from ndd_migrate.engine.context import TODO_PREFIX, Context
from ndd_migrate.engine.todos import add_todo_comments, has_todos, one_per_code, without_stale_todos
from ndd_migrate.model import crossfile
from ndd_migrate.model.types import ImportedPipeline, Problem
from ndd_migrate.model.values import graph_helpers
from ndd_migrate.plan import uses
from ndd_migrate.syntax.cstutil import TRIVIA, snippet

_STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)


def rule_impls() -> list[type]:
    """Implementation classes of all rules, in rule-code order (the order hooks run in)."""
    return [mod.Impl for mod in rule_modules() if hasattr(mod, "Impl")]


@functools.cache
def _hook_table() -> tuple[tuple[type, tuple[tuple[str, str, str], ...]], ...]:
    """Each rule class with its hooks as ``(kind, node type name, method name)``, found once per
    process rather than by ``dir()`` on every class for every file."""
    table = []
    for cls in rule_impls():
        hooks = tuple((attr[:5], attr[6:], attr) for attr in dir(cls) if attr.startswith(("visit_", "leave_")))
        table.append((cls, hooks))
    return tuple(table)


@functools.cache
def _is_statement(node_type: type) -> bool:
    """``isinstance(node, _STATEMENTS)`` by type, memoised: the check runs for every node twice,
    and ``BaseCompoundStatement`` is an ABC, whose ``isinstance`` is slow."""
    return issubclass(node_type, _STATEMENTS)


class Dispatcher(cst.CSTTransformer):
    """Runs every rule's ``visit_X``/``leave_X`` hooks in one traversal and places TODO comments."""

    # Positions are not among them: computed only when a finding needs one (Context.positions).
    METADATA_DEPENDENCIES = (QualifiedNameProvider, ScopeProvider)

    def __init__(self, ctx: Context) -> None:
        super().__init__()
        self.ctx = ctx
        ctx.resolver = self
        self._indent = "    "  # the module's, once visited
        self._visit: dict[str, list] = defaultdict(list)
        self._leave: dict[str, list] = defaultdict(list)
        self._impls = [cls(ctx) for cls, _ in _hook_table()]
        # The rule code each construct's problems are reported under (RuleImpl.reports).
        self._codes = {about: impl.code for impl in self._impls for about in impl.reports}
        for impl, (_, hooks) in zip(self._impls, _hook_table()):
            for kind, node_type, attr in hooks:
                (self._visit if kind == "visit" else self._leave)[node_type].append(getattr(impl, attr))

    # Rules have no per-attribute hooks (``visit_Call_func``); libcst's default looks them up by name
    # for every field of every node, a tenth of the traversal's time.
    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        pass

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        pass

    def on_visit(self, node: cst.CSTNode) -> bool:
        node_type = type(node)
        if node_type in TRIVIA:  # no rule looks at whitespace or punctuation (tests/test_scopes.py)
            return False
        if node_type is cst.Module:
            self._indent = node.default_indent.replace("\t", " " * 8)
            self.ctx.indent = node.default_indent if len(set(node.default_indent)) == 1 else "    "
            self._decide_conversions()
        if _is_statement(node_type):
            self.ctx.walk.statements.append(node)
        if node_type is cst.FunctionDef:
            self.ctx.walk.functions.append(node)
        elif node_type is cst.Import or node_type is cst.ImportFrom:
            self.ctx.walk.in_import = True
        todos = self.ctx.walk.pending_todos.pop(node, None)
        if todos and self.ctx.walk.statements:
            self.ctx.walk.statement_todos.setdefault(self.ctx.walk.statements[-1], []).extend(todos)
        for hook in self._visit.get(node_type.__name__, ()):
            hook(node)
        return True

    def _decide_conversions(self) -> None:
        """Decide, before any rewrite, which pipelines are converted: those that nothing blocks
        (``pipeline.problems``, each reported where it is), that a rule converts (:meth:`RuleImpl.converts`:
        enabled, not ``# noqa``-ed), and every use of whose values a rule claims (:meth:`_settle_uses`)."""
        used_elsewhere = self._kept_for_importers()
        self._take_importers_settings()
        self._keep_helpers_for_importers()
        for qual, pipeline in self.ctx.model.pipelines.items():
            if qual in used_elsewhere:
                pipeline.problems.append(used_elsewhere[qual])
            for impl in self._impls:
                pipeline.problems.extend(
                    Problem(impl.code, node, why, hint) for node, why, hint in impl.blockers(pipeline)
                )
            # A pipeline kept in pipeline mode on purpose says only why: "rewrite it by hand" TODOs
            # beside "keep it in pipeline mode" would contradict it. A base's classes left as they
            # are each say their own why, at the class.
            kept = [p for p in pipeline.problems if p.keeps or getattr(p, "family", False)]
            reported = len(self.ctx.diagnostics)
            for problem, more in self._once_per_cause(kept if any(p.keeps for p in kept) else pipeline.problems):
                what = "kept in pipeline mode" if problem.keeps else "not migrated"
                also = f" (the same at line{'s' if len(more) > 1 else ''} {', '.join(map(str, more))})" if more else ""
                self.ctx.report(
                    self._codes.get(problem.about, problem.about),
                    problem.node,
                    f"`{pipeline.display}` {what}: {problem.message}{also}",
                    # the TODO names no line (lines move when TODOs are added)
                    hint=f"{what}: {problem.message}"
                    + (f" (the same in {len(more)} more place{'s' if len(more) > 1 else ''})" if more else "")
                    + _advice(problem, pipeline),
                    fixed=False,
                    manual=True,  # a blocked pipeline has no fix, whatever the rule's fix safety
                )
            if pipeline.problems:
                self._said_why(pipeline, reported)
            pipeline.convert = not pipeline.problems and any(impl.converts(pipeline) for impl in self._impls)
        self._settle_uses()

    def _take_importers_settings(self) -> None:
        """The pipeline settings other modules of the run give a top-level pipeline function of
        this one (``Policy.imported_call_args``) become its parameters, as a call site here would."""
        given = self.ctx.policy.imported_call_args
        if not given:
            return
        modules = crossfile.module_names(self.ctx.path)
        for qual, pipeline in self.ctx.model.pipelines.items():
            if "." in qual or not hasattr(pipeline, "call_site_args"):
                continue
            for module in modules:
                pipeline.call_site_args.update(given.get(f"{module}.{qual}", ()))

    def _once_per_cause(self, problems: list[Problem]) -> list[tuple[Problem, list[int]]]:
        """``problems`` with each cause said once: the first place of a message said in several (one
        `if` and its `else` each calling the reader, one operator constant used seven times), with
        the lines of the others."""
        groups: dict[tuple[str, str], list[Problem]] = {}
        for problem in problems:
            groups.setdefault((problem.about, problem.message), []).append(problem)
        found = []
        for group in groups.values():
            group.sort(key=lambda p: self.ctx.line_of(p.node)[:2])
            lines = sorted({self.ctx.line_of(p.node)[0] for p in group[1:]} - {self.ctx.line_of(group[0].node)[0]})
            found.append((group[0], lines))
        return found

    def _kept_for_importers(self) -> dict[str, Problem]:
        """The top-level pipelines another module uses in a way this run does not follow: one of the
        run (importers.follow_imports), or one the run was not given (ndd_migrate.model.importers).
        Converting them would break that module: they stay, and say why (``Policy.kept_pipelines``)."""
        kept = self.ctx.policy.kept_pipelines
        if not kept:
            return {}
        found = {}
        modules = crossfile.module_names(self.ctx.path)
        for qual, pipeline in self.ctx.model.pipelines.items():
            where = next((kept[f"{m}.{qual}"] for m in modules if f"{m}.{qual}" in kept), None)
            if where is None or "." in qual:
                continue
            construct, where, hint = crossfile.kept_reason(where)
            if construct is not None:  # kept on purpose there (`DALIDataset`, `serialize()`): so here
                found[qual] = Problem(construct, pipeline.node, where, hint, keeps=True)
                continue
            if qual in self.ctx.model.crossfile.requested and pipeline.epochs_refused:
                where += f", and the epoch-aware shape that gives it is not open here: {pipeline.epochs_refused}"
            found[qual] = Problem(
                "NDD008",
                pipeline.node,
                where,
                hint
                or "migrate that module in the same run, or that use by hand (or make it take what the "
                "migrated pipeline gives), then run ndd-migrate again",
            )
        return found

    def _said_why(self, pipeline, reported: int) -> None:
        """When no finding since the first ``reported`` said why ``pipeline`` is kept, say it at
        the pipeline (:meth:`_report_silenced`); with every rule's findings recorded, say it under
        the condition that the selection silences those that did."""
        if len(self.ctx.diagnostics) == reported:
            self._report_silenced(pipeline)
        elif self.ctx.report_every:
            self._report_silenced(pipeline, tuple(sorted({d.code for d in self.ctx.diagnostics[reported:]})))

    def _report_silenced(self, pipeline, unless: tuple[str, ...] = ()) -> None:
        """``fn`` is kept, and every finding that says why was suppressed where it is (``x[0]  #
        noqa: NDD108``, or the rule not selected): say so once at the pipeline, under the code of
        the rule that would convert it, or the run would keep it without a word. Not when the
        pipeline's own line holds a finding that was suppressed (that silence was asked for).
        ``unless``: the codes of the findings that said why, when the selection is applied later
        (``Context.report_every``): then this is said only if none of them is selected."""
        converter = next((impl for impl in self._impls if impl.converts(pipeline)), None)
        line = self.ctx.line_of(pipeline.node)[0]
        elsewhere = [p for p in pipeline.problems if self.ctx.line_of(p.node)[0] != line]
        if converter is None or len(elsewhere) != len(pipeline.problems):
            return
        first = elsewhere[0]
        # The TODO quotes the code, not the line: lines move when TODOs are added, and a second run
        # would write the TODO again.
        self.ctx.report(
            converter.code,
            pipeline.node,
            f"`{pipeline.display}` not migrated: at line {self.ctx.line_of(first.node)[0]}, {first.message}",
            hint=f"not migrated: at `{snippet(first.node)}`, {first.message}" + _advice(first, pipeline),
            fixed=False,
            manual=True,
            unless=unless,
        )

    def _settle_uses(self) -> None:
        """Unconvert every pipeline one of whose uses no rule claims (the migration plan,
        :mod:`ndd_migrate.plan.uses`), until nothing changes: a claim may depend on whether another
        pipeline converts (a name bound from two pipelines converts with both or neither)."""
        found = self.ctx.model.plan
        unfollowed: dict[int, tuple] = {}
        shared = graph_helpers.shared_helpers(self, self.ctx.model)
        while True:
            # Decided against the conversions at the start of the pass, so that every blocking
            # use of a pipeline is listed, not only the first one met.
            failing = []
            for use in found.uses:
                members = use.members
                converting = [m for m in members if m.convert]
                if not converting:
                    continue
                answer = self._claim(use) if len(converting) == len(members) else uses.TOGETHER
                if answer is not True:
                    failing.append((use, converting, answer or ""))
            failing.extend(self._uses_in_other_graphs(found.uses))
            failing.extend(self._shared_helper_uses(shared))
            failing.extend(self._library_helper_uses(failing))
            if not failing:
                break
            for use, converting, answer in failing:
                local = [m for m in converting if not isinstance(m, ImportedPipeline)]
                if not local:  # converted by another module of the run: reported at the use
                    unfollowed.setdefault(id(use), (use, answer))
                for pipeline in local:
                    pipeline.convert = False
                    found.blocked.setdefault(pipeline, []).append((use, answer))
            if all(not [m for m in converting if not isinstance(m, ImportedPipeline)] for _, converting, _ in failing):
                break  # only uses of pipelines converted elsewhere: nothing here changes any more
        found.unfollowed = list(unfollowed.values())

    def _uses_in_other_graphs(self, found) -> list[tuple]:
        """A value of a pipeline that stays, used in the body of another pipeline function that
        converts (``return images`` where ``images`` is an output of a pipeline run at module level):
        converting that function would rewrite the use (its return becomes a ``yield`` of evaluated
        batches) while the value stays pipeline mode, and the next run would find the use changed.
        The function stays too, blocked at that use."""
        failing = []
        for use in found:
            if all(member.convert for member in use.members):
                continue
            owner = self._graph_owner(use.node)
            if owner is not None and owner.convert and owner not in use.members:
                kept = next(member for member in use.members if not member.convert)
                failing.append((use, [owner], f"`{kept.display}` stays in pipeline mode"))
        return failing

    def _graph_owner(self, node: cst.CSTNode):
        """The pipeline function (or legacy class) whose body holds ``node``, if any."""
        parents = self.ctx.model.parents
        current = parents.get(node)
        while current is not None:
            owner = self.ctx.model.by_node.get(current)
            if owner is not None:
                return owner
            current = parents.get(current)
        return None

    @staticmethod
    def _shared_helper_uses(shared) -> list[tuple]:
        """A helper run by the graphs of several pipelines stays pipeline-mode code while one of them
        does (Context.may_rewrite_dali_calls): each of the others is blocked at its call of it, the
        reason naming the pipeline that keeps it."""
        failing = []
        for name, reaching in shared:
            kept = sorted(owner.display for owner in reaching if not owner.convert)
            if not kept:
                continue
            for owner, call in reaching.items():
                if owner.convert:
                    use = uses.Use(None, owner, call, uses.SHARED_HELPER, name, holder=call)
                    failing.append((use, [owner], kept[0]))
        return failing

    def _keep_helpers_for_importers(self) -> None:
        """The library helpers of this module that another module runs in a graph that stays
        (``Policy.kept_helpers``): they stay pipeline-mode code here (Context.may_rewrite_dali_calls)."""
        kept = self.ctx.policy.kept_helpers
        if not kept:
            return
        modules = crossfile.module_names(self.ctx.path)
        for name, node in self.ctx.model.library_helpers.items():
            why = next((kept[f"{m}.{name}"] for m in modules if f"{m}.{name}" in kept), None)
            if why is not None:
                self.ctx.model.kept_helpers[node] = why

    def _library_helper_uses(self, blocked: list[tuple]) -> list[tuple]:
        """A pipeline whose graph runs a helper of this module that another module keeps, or an
        imported helper that stays pipeline-mode code (``Policy.imported_helpers``): blocked at the
        call (ndd_migrate.model.features.library_helpers), unless ``blocked`` already keeps it (the
        helper may be kept *because* this pipeline stays: said once, where the cause is)."""
        already = {id(owner) for _, converting, _ in blocked for owner in converting}
        return [found for found in self._helper_blockers() if id(found[1][0]) not in already]

    def _helper_blockers(self) -> list[tuple]:
        failing = []
        for name, reaching, why in graph_helpers.kept_library_helpers(self, self.ctx.model):
            for owner, call in reaching.items():
                if owner.convert:
                    failing.append((uses.Use(None, owner, call, uses.KEPT_HELPER, name, holder=call), [owner], why))
        imported = self.ctx.policy.imported_helpers
        if not imported:
            return failing
        for call, owners, quals in graph_helpers.imported_helper_calls(self, self.ctx.model):
            why = next(
                (crossfile.lookup(imported, qual) for qual in sorted(quals) if crossfile.lookup(imported, qual)), None
            )
            if why is None:
                continue
            name = snippet(call.func)
            for owner in owners:
                if owner.convert:
                    failing.append((uses.Use(None, owner, call, uses.KEPT_HELPER, name, holder=call), [owner], why))
        return failing

    def _claim(self, use: uses.Use) -> bool | str:
        """True when the use keeps its meaning or a rule rewrites it; else the reason a rule that
        knows the construct gave for leaving it (or "")."""
        if uses.neutral(use):
            return True
        reason = ""
        for impl in self._impls:
            answer = impl.claims(use)
            if answer is True:
                return True
            reason = reason or answer or ""
        shared = self.ctx.model.crossfile.shared
        if not reason and use.context == uses.ARGUMENT and use.detail in shared:
            reason = f"{shared[use.detail]} imports `{use.detail}` and may pass it pipelines of its own"
        return reason

    def _owned_todo(self, text: str) -> bool:
        """Would this run have written the TODO ``text`` (its rule selected for this file)?"""
        code = text[len(TODO_PREFIX) :].split(" ", 1)[0]
        return self.ctx.policy.is_enabled(code, self.ctx.path)

    def _todo_width(self) -> int | None:
        """The columns a TODO above the statement being left may take: the file's line length less
        the statement's indentation (each enclosing compound statement's own: a class indented by 8
        in a file indented by 4 takes 8)."""
        length = self.ctx.policy.line_length(self.ctx.path)
        if length is None:
            return None
        indent = 0
        for node in self.ctx.walk.statements:
            if isinstance(node, cst.BaseCompoundStatement):
                body = getattr(node, "body", None)
                own = body.indent if isinstance(body, cst.IndentedBlock) else None
                indent += len(own if own is not None else self._indent)
        return length - indent

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):
        result = updated
        node_type = type(original)
        if node_type in TRIVIA:
            return result
        for hook in self._leave.get(node_type.__name__, ()):
            given = result
            result = hook(original, result)
            if result is not given:
                self.ctx.walk.rewritten = True
                if isinstance(result, cst.RemovalSentinel):
                    self.ctx.walk.removed.add(original)
            if type(result) is not node_type:
                break  # a rule turned the node into something else: other rules' hooks no longer apply
        if node_type is cst.FunctionDef:
            self.ctx.walk.functions.pop()
        elif node_type is cst.Import or node_type is cst.ImportFrom:
            self.ctx.walk.in_import = False
        if _is_statement(node_type):
            self.ctx.walk.statements.pop()
            todos = self.ctx.walk.statement_todos.pop(original, None)
            if (
                self.ctx.todos
                and isinstance(result, _STATEMENTS)
                and has_todos(result)
                and _rewritten(original, result)
            ):
                result = without_stale_todos(result, todos or [], self._owned_todo)
            if todos and isinstance(result, _STATEMENTS):
                result = add_todo_comments(result, one_per_code(todos), self._todo_width())
        return result


def _rewritten(original: cst.CSTNode, result: cst.CSTNode) -> bool:
    """Did this run change the statement's code (its comments above aside)? Only there can a TODO of
    an earlier run be stale: a statement left as it is keeps the TODOs a human still has to read,
    and earlier runs' marks that the plan reads (ndd_migrate.plan)."""
    if not original.leading_lines and not result.leading_lines:
        return not original.deep_equals(result)
    return not original.with_changes(leading_lines=()).deep_equals(result.with_changes(leading_lines=()))


def _advice(problem: Problem, pipeline) -> str:
    """What to do about a blocking problem: its own hint; else rewriting the pipeline by hand,
    unless the message already says what to do by hand ("write the loop that draws from it by
    hand"): a second "by hand" would only repeat it."""
    if problem.hint:
        return f"; {problem.hint}"
    if "by hand" in problem.message:
        return ""
    return f"; rewrite `{pipeline.display}` by hand (see docs/target-shape.md)"
