"""One file through the rules, and many files in parallel.

For one source text: parse once, analyse once (:mod:`ndd_migrate.analysis`), run every rule's hooks
in a single traversal, re-parse the result. Any failure — a syntax error, a rule that throws, output
that does not parse — turns into a :class:`FileError` and the text is left as it was: the caller writes
only what this module returns as ``new_source``.

Reading the files and skipping those without DALI happen before this module (and libcst) is
imported, in :mod:`ndd_migrate.runner`, which hands over the bytes it read. ``check`` parses only
the module's DALI region (:mod:`ndd_migrate.region`), and names are resolved by
:mod:`ndd_migrate.scopes`: both keep a DALI file's cost to its DALI code.
"""

from __future__ import annotations

import ast
import functools
import gc
import multiprocessing
import os
import sys
import traceback
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, QualifiedNameProvider, ScopeProvider

from ndd_migrate import crossfile, cstparse, files, graph_code, hand_built, noqa, plan, pyparse, region, scopes, subclasses
from ndd_migrate.analysis import Analyzer, ImportedPipeline, Problem
from ndd_migrate.catalog import _rule_modules
from ndd_migrate.codegen import long_lines
from ndd_migrate.context import TODO_PREFIX, Context
from ndd_migrate.cstutil import TRIVIA
from ndd_migrate.diagnostics import FileError, FileResult
from ndd_migrate.policy import Policy
from ndd_migrate import pyparse

_STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)


def rule_impls() -> list[type]:
    """Implementation classes of all rules, in rule-code order (the order hooks run in)."""
    return [mod.Impl for mod in _rule_modules() if hasattr(mod, "Impl")]


@functools.cache
def _hook_table() -> tuple[tuple[type, tuple[tuple[str, str, str], ...]], ...]:
    """Each rule class with its hooks as ``(kind, node type name, method name)``, found once per
    process rather than by ``dir()`` on every class for every file."""
    table = []
    for cls in rule_impls():
        hooks = tuple(
            (attr[:5], attr[6:], attr) for attr in dir(cls) if attr.startswith(("visit_", "leave_"))
        )
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
            self.ctx.statement_stack.append(node)
        if node_type is cst.FunctionDef:
            self.ctx.function_stack.append(node)
        elif node_type is cst.Import or node_type is cst.ImportFrom:
            self.ctx.in_import = True
        todos = self.ctx.pending_todos.pop(node, None)
        if todos and self.ctx.statement_stack:
            self.ctx.statement_todos.setdefault(self.ctx.statement_stack[-1], []).extend(todos)
        for hook in self._visit.get(node_type.__name__, ()):
            hook(node)
        return True

    def _decide_conversions(self) -> None:
        """Decide, before any rewrite, which pipelines are converted: those that nothing blocks
        (``fn.problems``, each reported where it is), that a rule converts (:meth:`RuleImpl.converts`:
        enabled, not ``# noqa``-ed), and every use of whose values a rule claims (:meth:`_settle_uses`)."""
        for fn in self.ctx.model.pipelines.values():
            for impl in self._impls:
                fn.problems.extend(Problem(impl.code, node, why, hint) for node, why, hint in impl.blockers(fn))
            # A pipeline kept in pipeline mode on purpose says only why: "rewrite it by hand" TODOs
            # beside "keep it in pipeline mode" would contradict it. A base's classes left as they
            # are each say their own why, at the class.
            kept = [p for p in fn.problems if p.keeps or getattr(p, "family", False)]
            reported = len(self.ctx.diagnostics)
            for problem in kept if any(p.keeps for p in kept) else fn.problems:
                what = "kept in pipeline mode" if problem.keeps else "not migrated"
                self.ctx.report(
                    self._codes.get(problem.about, problem.about),
                    problem.node,
                    f"`{fn.display}` {what}: {problem.message}",
                    hint=f"{what}: {problem.message}" + _advice(problem, fn),
                    fixed=False,
                    manual=True,  # a blocked pipeline has no fix, whatever the rule's fix safety
                )
            if fn.problems and len(self.ctx.diagnostics) == reported:
                self._report_silenced(fn)
            fn.convert = not fn.problems and any(impl.converts(fn) for impl in self._impls)
        self._settle_uses()

    def _report_silenced(self, fn) -> None:
        """``fn`` is kept, and every finding that says why was suppressed where it is (``x[0]  #
        noqa: NDD108``, or the rule not selected): say so once at the pipeline, under the code of
        the rule that would convert it, or the run would keep it without a word. Not when the
        pipeline's own line holds a finding that was suppressed (that silence was asked for)."""
        converter = next((impl for impl in self._impls if impl.converts(fn)), None)
        line = self.ctx.line_of(fn.node)[0]
        elsewhere = [p for p in fn.problems if self.ctx.line_of(p.node)[0] != line]
        if converter is None or len(elsewhere) != len(fn.problems):
            return
        first = elsewhere[0]
        why = f"at line {self.ctx.line_of(first.node)[0]}, {first.message}"
        self.ctx.report(
            converter.code,
            fn.node,
            f"`{fn.display}` not migrated: {why}",
            hint=f"not migrated: {why}" + _advice(first, fn),
            fixed=False,
            manual=True,
        )

    def _settle_uses(self) -> None:
        """Unconvert every pipeline one of whose uses no rule claims (the migration plan,
        :mod:`ndd_migrate.plan`), until nothing changes: a claim may depend on whether another
        pipeline converts (a name bound from two pipelines converts with both or neither)."""
        found = self.ctx.model.plan
        unfollowed: dict[int, tuple] = {}
        shared = graph_code.shared_helpers(self, self.ctx.model)
        while True:
            # Decided against the conversions at the start of the pass, so that every blocking
            # use of a pipeline is listed, not only the first one met.
            failing = []
            for use in found.uses:
                members = use.members
                converting = [m for m in members if m.convert]
                if not converting:
                    continue
                answer = self._claim(use) if len(converting) == len(members) else plan.TOGETHER
                if answer is not True:
                    failing.append((use, converting, answer or ""))
            failing.extend(self._shared_helper_uses(shared))
            if not failing:
                break
            for use, converting, answer in failing:
                local = [m for m in converting if not isinstance(m, ImportedPipeline)]
                if not local:  # converted by another module of the run: reported at the use
                    unfollowed.setdefault(id(use), (use, answer))
                for fn in local:
                    fn.convert = False
                    found.blocked.setdefault(fn, []).append((use, answer))
            if all(not [m for m in converting if not isinstance(m, ImportedPipeline)] for _, converting, _ in failing):
                break  # only uses of pipelines converted elsewhere: nothing here changes any more
        found.unfollowed = list(unfollowed.values())

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
                    use = plan.Use(None, owner, call, plan.SHARED_HELPER, name, holder=call)
                    failing.append((use, [owner], kept[0]))
        return failing

    def _claim(self, use: plan.Use) -> bool | str:
        """True when the use keeps its meaning or a rule rewrites it; else the reason a rule that
        knows the construct gave for leaving it (or "")."""
        if plan.neutral(use):
            return True
        reason = ""
        for impl in self._impls:
            answer = impl.claims(use)
            if answer is True:
                return True
            reason = reason or answer or ""
        return reason

    def _todo_width(self) -> int | None:
        """The columns a TODO above the statement being left may take: the file's line length less
        the statement's indentation (one level per enclosing compound statement)."""
        length = self.ctx.policy.line_length(self.ctx.path)
        if length is None:
            return None
        depth = sum(1 for node in self.ctx.statement_stack if isinstance(node, cst.BaseCompoundStatement))
        return length - depth * len(self._indent)

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):
        result = updated
        node_type = type(original)
        if node_type in TRIVIA:
            return result
        for hook in self._leave.get(node_type.__name__, ()):
            given = result
            result = hook(original, result)
            if result is not given:
                self.ctx.rewritten = True
                if isinstance(result, cst.RemovalSentinel):
                    self.ctx.removed.add(original)
            if type(result) is not node_type:
                break  # a rule turned the node into something else: other rules' hooks no longer apply
        if node_type is cst.FunctionDef:
            self.ctx.function_stack.pop()
        elif node_type is cst.Import or node_type is cst.ImportFrom:
            self.ctx.in_import = False
        if _is_statement(node_type):
            self.ctx.statement_stack.pop()
            todos = self.ctx.statement_todos.pop(original, None)
            if todos and isinstance(result, _STATEMENTS):
                result = add_todo_comments(result, todos, self._todo_width())
        return result


#: The start of a TODO comment's continuation lines, when it is wrapped at the line length.
TODO_CONTINUATION = "#   "


def _advice(problem: Problem, fn) -> str:
    """What to do about a blocking problem: its own hint; else rewriting the pipeline by hand,
    unless the message already says what to do by hand ("write the loop that draws from it by
    hand"): a second "by hand" would only repeat it."""
    if problem.hint:
        return f"; {problem.hint}"
    if "by hand" in problem.message:
        return ""
    return f"; rewrite `{fn.display}` by hand (see docs/target-shape.md)"


def add_todo_comments(stmt: cst.CSTNode, todos: list[str], width: int | None = None) -> cst.CSTNode:
    """Put ``# TODO(ndd-migrate): ...`` lines above a statement, never the same one twice (also
    when the one there was wrapped). ``width``: the columns the comment may take (the line
    length less the statement's indentation); a longer TODO is wrapped at spaces, continued on
    lines starting :data:`TODO_CONTINUATION` (a word longer than that stays whole)."""
    present = set(_todos(stmt.leading_lines))
    new = [
        cst.EmptyLine(comment=cst.Comment(line))
        for text in dict.fromkeys(todos)
        if text not in present
        for line in _wrapped(text, width)
    ]
    if not new:
        return stmt
    return stmt.with_changes(leading_lines=[*stmt.leading_lines, *new])


def _wrapped(text: str, width: int | None) -> list[str]:
    if width is None or len(text) <= width:
        return [text]
    import textwrap

    return textwrap.wrap(
        text, width=max(width, len(TODO_PREFIX) + 12), subsequent_indent=TODO_CONTINUATION,
        break_long_words=False, break_on_hyphens=False,
    )


def _todos(lines) -> list[str]:
    """The TODO comments among a statement's leading lines, each as one line of text (a wrapped
    one joined again)."""
    found: list[str] = []
    inside = False
    for line in lines:
        comment = line.comment.value if line.comment else None
        if comment is not None and comment.startswith(TODO_PREFIX):
            found.append(comment)
            inside = True
        elif inside and comment is not None and comment.startswith(TODO_CONTINUATION) and comment.strip("# "):
            found[-1] += " " + comment[len(TODO_CONTINUATION):]
        else:
            inside = False
    return found


def transform(source: str, path: str, policy: Policy, *, narrow: bool = True) -> FileResult:
    """Run the rules over one source text. Never raises for bad input: errors come back in the result.
    (The work runs on a deep stack: :func:`_on_deep_stack`.)

    ``migrate`` rewrites with every selected rule and leaves TODOs. ``check`` always reports what
    the full migration would report (conversion rules depend on each other, so reporting runs them
    all, selected or not, and only the report is filtered); with ``--fix`` the fixes of the selected
    rules are applied (only the safe ones without ``--unsafe-fixes``) until nothing changes, as
    ruff does (:func:`_fix_to_fixed_point`). The reporting pass never keeps its rewrite, so it is
    not even generated (nor re-parsed to validate it).

    A finding is marked fixable only with the fix this run's options would really apply
    (:func:`_fixability`): ``device="mixed"`` inside a pipeline function is fixed only together
    with the function's (unsafe) conversion, so there it is an unsafe fix, not a safe one.

    ``check`` first looks only at the module's DALI region (:mod:`ndd_migrate.region`; ``narrow``
    False turns that off, for tests that compare): the findings are the same, for a fraction of
    the cost. Only a ``--fix`` with something to fix goes on to the whole module.
    """
    return _on_deep_stack(_transform, source, path, policy, narrow)


def _transform(source: str, path: str, policy: Policy, narrow: bool) -> FileResult:
    try:
        tree = pyparse.parse(source, notebook=path.endswith(".ipynb"))
    except pyparse.Refused as refused:  # CPython would not run it: its error, and libcst never sees it
        return FileResult(path=path, old_source=source, error=FileError(path, refused.message, refused.line))
    module_names = region.module_level_names(tree)
    if policy.mode == "migrate":
        return _run(source, path, policy, "all", module_names, todos=True, tree=tree)
    part = region.dali_region(source, tree) if narrow and not policy.imported_pipelines else None
    if part is not None:
        found = _run(
            part.text, path, policy, "report", module_names, todos=False, rewrite=False, lines=part, module_source=source
        )
        if not found.error and not (policy.fix and found.diagnostics):
            found.old_source = source
            found.diagnostics = _fixability(
                found.diagnostics, path, policy,
                lambda level: _run(part.text, path, policy, level, module_names, todos=False, rewrite=False,
                                   lines=part, module_source=source),
            )
            return found
    if not policy.fix:
        return _report(source, path, policy, module_names, tree)
    return _fix_to_fixed_point(source, path, policy, module_names)


#: ``check --fix`` applies the fixes again to the fixed text until nothing changes (a fix can make
#: another finding visible or fixable); this many passes at most, as a guard against two rules
#: undoing each other's work (ruff allows 100; our fixes settle in two or three).
MAX_FIX_PASSES = 10


def _report(source: str, path: str, policy: Policy, module_names: set[str], tree: ast.Module | None = None) -> FileResult:
    """The findings of ``check`` in ``source`` (the whole module, whose stdlib tree ``tree`` is
    when the caller has it), each marked with the fix this run's options would apply."""
    full = _run(source, path, policy, "report", module_names, todos=False, rewrite=False, tree=tree)
    if not full.error:
        full.diagnostics = _fixability(
            full.diagnostics, path, policy,
            lambda level: _run(source, path, policy, level, module_names, todos=False, rewrite=False, tree=tree),
        )
    return full


def _fix_to_fixed_point(source: str, path: str, policy: Policy, module_names: set[str]) -> FileResult:
    """``check --fix``: apply the selected rules' fixes (only the safe ones without
    ``--unsafe-fixes``) to the text, then to the fixed text, until a pass changes nothing, so that
    a second ``check`` finds nothing the first could have fixed or reported. The result lists the
    findings each pass fixed (at their place in the text that pass saw) and the findings left in
    the final text, at their place there (the file as written)."""
    level = "all" if policy.unsafe_fixes else "safe"
    current, fixed = source, []
    for _ in range(MAX_FIX_PASSES):
        fixing = _run(current, path, policy, level, module_names, todos=False)
        if fixing.error:
            fixing.old_source, fixing.changed, fixing.new_source = source, False, None
            return fixing
        if not fixing.changed:
            break
        fixed += [d for d in fixing.diagnostics if d.fixed]
        current = fixing.new_source
    result = _report(current, path, policy, module_names)
    if result.error:
        return result
    result.diagnostics = fixed + result.diagnostics
    result.old_source = source
    result.changed = current != source
    result.new_source = current if result.changed else None
    return result


def _fixability(diagnostics: list, path: str, policy: Policy, rerun) -> list:
    """The reporting pass's findings, unfixed, each with the fix ``check --fix`` would really
    apply: ``safe`` when the safe pass fixes it, ``unsafe`` when only the pass with every selected
    rule does, else ``manual``. ``rerun(level)`` runs the rules at that fix level
    (:class:`~ndd_migrate.context.Context`) without keeping the rewrite. The reporting pass
    applies every rule, so with every rule selected it is already the "all" pass; the other
    passes run only when a finding could be marked by them."""
    from ndd_migrate.catalog import rule_codes
    from ndd_migrate.diagnostics import FixSafety

    key = lambda d: (d.code, d.line, d.column, d.message)  # noqa: E731
    reported = {key(d) for d in diagnostics if d.fixed}
    safe: set = set()
    if any(d.fix is FixSafety.SAFE and key(d) in reported for d in diagnostics):
        safe = {key(d) for d in rerun("safe").diagnostics if d.fixed}
    every = reported
    if any(d.fix is not FixSafety.MANUAL for d in diagnostics) and not all(
        policy.is_enabled(code, path) for code in rule_codes()
    ):
        every = {key(d) for d in rerun("all").diagnostics if d.fixed}
    out = []
    for d in diagnostics:
        if d.fix is FixSafety.SAFE and key(d) in safe:
            fix = FixSafety.SAFE
        elif d.fix is not FixSafety.MANUAL and key(d) in every:
            fix = FixSafety.UNSAFE
        else:
            fix = FixSafety.MANUAL
        out.append(replace(d, fix=fix, fixed=False))
    return out


def _run(*args, **kwargs) -> FileResult:
    """One pass of the rules (:func:`_pass`), and the cyclic garbage it leaves collected at once.

    A pass leaves its trees behind in reference cycles (libcst's scope objects point at the nodes
    and at each other), and the collector is off while a file is processed
    (:func:`_without_cycle_collection`): without this, the second pass of ``check`` (the fix
    levels, :func:`_fixability`) ran beside all of the first pass's trees, and peak memory was the
    two passes' together (1.09 GB for a 2 MB module, 0.68 GB with this). Collecting the youngest
    generation walks only what the file allocated since the last collection, which the collection
    after the file would otherwise walk: the work moves, it does not grow.
    """
    result = _pass(*args, **kwargs)
    if not gc.isenabled():
        gc.collect(0)
    return result


def _pass(
    source: str,
    path: str,
    policy: Policy,
    fix_level: str,
    module_names: set[str],
    *,
    todos: bool,
    rewrite: bool = True,
    lines: region.Region | None = None,
    module_source: str | None = None,
    refused: dict | None = None,
    tree: ast.Module | None = None,
) -> FileResult:
    """One pass of the rules over ``source``: the whole module, or its region (then ``lines`` maps
    the region's lines back to the module's, whose ``# noqa`` comments are in ``module_source``).
    ``tree``, when given, is CPython's tree of ``source``: it tells :mod:`ndd_migrate.cstparse`
    where a large module's top-level statements are.

    A ``Pipeline`` base class with subclasses is flattened first (:mod:`ndd_migrate.subclasses`); when
    a class of such a family does not convert, the pass runs again with that class left as it is
    (``refused``: base class name → why and which classes, reported at the base)."""
    result = FileResult(path=path, old_source=source)
    try:
        module = cstparse.parse_module(source, tree)
    except cst.ParserSyntaxError as exc:
        result.error = _syntax_error(source, path, exc)
        return result
    try:
        flat = subclasses.flatten(module, refused)  # each subclass of a base as a `Pipeline` subclass of its own
        module = flat.module
        module, built = hand_built.desugar(module, None if flat.families else source)  # `with pipe:` graphs as @pipeline_def functions
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        scopes.resolve(wrapper)
        analyzer = Analyzer(
            policy.imported_pipelines, set(module_names), policy.outside_pipelines, policy.migrated_on_disk
        )
        analyzer.model.refused_families = flat.refused
        wrapper.visit(analyzer)
        ctx = Context(
            path=path,
            model=analyzer.model,
            policy=policy,
            resolver=None,
            suppressed=_suppression(module_source or source),
            fix_level=fix_level,
            todos=todos,
            rewrite=rewrite,
            positions=scopes.positions_on_demand(wrapper),
        )
        if lines is not None:
            ctx.original_line = lines.original_line
        if flat.families:
            ctx.original_line = _composed(ctx.original_line, flat.original_line)
        if built.graphs:
            analyzer.model.hand_built = built
            for fn in analyzer.model.pipelines.values():
                graph = next((g for g in built.graphs if g.definition is fn.node), None)
                if graph is not None:
                    fn.label = f"{graph.var} = Pipeline(...)"
            analyzer.model.read_names |= built.removed_reads
            built.call_lines = [ctx.positions(graph.call).start.line for graph in built.graphs]
            built.def_lines = [ctx.positions(graph.definition).start.line for graph in built.graphs]
            ctx.original_line = _composed(ctx.original_line, built.original_line)
        analyzer.model.hand_built_refused = built.refused
        new_module = wrapper.visit(Dispatcher(ctx))
        if built.graphs:
            converted = {fn.node.name.value for fn in analyzer.model.pipelines.values() if fn.convert and fn.label}
            new_module = hand_built.resugar(new_module, built, converted)
        failed = subclasses.failures(flat, analyzer.model.pipelines, ctx.diagnostics)
        if failed:  # again, with the classes that did not convert left as they were (one finding at the base)
            return _run(
                source, path, policy, fix_level, module_names, todos=todos, rewrite=rewrite, lines=lines,
                module_source=module_source, refused={**flat.refused, **failed}, tree=tree,
            )
    except (RecursionError, MemoryError):  # nesting deeper than even the deep stack allows
        result.error = FileError(path, TOO_DEEP, pyparse.deepest_line(source))
        return result
    except Exception as exc:  # a rule crashed: report it, lose nothing
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        result.error = FileError(
            path,
            f"internal error ({type(exc).__name__}: {pyparse.one_line(str(exc))}) at "
            f"{Path(frame.filename).name}:{frame.lineno}; file left unchanged, please report it",
        )
        return result
    result.diagnostics = sorted(ctx.diagnostics, key=lambda d: (d.line, d.column, d.code))
    result.pipelines = crossfile.exports(ctx.model)
    if not rewrite:
        return result
    new_source = new_module.code
    length = policy.line_length(path)
    if new_source != source and length is not None:
        new_source = long_lines.split_long_lines(new_module, new_source, source, length)
    if new_source != source:
        try:  # CPython first: its message says why (libcst's says where it gave up)
            new_tree = pyparse.ast_parse(new_source, path)
            pyparse.compile_tree(new_tree, path, "exec", dont_inherit=True)
            cstparse.parse_module(new_source, new_tree)
        except (cst.ParserSyntaxError, SyntaxError, RecursionError, MemoryError) as exc:
            why = exc.msg if isinstance(exc, SyntaxError) else str(exc) or type(exc).__name__
            result.error = FileError(path, f"the rewrite did not parse, file left unchanged: {pyparse.one_line(why)}")
            return result
        result.changed = True
        result.new_source = new_source
    return result


#: The message for code nested deeper than the engine can follow, even on its deep stack.
TOO_DEEP = "nested too deeply for ndd-migrate: file left unchanged"

#: The stack and recursion limit the engine runs with. libcst's parser is native but its visitors
#: and ours are Python, several frames per level of nesting: a 400-term sum (each ``+`` one level)
#: or a list nested 150 deep exceeds Python's default limit of 1000 frames. A thread's stack is
#: only reserved, not committed, so a large one costs nothing until it is used.
DEEP_STACK_BYTES = 512 * 1024 * 1024
DEEP_RECURSION_LIMIT = 200_000


def _on_deep_stack(function, *args):
    """``function(*args)`` in a thread with :data:`DEEP_STACK_BYTES` of stack, under a recursion
    limit of :data:`DEEP_RECURSION_LIMIT` (restored after): deep but valid code is migrated, not
    refused. Where the platform refuses such a stack, in this thread as it is."""
    import threading

    outcome: list = []

    def target() -> None:
        try:
            outcome.append((True, function(*args)))
        except BaseException as exc:  # handed to the caller's thread, raised there
            outcome.append((False, exc))

    limit = sys.getrecursionlimit()
    try:
        previous = threading.stack_size(DEEP_STACK_BYTES)
    except (ValueError, RuntimeError):
        return function(*args)
    try:
        sys.setrecursionlimit(max(limit, DEEP_RECURSION_LIMIT))
        worker = threading.Thread(target=target, name="ndd-engine")
        worker.start()
        worker.join()
    finally:
        threading.stack_size(previous)
        sys.setrecursionlimit(limit)
    ok, value = outcome[0]
    if not ok:
        raise value
    return value


def _composed(outer, inner):
    return lambda line: outer(inner(line))


def _syntax_error(source: str, path: str, exc: cst.ParserSyntaxError) -> FileError:
    """Python's own message and line where it has one (libcst's point at where parsing gave up)."""
    try:
        compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as py:
        return FileError(path, f"cannot parse: {py.msg}", py.lineno)
    except ValueError:
        pass
    first = exc.message.splitlines()[0] if exc.message else "syntax error"
    # Python accepts it: the fault is libcst's, say so rather than blame the code.
    return FileError(path, f"cannot parse: libcst cannot read this valid Python ({first})", exc.raw_line)


def _suppression(source: str):
    """``(code, line) -> bool``: is ``code`` silenced by a ``# noqa`` on ``line``?"""
    table = noqa.noqa_lines(source)

    def suppressed(code: str, line: int) -> bool:
        entry = table.get(line)
        return entry is not None and (entry is noqa.ALL or code in entry)

    return suppressed


def _without_cycle_collection(work):
    """Run ``work`` with the cyclic garbage collector off, and back on after.

    A large file's trees and model are millions of live objects, and every full collection walks
    all of them: a third of the time of a 400 KB file went to collections that found next to
    nothing (a few dozen objects per file; the trees hold no cycles and are freed by reference
    counting). What a file does leave in cycles is collected after it, as before.
    """

    @functools.wraps(work)
    def run(*args, **kwargs):
        if not gc.isenabled():
            return work(*args, **kwargs)
        gc.disable()
        try:
            return work(*args, **kwargs)
        finally:
            gc.enable()

    return run


@_without_cycle_collection
def process_source(path: str, raw: bytes, policy: Policy) -> FileResult:
    """Run the rules over one file's bytes (a ``.py`` file or a notebook) as read from ``path``;
    never raises."""
    try:
        source = files.decode_source(raw, path)
    except files.SourceError as exc:
        return FileResult(path=path, error=exc.to_file_error())
    if path.endswith(".ipynb"):
        return _process_notebook(path, source.text, policy)
    # The rules see LF only; each line's own break is put back after (files.restore_newlines):
    # libcst takes the first line's break for the lines it adds, and drops a CR-only file's last.
    text, newlines = files.split_newlines(source.text)
    # Likewise indentation libcst cannot read (files.split_indentation): spaces for the rules.
    indented = files.split_indentation(text)
    result = transform(indented[0] if indented else text, path, policy)
    if indented is not None:
        _restore_indentation(result, path, text, *indented)
    if text is not source.text:
        result.old_source = source.text
        if result.new_source is not None:
            result.new_source = files.restore_newlines(text, result.new_source, newlines)
            if result.new_source == source.text:
                result.changed, result.new_source = False, None
    return result


def _restore_indentation(result: FileResult, path: str, text: str, spaced: str, indentation) -> None:
    """Give ``result``'s rewrite of ``spaced`` the file's own indentation back, as ``text`` has it;
    a rewrite that cannot keep it (it would not compile) is an error, the file left unchanged."""
    result.old_source = text
    if result.new_source is None:
        return
    restored = files.restore_indentation(spaced, result.new_source, indentation)
    try:
        ok = restored is not None and compile(restored, path, "exec", dont_inherit=True) is not None
    except (SyntaxError, ValueError):
        ok = False
    if not ok:
        result.changed, result.new_source = False, None
        result.error = FileError(
            path,
            "the rewrite cannot keep this file's indentation (tabs mixed with spaces, or form"
            " feeds, from this line on): file left unchanged; indent it with spaces to migrate it",
            indentation.culprit,
        )
    elif restored == text:
        result.changed, result.new_source = False, None
    else:
        result.new_source = restored


def _process_notebook(path: str, text: str, policy: Policy) -> FileResult:
    from ndd_migrate import notebooks

    try:
        module, layout = notebooks.notebook_to_module(text)
    except notebooks.NotebookError as exc:
        return FileResult(path=path, error=FileError(path, exc.message, exc.line))
    result = transform(module, path, policy)
    result.old_source = text
    result.diagnostics = sorted(
        (_cell_diagnostic(d, layout) for d in result.diagnostics), key=lambda d: (d.cell, d.line, d.column, d.code)
    )
    if result.error and result.error.line:
        cell, line = notebooks.cell_position(layout, result.error.line)
        result.error = FileError(path, f"cell {cell}: {result.error.message}", line)
    if result.changed:
        try:
            result.new_source = notebooks.module_to_notebook(result.new_source, layout)
        except notebooks.NotebookError as exc:
            result.changed, result.new_source = False, None
            result.error = FileError(path, f"could not rebuild the notebook, left unchanged: {exc}")
    return result


def _cell_diagnostic(diag, layout):
    from ndd_migrate import notebooks

    cell, line = notebooks.cell_position(layout, diag.line)
    end_line = None
    if diag.end_line and diag.end_line <= layout.line_count:
        end_cell, end_line = notebooks.cell_position(layout, diag.end_line)
        end_line = end_line if end_cell == cell else None  # a span over cells: to the line's end
    return replace(diag, cell=cell, line=line, end_line=end_line)


#: Files per worker below which a worker process does not pay for itself. Measured on 2 busy cores:
#: a pool of two forked workers (libcst and the rules already imported) starts, takes four tasks and
#: stops in about 0.15 s, while one DALI file costs 0.15-1 s of CPU; a spawned worker (no ``fork``:
#: macOS, Windows) first starts an interpreter and imports the engine again, about 0.5 s.
MIN_FILES_PER_FORKED_WORKER = 2
MIN_FILES_PER_SPAWNED_WORKER = 8


def process_sources(
    sources: list[tuple[str, bytes]], policy: Policy, jobs: int | None = None, progress=None
) -> list[FileResult]:
    """Run the rules over many files already read, ``(path, bytes)``; results in the same order.

    Worker processes are used only when there are enough files for them to pay off. They are
    forked where the platform allows it (Linux), explicitly, since Python 3.14 no longer forks by
    default: a forked worker shares the already imported libcst and rules instead of importing
    them again. ``progress(1)``, when given, is called as each file is done.
    """
    tick = progress or (lambda k: None)
    rule_impls()  # import every rule now, before forking, so each worker inherits them
    context = _fork_context()
    workers = worker_count(len(sources), jobs, forked=context is not None)
    if workers <= 1:
        out = []
        for path, raw in sources:
            out.append(process_source(path, raw, policy))
            tick(1)
        return out
    # Largest files first: a file costs roughly in proportion to its size, and the run ends when
    # the busiest worker does (in the given order one worker could be left with a long tail alone).
    order = sorted(range(len(sources)), key=lambda i: -len(sources[i][1]))
    results: list[FileResult | None] = [None] * len(sources)
    isolated = False
    while order:
        _pool_pass(sources, order, results, policy, min(workers, len(order)), context, isolated, tick)
        order = [i for i in order if results[i] is None]
        if order and isolated:  # cannot happen (an isolated crash is a result); never loop on it
            for i in order:
                results[i] = _crashed(sources[i][0], "the worker process died")
            break
        isolated = True
    return results  # type: ignore[return-value]


def _pool_pass(sources, order, results, policy, workers, context, isolated, tick) -> None:
    """Fill ``results`` at ``order`` from a pool of ``workers``. A worker that dies (libcst's
    native parser can overflow its stack) breaks the pool, and the files not done are left None:
    the caller runs them again, ``isolated``, each in a process of its own inside the workers, so
    that only the file that kills its process fails (:func:`_isolated`)."""
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_set_worker_policy,
        initargs=(policy, os.getpid(), isolated),
    ) as pool:
        futures = {pool.submit(_process_in_worker, *sources[i]): i for i in order}
        try:
            for future in as_completed(futures):
                results[futures[future]] = future.result()
                tick(1)
        except BrokenProcessPool:
            pass


def _crashed(path: str, how: str) -> FileResult:
    return FileResult(path=path, error=FileError(path, f"{how} on this file; file left unchanged, please report it"))


#: The policy of the run, set once in each worker process: it holds the project's configuration,
#: which costs milliseconds to unpickle, too much to send along with every file.
_worker_policy: Policy | None = None


#: Whether this worker runs each file in a process of its own (after a worker died).
_worker_isolates = False


def _set_worker_policy(policy: Policy, parent: int | None = None, isolated: bool = False) -> None:
    global _worker_policy, _worker_isolates
    _worker_policy = policy
    _worker_isolates = isolated
    if parent is not None:
        _die_with_parent(parent)


#: Linux's ``prctl`` option: the signal a process gets when the thread that forked it ends.
_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    """Make this worker exit when the main process ``parent`` dies, even by SIGKILL (which no
    handler sees): else the pool's workers would go on running, orphaned. On Linux the kernel
    does it (``prctl(PR_SET_PDEATHSIG, SIGKILL)``; the pool forks from the main thread, which
    lives as long as the process); elsewhere, or where ``prctl`` fails, a daemon thread polls
    ``os.getppid()`` once a second."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0:
                if os.getppid() != parent:  # it died before prctl took effect
                    os._exit(1)
                return
        except (OSError, AttributeError):
            pass
    import threading

    threading.Thread(target=_watch_parent, args=(parent,), name="ndd-parent-watch", daemon=True).start()


def _watch_parent(parent: int, interval: float = 1.0) -> None:
    import time

    while True:
        if os.getppid() != parent:
            os._exit(1)
        time.sleep(interval)


def _process_in_worker(path: str, raw: bytes) -> FileResult:
    if _worker_isolates:
        return _isolated(path, raw)
    return process_source(path, raw, _worker_policy)


def _isolated(path: str, raw: bytes) -> FileResult:
    """``process_source`` in a forked child, whose result comes back through a pipe: a crash of
    the child (a signal, no result) is this file's error, and the worker goes on. Where there is
    no ``fork``, the worker's own process: the pool then breaks again at the same file, which
    :func:`process_sources` reports as that file's error."""
    import pickle

    if not hasattr(os, "fork"):
        return process_source(path, raw, _worker_policy)
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the child: never returns into the worker's code
        status = 1
        try:
            os.close(read)
            with os.fdopen(write, "wb") as out:
                out.write(pickle.dumps(process_source(path, raw, _worker_policy)))
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(child, 0)
    if status == 0 and data:
        return pickle.loads(data)
    how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit status {os.WEXITSTATUS(status)}"
    return _crashed(path, f"the parser's process died ({how})")


def worker_count(count: int, jobs: int | None, *, forked: bool) -> int:
    """How many worker processes ``count`` files pay for: at most ``jobs`` (default: the usable
    CPUs), and none beyond one per :data:`MIN_FILES_PER_FORKED_WORKER` (or spawned) files."""
    per_worker = MIN_FILES_PER_FORKED_WORKER if forked else MIN_FILES_PER_SPAWNED_WORKER
    return max(1, min(jobs or _available_cpus(), count // per_worker))


def _fork_context():
    """The ``fork`` start method on Linux, else None (the platform's default)."""
    if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return None


def _available_cpus() -> int:
    """CPUs this process may run on (a container or ``taskset`` may allow fewer than exist)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1
