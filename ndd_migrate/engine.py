"""One file through the rules, and many files in parallel.

For one source text: parse once, analyse once (:mod:`ndd_migrate.analysis`), run every rule's hooks
in a single traversal, re-parse the result. Any failure — a syntax error, a rule that throws, output
that does not parse — turns into a :class:`FileError` and the text is left as it was: the caller writes
only what this module returns as ``new_source``.
"""

from __future__ import annotations

import os
import traceback
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider, QualifiedNameProvider, ScopeProvider

from ndd_migrate import files, noqa
from ndd_migrate.analysis import Analyzer
from ndd_migrate.catalog import _rule_modules
from ndd_migrate.context import TODO_PREFIX, Context, Policy
from ndd_migrate.diagnostics import FileError, FileResult

_STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)


def rule_impls() -> list[type]:
    """Implementation classes of all rules, in rule-code order (the order hooks run in)."""
    return [mod.Impl for mod in _rule_modules() if hasattr(mod, "Impl")]


class Dispatcher(cst.CSTTransformer):
    """Runs every rule's ``visit_X``/``leave_X`` hooks in one traversal and places TODO comments."""

    METADATA_DEPENDENCIES = (QualifiedNameProvider, ScopeProvider, PositionProvider)

    def __init__(self, ctx: Context) -> None:
        super().__init__()
        self.ctx = ctx
        ctx.resolver = self
        self._visit: dict[str, list] = defaultdict(list)
        self._leave: dict[str, list] = defaultdict(list)
        for cls in rule_impls():
            impl = cls(ctx)
            for attr in dir(cls):
                if attr.startswith("visit_"):
                    self._visit[attr[6:]].append(getattr(impl, attr))
                elif attr.startswith("leave_"):
                    self._leave[attr[6:]].append(getattr(impl, attr))

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Module):
            self._decide_conversions()
        if isinstance(node, _STATEMENTS):
            self.ctx.statement_stack.append(node)
        if isinstance(node, cst.FunctionDef):
            self.ctx.function_stack.append(node)
        todos = self.ctx.pending_todos.pop(node, None)
        if todos and self.ctx.statement_stack:
            self.ctx.statement_todos.setdefault(self.ctx.statement_stack[-1], []).extend(todos)
        for hook in self._visit.get(type(node).__name__, ()):
            hook(node)
        return True

    def _decide_conversions(self) -> None:
        """Convert a pipeline function only when nothing blocks it and NDD001 may apply; otherwise
        report why at the blocking construct (left untouched, with a TODO)."""
        for fn in self.ctx.model.pipelines.values():
            for problem in fn.problems:
                self.ctx.report(
                    problem.code,
                    problem.node,
                    f"`{fn.node.name.value}` not migrated: {problem.message}",
                    hint=f"not migrated: {problem.message}; rewrite `{fn.node.name.value}` by hand "
                    "(see docs/target-shape.md)",
                    fixed=False,
                )
            fn.convert = not fn.problems and self.ctx.applies("NDD001", fn.node)

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):
        result = updated
        for hook in self._leave.get(type(original).__name__, ()):
            result = hook(original, result)
            if type(result) is not type(original):
                break  # a rule turned the node into something else: other rules' hooks no longer apply
        if isinstance(original, cst.FunctionDef):
            self.ctx.function_stack.pop()
        if isinstance(original, _STATEMENTS):
            self.ctx.statement_stack.pop()
            todos = self.ctx.statement_todos.pop(original, None)
            if todos and isinstance(result, _STATEMENTS):
                result = add_todo_comments(result, todos)
        return result


def add_todo_comments(stmt: cst.CSTNode, todos: list[str]) -> cst.CSTNode:
    """Put ``# TODO(ndd-migrate): ...`` lines above a statement, never the same one twice."""
    present = {line.comment.value for line in stmt.leading_lines if line.comment}
    new = [
        cst.EmptyLine(comment=cst.Comment(text))
        for text in dict.fromkeys(todos)
        if text not in present and not _same_todo_present(text, present)
    ]
    if not new:
        return stmt
    return stmt.with_changes(leading_lines=[*stmt.leading_lines, *new])


def _same_todo_present(text: str, present: set[str]) -> bool:
    code = text[len(TODO_PREFIX):].split(" ", 1)[0]
    return any(p.startswith(f"{TODO_PREFIX}{code} ") and p == text for p in present)


def transform(source: str, path: str, policy: Policy) -> FileResult:
    """Run the rules over one source text. Never raises for bad input: errors come back in the result.

    ``migrate`` rewrites with every rule and leaves TODOs. ``check`` always reports what the full
    migration would report (conversion rules depend on each other, so reporting runs them all);
    with ``--fix`` it keeps the full rewrite only under ``--unsafe-fixes``, else a second pass
    applies just the safe fixes.
    """
    if policy.mode == "migrate":
        return _run(source, path, policy, "all", todos=True)
    full = _run(source, path, policy, "all", todos=False)
    if full.error or (policy.fix and policy.unsafe_fixes):
        return full
    if not policy.fix:
        full.diagnostics = [replace(d, fixed=False) for d in full.diagnostics]
        full.changed, full.new_source = False, None
        return full
    safe = _run(source, path, policy, "safe", todos=False)
    done = {(d.code, d.line, d.column) for d in safe.diagnostics if d.fixed}
    full.diagnostics = [replace(d, fixed=(d.code, d.line, d.column) in done) for d in full.diagnostics]
    full.changed, full.new_source, full.error = safe.changed, safe.new_source, safe.error
    return full


def _run(source: str, path: str, policy: Policy, fix_level: str, todos: bool) -> FileResult:
    result = FileResult(path=path, old_source=source)
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        result.error = _syntax_error(source, path, exc)
        return result
    try:
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        analyzer = Analyzer()
        wrapper.visit(analyzer)
        ctx = Context(
            path=path,
            model=analyzer.model,
            policy=policy,
            resolver=None,
            suppressed=_suppression(source),
            fix_level=fix_level,
            todos=todos,
        )
        new_module = wrapper.visit(Dispatcher(ctx))
    except Exception as exc:  # a rule crashed: report it, lose nothing
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        result.error = FileError(
            path,
            f"internal error ({type(exc).__name__}: {exc}) at {Path(frame.filename).name}:{frame.lineno}; "
            "file left unchanged, please report it",
        )
        return result
    result.diagnostics = sorted(ctx.diagnostics, key=lambda d: (d.line, d.column, d.code))
    new_source = new_module.code
    if new_source != source:
        try:
            cst.parse_module(new_source)
            compile(new_source, path, "exec", dont_inherit=True)
        except (cst.ParserSyntaxError, SyntaxError) as exc:
            result.error = FileError(path, f"the rewrite did not parse, file left unchanged: {exc}")
            return result
        result.changed = True
        result.new_source = new_source
    return result


def _syntax_error(source: str, path: str, exc: cst.ParserSyntaxError) -> FileError:
    """Python's own message and line where it has one (libcst's point at where parsing gave up)."""
    try:
        compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as py:
        return FileError(path, f"cannot parse: {py.msg}", py.lineno)
    except ValueError:
        pass
    first = exc.message.splitlines()[0] if exc.message else "syntax error"
    return FileError(path, f"cannot parse: {first}", exc.raw_line)


def _suppression(source: str):
    """``(code, line) -> bool``: is ``code`` silenced by a ``# noqa`` on ``line``?"""
    table = noqa.noqa_lines(source)

    def suppressed(code: str, line: int) -> bool:
        entry = table.get(line)
        return entry is not None and (entry is noqa.ALL or code in entry)

    return suppressed


def process_file(path: str, policy: Policy) -> FileResult:
    """Read one file (a ``.py`` file or a notebook) and run the rules over it; never raises."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        return FileResult(path=path, error=FileError(path, f"cannot read: {exc.strerror or exc}"))
    if not files.mentions_dali(raw):
        return FileResult(path=path, skipped=True)
    try:
        source = files.decode_source(raw, path)
    except files.SourceError as exc:
        return FileResult(path=path, error=exc.to_file_error())
    if path.endswith(".ipynb"):
        return _process_notebook(path, source.text, policy)
    return transform(source.text, path, policy)


def _process_notebook(path: str, text: str, policy: Policy) -> FileResult:
    from ndd_migrate import notebooks

    try:
        module, layout = notebooks.notebook_to_module(text)
    except notebooks.NotebookError as exc:
        return FileResult(path=path, error=FileError(path, exc.message, exc.line))
    result = transform(module, path, policy)
    result.old_source = text
    result.diagnostics = [_cell_diagnostic(d, layout) for d in result.diagnostics]
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
    return replace(diag, message=f"cell {cell}: {diag.message}", line=line, end_line=None)


@dataclass
class RunSummary:
    results: list[FileResult]

    @property
    def changed(self) -> list[FileResult]:
        return [r for r in self.results if r.changed and not r.error]

    @property
    def failed(self) -> list[FileResult]:
        return [r for r in self.results if r.error]

    @property
    def manual(self) -> list:
        return [d for r in self.results for d in r.diagnostics if d.needs_human]


def run(paths: list[Path], policy: Policy, jobs: int | None = None) -> RunSummary:
    """Process many files; in parallel worker processes when there are enough to pay for them."""
    names_ = [str(p) for p in paths]
    jobs = jobs or os.cpu_count() or 1
    if jobs > 1 and len(names_) >= 8:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(process_file, names_, [policy] * len(names_), chunksize=4))
    else:
        results = [process_file(p, policy) for p in names_]
    return RunSummary(results)
