"""Per-file state shared by all rules during one run: the module model, what may be fixed, the
diagnostics found, and the TODO comments to leave.

``migrate`` applies every fix and leaves TODO comments; ``check`` reports, and applies fixes only
with ``--fix`` (safe ones) or ``--fix --unsafe-fixes``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import CodeRange, QualifiedNameProvider, ScopeProvider

from ndd_migrate.engine.catalog import get_rule
from ndd_migrate.io.diagnostics import Diagnostic, FixSafety
from ndd_migrate.io.policy import Policy, every_rule  # noqa: F401  (re-exported: rules and tests use them from here)
from ndd_migrate.model.kinds import expr_kind
from ndd_migrate.model.types import Kind, ModuleModel, PipelineFunction
from ndd_migrate.support import location as support_location
from ndd_migrate.syntax import names

TODO_PREFIX = "# TODO(ndd-migrate): "


@dataclass
class Walk:
    """Where the dispatcher's traversal of the module is, and what the rules did on the way."""

    statements: list[cst.CSTNode] = field(default_factory=list)  # the statements around the node
    functions: list[cst.FunctionDef] = field(default_factory=list)  # the functions around the node
    in_import: bool = False  # inside an import statement: names there are bindings, not uses
    # Original statements a rule removed (set by the dispatcher): a block's updated statements
    # then pair with its original ones only once these are left out.
    removed: set[cst.CSTNode] = field(default_factory=set)
    rewritten: bool = False  # some rule replaced a node (set by the dispatcher)
    # TODO texts for a node not yet inside a statement, and for each statement (written above it).
    pending_todos: dict[cst.CSTNode, list[str]] = field(default_factory=dict)
    statement_todos: dict[cst.CSTNode, list[str]] = field(default_factory=dict)


@dataclass
class Imports:
    """What the rewritten module needs imported (NDD301 adds it when the module is left)."""

    ndd: bool = False
    numpy: bool = False
    types_alias: str | None = None  # the module's own name for nvidia.dali.types (read by NDD421)
    types: bool = False  # `nvidia.dali.types` is needed under a name the module does not bind
    support: set[str] = field(default_factory=set)  # functions to import from the support module
    # Names of DALI's iterator classes whose import moves to the support module (its drop-ins):
    # the name the module binds → the support module's class.
    moved_to_support: dict[str, str] = field(default_factory=dict)
    # Pipeline settings passed to imported pipelines another module converts (FileResult's).
    call_args: dict[str, set[str]] = field(default_factory=dict)


@dataclass
class Context:
    """``fix_level``: "report" rewrites with every rule, selected or not (the reporting pass of
    ``check``: findings depend on the whole migration); "all" with every selected rule (``migrate``,
    ``check --fix --unsafe-fixes``); "safe" with selected rules whose fix is safe (``check --fix``).
    ``todos``: leave TODO comments. ``report_every``: record the findings of every rule, selected
    or not (the selection is applied to them afterwards: :mod:`ndd_migrate.io.findings`)."""

    path: str
    model: ModuleModel
    policy: Policy
    resolver: cst.MetadataDependent
    fix_level: str = "all"
    todos: bool = True
    rewrite: bool = True  # the rewritten module is kept (False: only the findings are wanted)
    report_every: bool = False
    # The rules ``applies`` was asked about, when noted: the reporting pass applies every rule, as
    # the pass at "all" does when every rule is selected (io.findings.Pass).
    asked: dict[str, bool] | None = None
    suppressed: Callable[[str, int], bool] = lambda code, line: False
    # The module's line for a line of the parsed text (they differ when only the region is parsed).
    original_line: Callable[[int], int] = lambda line: line
    positions: Callable[[cst.CSTNode], CodeRange | None] = lambda node: None  # of original nodes
    diagnostics: list[Diagnostic] = field(default_factory=list)
    _reported: set[Diagnostic] = field(default_factory=set, repr=False)  # the same, to test membership
    # A finding shown only when none of these codes is selected (id of the finding → codes; only
    # with ``report_every``: Findings.unless).
    unless: dict[int, tuple[str, ...]] = field(default_factory=dict)
    walk: Walk = field(default_factory=lambda: Walk())
    imports: Imports = field(default_factory=lambda: Imports())
    # One level of the indentation the module uses (a tab in a tab-indented file), for the lines
    # inside brackets that a rule lays out (set by the engine; four spaces for an odd mix).
    indent: str = "    "
    ndd_flow: object = None  # the NDD5xx rules' data flow of the module (ndd_flow.Flow), built once
    _dali_names: dict[cst.CSTNode, str | None] = field(default_factory=dict, repr=False)
    _all_convert: bool | None = field(default=None, repr=False)  # may_rewrite_dali_calls outside pipelines
    _outside_readers: tuple | None = field(default=None, repr=False)  # outside_readers, once decided

    # -- names -----------------------------------------------------------------------------
    def dali_name(self, node: cst.CSTNode) -> str | None:
        """The canonical DALI name ``node`` refers to (:func:`names.dali_name`); remembered, since
        several rules ask about the same node. Only a name or attribute chain whose root some
        import from ``nvidia`` binds can have one: the others are not even resolved."""
        try:
            return self._dali_names[node]
        except KeyError:
            root = node
            while isinstance(root, cst.Attribute):
                root = root.value
            if isinstance(root, cst.Name) and root.value in self.model.names.dali_roots:
                found = names.dali_name(self.resolver, node)
            else:
                found = None
            self._dali_names[node] = found
            return found

    def ndd(self, path: str = "") -> cst.BaseExpression:
        """An expression for ``ndd.<path>`` under the module's ndd alias (import added later)."""
        self.imports.ndd = True
        alias = self.model.names.ndd or "ndd"
        return names.build_dotted(f"{alias}.{path}" if path else alias)

    def numpy(self, attr: str) -> cst.BaseExpression:
        self.imports.numpy = True
        return names.build_dotted(f"{self.model.names.numpy or 'np'}.{attr}")

    def support(self, name: str) -> cst.Name:
        """A call target for ``name`` of the project's support module (:mod:`ndd_migrate.support`),
        imported by NDD301 unless the module binds it already (a module migrated before)."""
        self.imports.support.add(name)
        return cst.Name(name)

    def support_location(self) -> tuple[str, str]:
        """``(file, import name)`` of the support module this module imports from
        (:func:`ndd_migrate.support.location`): the one NDD301 writes the import of and the run
        writes (``FileResult.support_at``)."""
        via = tuple(dict.fromkeys(p.qualname.lstrip(".") for p in self.model.imported_sites.values() if p.convert))
        return support_location(self.path, self.policy.support_module(self.path), via, self.support_form() is not None)

    def support_form(self) -> str | None:
        """How this module, a member of a namespace package, imports its support module
        (:mod:`ndd_migrate.model.namespaces`: relatively, or with the absolute import as fallback),
        or None: the plain absolute import."""
        return self.policy.support_imports.get(os.path.abspath(self.path))

    def types_name(self) -> str:
        """An expression name for ``nvidia.dali.types``: the module's own, else one NDD421 imports."""
        if self.imports.types_alias:
            return self.imports.types_alias
        self.imports.types = True
        return "dali_types" if "types" in self.model.names.module_level else "types"

    def kind(self, node: cst.BaseExpression) -> tuple[Kind, PipelineFunction] | None:
        """What an original expression holds (pipeline, batches, batch), or None if unknown."""
        return expr_kind(
            self.model,
            node,
            lambda name: self.resolver.get_metadata(ScopeProvider, name, None),
            lambda n: {q.name for q in self.resolver.get_metadata(QualifiedNameProvider, n, None) or ()},
        )

    def converted_kind(self, node: cst.BaseExpression, *kinds: Kind) -> PipelineFunction | None:
        """The pipeline behind ``node`` when it is of one of ``kinds`` and that pipeline is rewritten."""
        found = self.kind(node)
        if found and found[0] in kinds and found[1].convert:
            return found[1]
        return None

    def migrated_before_hint(self, node: cst.BaseExpression) -> str:
        """For a finding on a pipeline migrated in another file before this run: why this call is
        wrong now (the pipeline function is a generator function); else ``""``."""
        found = self.kind(node)
        pipeline = found[1] if found else None
        where = getattr(pipeline, "migrated_in", None)
        return f"`{pipeline.qualname}` ({where}) is a generator function now" if where else ""

    def enclosing_pipeline(self) -> PipelineFunction | None:
        """The pipeline function whose body (nested helpers included) is being visited."""
        for node in reversed(self.walk.functions):
            pipeline = self.model.by_node.get(node)
            if pipeline is not None:
                return pipeline
        return None

    def may_rewrite_dali_calls(self) -> bool:
        """``fn.*`` calls may become ``ndd.*`` calls here: inside a pipeline function only when it
        is converted; elsewhere as :meth:`rewrites_in` the functions being visited."""
        pipeline = self.enclosing_pipeline()
        if pipeline is not None:
            return pipeline.convert
        return self.rewrites_in(self.walk.functions)

    def rewrites_in(self, functions) -> bool:
        """Are ``fn.*`` calls in ``functions`` (a function and those it is nested in, innermost last)
        rewritten? Not in a helper another module keeps in pipeline mode (``model.kept_helpers``);
        in a helper that pipelines' graphs run, when all of those are converted; elsewhere, only when
        no pipeline of the module stays (helpers they call would otherwise break) and no function
        here makes a reader for a pipeline elsewhere (:meth:`outside_readers`)."""
        owners = self._graph_owners(functions)
        return self._rewrites_graph_code(functions, owners) and (bool(owners) or not self.outside_readers())

    def kept_for_its_reader(self, functions) -> cst.FunctionDef | None:
        """The outermost of ``functions``, when its reader alone keeps it in pipeline mode
        (:meth:`outside_readers`)."""
        if not functions or functions[0] not in self.outside_readers():
            return None
        owners = self._graph_owners(functions)
        return functions[0] if not owners and self._rewrites_graph_code(functions, owners) else None

    def _rewrites_graph_code(self, functions, owners) -> bool:
        if any(node in self.model.kept_helpers for node in functions):
            return False
        if self.model.by_hand():
            return False  # a graph built by hand (`with pipe:`) stays pipeline-mode code
        if owners:  # a helper the graphs of these pipelines run: converted with them
            return all(p.convert for p in owners)
        if self._all_convert is None:  # asked at every DALI call; decided before the traversal
            self._all_convert = all(p.convert for p in self.model.pipelines.values())
        return self._all_convert

    def outside_readers(self) -> tuple[cst.FunctionDef, ...]:
        """The functions of the module that call a reader (``fn.readers.*``) and are neither a
        pipeline function nor graph code of one here: parts of a graph whose pipeline is elsewhere
        (a method another module's hand-built graph calls). Dynamic mode's reader is an object made
        once and read with ``next_epoch()``, which only that pipeline's migration can write: they
        stay in pipeline mode, and so does the module's code outside its pipelines, which they may
        call (NDD101 says so at each reader)."""
        if self._outside_readers is None:
            graph = getattr(self.model, "graph", None)
            reached = graph[0].reached_by if graph is not None else {}
            self._outside_readers = tuple(
                f for f in self.model.outside_readers if f not in self.model.by_node and not reached.get(f)
            )
        return self._outside_readers

    def _graph_owners(self, functions) -> set | None:
        """The pipelines whose graph runs the innermost of ``functions`` that is graph code, if any."""
        graph = getattr(self.model, "graph", None)
        if graph is None:
            return None
        for node in reversed(functions):
            owners = graph[0].reached_by.get(node)
            if owners:
                return owners
        return None

    # -- positions, policy -----------------------------------------------------------------
    def line_of(self, node: cst.CSTNode) -> tuple[int, int, int, int]:
        pos = self.positions(node)
        if pos is None:
            return (1, 0, 1, 0)
        line = self.original_line
        return (line(pos.start.line), pos.start.column, line(pos.end.line), pos.end.column)

    def applies(self, code: str, node: cst.CSTNode) -> bool:
        """May this run rewrite ``node`` for rule ``code``? (``# noqa``, the selection, fix level and
        fix safety: the engine's decision, asked by the rules before they rewrite.)"""
        if self.suppressed(code, self.line_of(node)[0]):
            return False
        if self.fix_level == "report":
            if self.asked is not None:  # what the "all" pass would have asked (io.findings.Pass)
                self.asked[code] = True
            return True
        if self.fix_level != "all":  # the safety first: the selection is asked only what matters (io.findings.Pass)
            rule = get_rule(code)
            if rule is None or rule.fix_safety is not FixSafety.SAFE:
                return False
        return self.policy.is_enabled(code, self.path)

    # -- findings ----------------------------------------------------------------------------
    def report(
        self,
        code: str,
        node: cst.CSTNode,
        message: str,
        *,
        hint: str = "",
        fixed: bool,
        todo: bool = True,
        manual: bool = False,
        unless: tuple[str, ...] = (),
        with_fix_of: str | None = None,
    ) -> None:
        """Record a finding at ``node``; when not fixed, ``migrate`` also leaves a TODO there, unless
        ``todo`` is False: the finding needs no edit here, only a run over more files (a TODO
        would stay behind, stale, once that run rewrote the code). ``manual``: this finding has no
        fix, whatever the rule's fix safety (it is not counted as fixable). ``unless``: the finding
        holds only when none of these codes is selected (``report_every`` only). ``with_fix_of``:
        the fix is made only together with that rule's (``device="mixed"`` respelled on an ``fn.*``
        call only as NDD101 rewrites the call), so it is as safe as the less safe of the two."""
        line, col, end_line, end_col = self.line_of(node)
        if self.suppressed(code, line) or not (self.report_every or self.policy.is_enabled(code, self.path)):
            return
        rule = get_rule(code)
        fix = rule.fix_safety if rule and not manual else FixSafety.MANUAL
        if with_fix_of is not None and fix is FixSafety.SAFE:
            other = get_rule(with_fix_of)
            fix = other.fix_safety if other is not None and other.fix_safety is not FixSafety.MANUAL else fix
        diag = Diagnostic(
            code=code,
            message=message,
            path=self.path,
            line=line,
            column=col,
            end_line=end_line,
            end_column=end_col,
            fix=fix,
            fixed=fixed,
            hint=hint,
        )
        if unless:  # not one of the findings said: it may not be (Findings.select)
            self.unless[id(diag)] = unless
            self.diagnostics.append(diag)
            return
        if diag in self._reported:
            return
        self._reported.add(diag)
        self.diagnostics.append(diag)
        if not fixed and self.todos and todo:
            text = f"{TODO_PREFIX}{code} {hint or message}"
            if self.walk.statements:
                self.walk.statement_todos.setdefault(self.walk.statements[-1], []).append(text)
            else:
                self.walk.pending_todos.setdefault(node, []).append(text)
