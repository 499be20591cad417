"""One source text through the rules: parse once, analyse once (:mod:`ndd_migrate.model.analysis`),
build the migration plan, run every rule's hooks in a single traversal
(:mod:`ndd_migrate.engine.dispatch`), re-parse the result. Any failure — a syntax error, a rule that
throws, output that does not parse — turns into a :class:`FileError` and the text is left as it was:
the caller writes only what this module returns as ``new_source``.

Reading the files and skipping those without DALI happen before this module (and libcst) is
imported, in :mod:`ndd_migrate.app.runner`, which hands over the bytes it read. ``check`` parses only
the module's DALI region (:mod:`ndd_migrate.syntax.region`), and names are resolved by
:mod:`ndd_migrate.syntax.scopes`: both keep a DALI file's cost to its DALI code.
"""

from __future__ import annotations

import ast
import functools
import gc
import traceback
from dataclasses import replace
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper

from ndd_migrate.codegen import capture, long_lines, visual_indent
from ndd_migrate.engine import unused_noqa
from ndd_migrate.engine.catalog import get_rule, rule_codes
from ndd_migrate.engine.context import Context
from ndd_migrate.engine.dispatch import Dispatcher
from ndd_migrate.engine.stack import TOO_DEEP, on_deep_stack
from ndd_migrate.io import noqa
from ndd_migrate.io.diagnostics import FileError, FileResult, FixSafety
from ndd_migrate.io.findings import Findings, Missing, Pass
from ndd_migrate.io.policy import Policy
from ndd_migrate.model import crossfile
from ndd_migrate.model.analysis import Analyzer
from ndd_migrate.model.exported_values import exported_values
from ndd_migrate.model.sources import hand_built, subclasses
from ndd_migrate.model.types import ImportedPipeline
from ndd_migrate.model.values import graph_helpers
from ndd_migrate.plan.collect import collect
from ndd_migrate.plan.uses import Plan
from ndd_migrate.syntax import cstparse, pyparse, region, scopes, tree
from ndd_migrate.syntax.cstutil import snippet


def transform(source: str, path: str, policy: Policy, *, narrow: bool = True) -> FileResult:
    """Run the rules over one source text. Never raises for bad input: errors come back in the result.
    (The work runs on a deep stack: :func:`on_deep_stack`.)

    ``migrate`` rewrites with every selected rule and leaves TODOs. ``check`` always reports what
    the full migration would report (conversion rules depend on each other, so reporting runs them
    all, selected or not, and only the report is filtered); with ``--fix`` the fixes of the selected
    rules are applied (only the safe ones without ``--unsafe-fixes``) until nothing changes, as
    ruff does (:func:`_fix_to_fixed_point`). The reporting pass never keeps its rewrite, so it is
    not even generated (nor re-parsed to validate it).

    A finding is marked fixable only with the fix this run's options would really apply
    (:func:`_findings`): ``device="mixed"`` inside a pipeline function is fixed only together
    with the function's (unsafe) conversion, so there it is an unsafe fix, not a safe one.

    ``check`` first looks only at the module's DALI region (:mod:`ndd_migrate.syntax.region`; ``narrow``
    False turns that off, for tests that compare): the findings are the same, for a fraction of
    the cost. Only a ``--fix`` with something to fix goes on to the whole module.
    """
    return on_deep_stack(_transform, source, path, policy, narrow)


def _transform(source: str, path: str, policy: Policy, narrow: bool) -> FileResult:
    """The run of :func:`transform`, and the ``# noqa`` directives it found idle (NDD801)."""
    return unused_noqa.settle(_transformed(source, path, policy, narrow), policy)


def _transformed(source: str, path: str, policy: Policy, narrow: bool) -> FileResult:
    try:
        parsed = pyparse.parse(source, notebook=path.endswith(".ipynb"))
    except pyparse.Refused as refused:  # CPython would not run it: its error, and libcst never sees it
        return FileResult(path=path, old_source=source, error=FileError(path, refused.message, refused.line))
    module_names = region.module_level_names(parsed)
    if policy.mode == "migrate":
        return _run(source, path, policy, "all", module_names, todos=True, stdlib_tree=parsed)
    part = region.dali_region(source, parsed) if narrow and not policy.imported_pipelines else None
    if not policy.fix:
        return _checked(source, path, policy, module_names, parsed, part)
    if part is not None:  # only a --fix with something to fix goes on to the whole module
        found = _run(
            part.text,
            path,
            policy,
            "report",
            module_names,
            todos=False,
            rewrite=False,
            lines=part,
            module_source=source,
        )
        if not found.error and not found.diagnostics:
            found.old_source = source
            return found
    return _fix_to_fixed_point(source, path, policy, module_names)


#: ``check --fix`` applies the fixes again to the fixed text until nothing changes (a fix can make
#: another finding visible or fixable); this many passes at most, as a guard against two rules
#: undoing each other's work (ruff allows 100; our fixes settle in two or three).
MAX_FIX_PASSES = 10


def _checked(
    source: str, path: str, policy: Policy, module_names: set[str], stdlib_tree: ast.Module | None, part=None
) -> FileResult:
    """The findings of ``check`` in ``source`` (:func:`_findings`): of its DALI region ``part``
    when there is one and it goes through, else of the whole module (whose stdlib tree ``stdlib_tree``
    is when the caller has it)."""
    if part is not None:
        found = _findings(part.text, path, policy, module_names, lines=part, module_source=source)
        if not found.error:
            found.old_source = source
            return found
    return _findings(source, path, policy, module_names, stdlib_tree=stdlib_tree)


def _findings(text: str, path: str, policy: Policy, module_names: set[str], **where) -> FileResult:
    """The findings of ``check``, each marked with the fix this run's options would apply, and
    ``FileResult.findings``: every rule's, from which another selection's report is read
    (:class:`~ndd_migrate.io.findings.Findings`; the results cache keeps them).

    The reporting pass applies every rule, selected or not, and records every finding; the passes
    at a fix level (``safe``, then ``all``: is a finding fixed by ``check --fix``, or only with
    ``--unsafe-fixes``?) run only when a finding of this selection could be marked by them, each
    with the questions it asked of the selection recorded. A family of ``Pipeline`` subclasses
    reads the findings it was given (``subclasses.failures``): there every pass is this
    selection's, and the result holds no findings to select from. The passes share the parsed
    module, its scopes and the rest of :func:`_prepared`; each analyses it for itself."""
    seen: dict = {}
    where["prepared"] = {}  # parsed and prepared once for every pass (_prepared)
    found = _run(text, path, policy, "report", module_names, todos=False, rewrite=False, every=True, seen=seen, **where)
    every = not seen.get("families")
    if not every and not found.error:
        found = _run(text, path, policy, "report", module_names, todos=False, rewrite=False, seen=seen, **where)
    if found.error:
        return found
    findings = Findings.of(found.diagnostics, seen.get("unless", {}))
    if every:  # the reporting pass is the pass at "all" when every rule is selected
        findings.passes.append(Pass("all", seen["asked"], findings.fixed_ids(found.diagnostics)))
        safe = _safe_pass_of_report(findings)
        if safe is not None:
            findings.passes.append(safe)
    enabled = lambda code: policy.is_enabled(code, path)  # noqa: E731
    # NDD801 is opt-in and judges the run after the rules (unused_noqa.settle): not one of them
    codes = [code for code in rule_codes() if code != unused_noqa.CODE]
    while isinstance(selected := findings.select(enabled, codes), Missing):
        answers: dict[str, bool] = {}
        asked = functools.partial(_asked, policy.is_enabled, answers)
        again = _run(
            text,
            path,
            replace(policy, is_enabled=asked),
            selected.level,
            module_names,
            todos=False,
            rewrite=False,
            every=every,
            **where,
        )
        findings.passes.append(Pass(selected.level, answers, findings.fixed_ids(again.diagnostics)))
    found.diagnostics = selected
    found.findings = findings if every else None
    return found


def _safe_pass_of_report(findings: Findings) -> Pass | None:
    """The pass at "safe" read off the reporting pass, which applied every rule, where it can be:

    * when every fix it applied is safe, no unsafe rewrite (a pipeline's conversion above all)
      made or unmade another, and a pass applying only safe fixes applies the same ones, under any
      selection that selects each rule that fixed something (the pass's answers). A file whose
      findings are all safe fixes (hand-written dynamic-mode code) is then checked in one pass;
    * when no rule of its own fixes (``Rule.follows_rewrites``: the imports) applied was a safe one
      (pipeline-mode code, whose fixes are the conversion), a pass applying only safe fixes applies
      none: no safe rewrite, so no import one needs either, under every selection (no answers).
      Such a file, most files ``check`` converts, was checked twice.

    None otherwise: the pass at "safe" runs."""
    fixed = [d for d in findings.diagnostics if d.fixed]
    if all(d.fix is FixSafety.SAFE for d in fixed):
        return Pass("safe", dict.fromkeys((d.code for d in fixed), True), findings.fixed_ids(fixed))
    if not any(d.fix is FixSafety.SAFE and not _follows_rewrites(d.code) for d in fixed):
        return Pass("safe", {}, frozenset())
    return None


def _follows_rewrites(code: str) -> bool:
    rule = get_rule(code)
    return rule is not None and rule.follows_rewrites


def _asked(is_enabled, answers: dict[str, bool], code: str, path: str | None = None) -> bool:
    """``is_enabled(code, path)``, the answer noted in ``answers`` (io.findings.Pass)."""
    answers[code] = answer = is_enabled(code, path)
    return answer


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
    result = _checked(current, path, policy, module_names, None)
    if result.error:
        return result
    result.diagnostics = fixed + result.diagnostics
    result.old_source = source
    result.changed = current != source
    result.new_source = current if result.changed else None
    return result


def _run(*args, **kwargs) -> FileResult:
    """One pass of the rules (:func:`_pass`), and the cyclic garbage it leaves collected at once.

    A pass leaves its trees behind in reference cycles (libcst's scope objects point at the nodes
    and at each other), and the collector is off while a file is processed
    (:func:`without_cycle_collection`): without this, the second pass of ``check`` (the fix
    levels, :func:`_findings`) ran beside all of the first pass's trees, and peak memory was the
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
    stdlib_tree: ast.Module | None = None,
    every: bool = False,
    seen: dict | None = None,
    prepared: dict | None = None,
) -> FileResult:
    """One pass of the rules over ``source``: the whole module, or its region (then ``lines`` maps
    the region's lines back to the module's, whose ``# noqa`` comments are in ``module_source``).
    ``stdlib_tree``, when given, is CPython's tree of ``source``: it tells :mod:`ndd_migrate.syntax.cstparse`
    where a large module's top-level statements are.

    A ``Pipeline`` base class with subclasses is flattened first (:mod:`ndd_migrate.model.sources.subclasses`); when
    a class of such a family does not convert, the pass runs again with that class left as it is
    (``refused``: base class name → why and which classes, reported at the base).

    ``every``: record every rule's findings, selected or not (``Context.report_every``); ``seen``,
    when given, is told whether the module holds such a family (``families``: then the findings
    depend on the selection) and which findings hold only under conditions (``unless``:
    io.findings.Findings). ``prepared``, when given, holds the parsed and prepared module
    (:func:`_prepared`) for the next pass over the same text, and gives it to this one."""
    result = FileResult(path=path, old_source=source)
    shared = prepared if prepared is not None and not refused else {}
    try:
        _parsed(source, stdlib_tree, shared)
    except cst.ParserSyntaxError as exc:
        result.error = _syntax_error(source, path, exc)
        return result
    try:
        flat, built, wrapper, positions = _parts(source, refused, shared)
        model = _model(wrapper, policy, module_names, flat, shared, path)
        suppressed = noqa.suppressor(module_source or source)
        ctx = Context(
            path=path,
            model=model,
            policy=policy,
            resolver=None,
            suppressed=suppressed,
            fix_level=fix_level,
            todos=todos,
            rewrite=rewrite,
            positions=positions,
            report_every=every,
            asked={} if every and fix_level == "report" else None,
        )
        ctx.original_line = _original_line(ctx.original_line, lines, flat, built)
        if built.graphs:
            _note_hand_built(model, built, ctx)
        model.hand_built_refused = built.refused
        new_module = _finished(wrapper.visit(Dispatcher(ctx)), model, built, rewrite and policy.capture(path))
        failed = subclasses.failures(flat, model.pipelines, ctx.diagnostics)
        if failed:  # again, with the classes that did not convert left as they were (one finding at the base)
            return _run(
                source,
                path,
                policy,
                fix_level,
                module_names,
                todos=todos,
                rewrite=rewrite,
                lines=lines,
                module_source=module_source,
                refused={**flat.refused, **failed},
                stdlib_tree=stdlib_tree,
                every=every,
                seen=seen,
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
    result.suppressor = suppressed
    if seen is not None:
        seen["families"] = bool(flat.families)
        seen["asked"] = ctx.asked
        seen["unless"] = {i: ctx.unless[id(d)] for i, d in enumerate(result.diagnostics) if id(d) in ctx.unless}
    result.support = tuple(sorted(ctx.imports.support | set(ctx.imports.moved_to_support.values())))
    result.support_at = ctx.support_location() if result.support else None
    _for_other_modules(result, ctx)
    if not rewrite:
        return result
    return _with_new_source(result, new_module, source, path, policy)


def _finished(module: cst.Module, model, built, captured: bool) -> cst.Module:
    """The rules' module finished: with ``captured`` (``migrate --capture``), the loops of the
    generators this pass wrote captured where proven (:mod:`ndd_migrate.codegen.capture`; the user's
    own dynamic-mode code is left as it is); the graphs built by hand written back as such."""
    if captured:
        converted = {pipeline.node.name.value for pipeline in model.pipelines.values() if pipeline.convert}
        module = capture.capture_loops(module, converted)[0]
    if built.graphs:
        converted = {
            pipeline.node.name.value for pipeline in model.pipelines.values() if pipeline.convert and pipeline.label
        }
        module = hand_built.resugar(module, built, converted)
    return module


def _iterator_classes(ctx: Context) -> tuple[dict, dict, dict]:
    """``FileResult.iterator_classes``, ``iterator_class_sources`` and ``iterator_class_calls``: the
    top-level classes deriving from DALI's PyTorch iterator (ndd_migrate.model.features.iterator_subclasses)
    → does NDD411 give each the support module's base; those another module may call; the imported
    ones called here → is every call given migrated pipelines?"""
    local = [s for s in ctx.model.iterator_classes.values() if isinstance(ctx.model.parents.get(s.node), cst.Module)]
    rebased = {sub.node.name.value: sub.rebased for sub in local}
    sources = {
        sub.node.name.value: (sub.base, cst.Module([]).code_for_node(sub.node)) for sub in local if sub.blocker is None
    }
    imported = {sub.imported: sub.rebased for sub in ctx.model.iterator_subclasses.values() if sub.imported}
    return rebased, sources, imported


def _for_other_modules(result: FileResult, ctx: Context) -> None:
    """What the passes over the run's other modules read of this one (ndd_migrate.model.importers):
    what it exports and converts, what it asks of the modules it imports from."""
    result.pipelines, result.epochs = crossfile.exports(ctx.model), crossfile.epoch_exports(ctx.model)
    result.kept_imports = _kept_imports(ctx)
    result.epoch_requests = {qual: _at(ctx, nodes[0]) for qual, nodes in sorted(ctx.model.epoch_requests.items())}
    result.imported_call_args = {name: tuple(sorted(args)) for name, args in sorted(ctx.imports.call_args.items())}
    result.helpers, result.helper_calls = _library_helpers(ctx)
    result.followed_functions = tuple(sorted(q for q in ctx.model.followed_functions if "." not in q))
    result.exported_values = exported_values(ctx.model)
    result.iterator_classes, result.iterator_class_sources, result.iterator_class_calls = _iterator_classes(ctx)


def _library_helpers(ctx: Context) -> tuple[dict[str, bool], dict[str, bool]]:
    """``FileResult.helpers`` and ``helper_calls`` (ndd_migrate.model.features.library_helpers)."""
    helpers = {name: ctx.rewrites_in([node]) for name, node in sorted(ctx.model.library_helpers.items())}
    calls: dict[str, bool] = {}
    for _, owners, quals in graph_helpers.imported_helper_calls(ctx.resolver, ctx.model):
        for qual in quals:
            calls[qual] = calls.get(qual, True) and all(owner.convert for owner in owners)
    return helpers, dict(sorted(calls.items()))


def _kept_imports(ctx: Context) -> dict[str, str]:
    """The pipelines another module of the run converts that this one uses in a way the migration
    does not follow (``module.name`` as imported -> the first such use): the run keeps them in
    pipeline mode (ndd_migrate.model.importers). A use that asks for the reader's metadata is not
    one while that module has not been asked for it (``FileResult.epoch_requests``)."""
    model = ctx.model
    asked = {
        id(node): qual in ctx.policy.epoch_requests for qual, nodes in model.epoch_requests.items() for node in nodes
    }
    found: dict[str, str] = {}
    for qual, (about, call, (why, hint)) in sorted(model.imported_keeps.items()):
        found[qual] = crossfile.keeping(about, f"{_at(ctx, call)} keeps it: {why}", hint)
    for use, _ in sorted(model.plan.unfollowed, key=lambda item: ctx.line_of(item[0].node)[:2]):
        if asked.get(id(use.node)) is False:
            continue  # the defining module is asked for the epoch-aware shape first
        how = (
            "asks for its reader's metadata (a framework iterator given `reader_name=`, `epoch_size()`)"
            if id(use.node) in asked
            else "uses it as a pipeline in a way the migration does not follow (another module of the run)"
        )
        for member in use.members:
            if isinstance(member, ImportedPipeline) and member.convert and member.migrated_in is None:
                found.setdefault(member.qualname, f"{_at(ctx, use.node)} {how}")
    for qual, (call, why) in sorted(model.unplain_imported.items()):
        found.setdefault(qual, f"{_at(ctx, call)} {why}")
    return found


def _at(ctx: Context, node: cst.CSTNode) -> str:
    """``path:line (`code`)`` of ``node``, for a finding another module reports."""
    return f"{ctx.path}:{ctx.line_of(node)[0]} (`{snippet(node)}`)"


def _parsed(source: str, stdlib_tree: ast.Module | None, shared: dict) -> None:
    """libcst's tree of ``source`` in ``shared``, unless another pass put it there."""
    if "module" not in shared:
        shared["module"] = cstparse.parse_module(source, stdlib_tree)


def _parts(source: str, refused: dict | None, shared: dict) -> tuple:
    """:func:`_prepared` of the module in ``shared``, and its positions, unless another pass did it."""
    if "parts" not in shared:
        flat, built, wrapper = _prepared(shared["module"], source, refused)
        shared["parts"] = flat, built, wrapper, scopes.positions_on_demand(wrapper)
    return shared["parts"]


def _prepared(module: cst.Module, source: str, refused: dict | None):
    """``module`` as the rules see it, and its metadata wrapper with the scopes resolved: a family of
    ``Pipeline`` subclasses flattened (``flat``), graphs built by hand made pipeline functions
    (``built``). None of it depends on the policy or changes in a pass (the rules build new
    nodes), so the passes of ``check`` over one text share it (``_pass``'s ``prepared``)."""
    flat = subclasses.flatten(module, refused)  # each subclass of a base as a `Pipeline` subclass of its own
    module = flat.module
    module, built = hand_built.desugar(
        module, None if flat.families else source
    )  # `with pipe:` graphs as @pipeline_def functions
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    scopes.resolve(wrapper)
    return flat, built, wrapper


def _model(wrapper: MetadataWrapper, policy: Policy, module_names: set[str], flat, shared: dict, path: str):
    """The model the Analyzer fills from the prepared module (with the plan). A pass changes it
    (what converts, the problems found), so each pass has its own; what depends on the tree alone
    (the methods a class calls on itself) is found once, in ``shared``."""
    analyzer = Analyzer(
        policy.imported_pipelines,
        set(module_names),
        policy.outside_pipelines,
        policy.migrated_on_disk,
        self_calls=shared.get("self_calls"),
        iterator_classes=policy.imported_iterator_classes,
        epochs=policy.imported_epochs,
        requested=crossfile.own_names(policy.epoch_requests, path),
        requested_args=crossfile.own_names(policy.imported_call_args, path),
        shared=crossfile.own_names(policy.shared_functions, path),
    )
    analyzer.model.refused_families = flat.refused
    tree.visit_wrapped(wrapper, analyzer)
    with analyzer.resolve(wrapper):  # the plan asks the analysis for names and scopes
        analyzer.model.plan = Plan(collect(analyzer))  # every use of every value a conversion changes
    shared["self_calls"] = analyzer.model.self_calls
    return analyzer.model


def _original_line(line_of, lines: region.Region | None, flat, built):
    """A line of the text the rules see → the file's: back through the graphs built by hand (made
    functions), the flattened family of subclasses, and the region ``check`` parsed."""
    if lines is not None:
        line_of = lines.original_line
    if flat.families:
        line_of = _composed(line_of, flat.original_line)
    if built.graphs:
        line_of = _composed(line_of, built.original_line)
    return line_of


def _note_hand_built(model, built, ctx: Context) -> None:
    """The graphs built by hand, made functions, told to the model: each function's label (how its
    pipeline was written), the names the removed graph code read, and where each graph was."""
    model.hand_built = built
    for pipeline in model.pipelines.values():
        graph = next((g for g in built.graphs if g.definition is pipeline.node), None)
        if graph is not None:
            pipeline.label = f"{graph.var} = Pipeline(...)"
    model.names.read |= built.removed_reads
    built.call_lines = [ctx.positions(graph.call).start.line for graph in built.graphs]
    built.def_lines = [ctx.positions(graph.definition).start.line for graph in built.graphs]


def _with_new_source(result: FileResult, new_module: cst.Module, source: str, path: str, policy: Policy) -> FileResult:
    """``result`` with the rewritten text, its long lines split and the user's continuation lines
    under their brackets again, when it differs from ``source`` and parses; when it does not parse, the file is left unchanged (an error)."""
    new_source = new_module.code
    length = policy.line_length(path)
    if new_source != source and length is not None:
        new_source = long_lines.split_long_lines(new_module, new_source, source, length)
    if new_source != source:
        new_source = visual_indent.realign(new_source, source)
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
