"""The uses that keep a pipeline in pipeline mode, once the whole module is read: which pipelines
each is about, and the problem each of them gets.

The analysis collects the candidates while it walks the module — ``(call, construct, expression,
(message, hint))`` from :mod:`ndd_migrate.model.features.manual_uses`,
:mod:`ndd_migrate.model.features.expected_errors` and the framework and subclass uses of
:mod:`ndd_migrate.model.features.iterators` — and :func:`record` reads them when it knows what each
name holds. An expression whose kind is not known may still be traced, for the uses that keep a
pipeline as it is anyway (:data:`~ndd_migrate.model.constructs.KEEPING`): they block the conversion
with their own reason, so the trace may stop at names bound once, and never converts.

``analyzer`` is the :class:`~ndd_migrate.model.analysis.Analyzer`, through its public index
(``model``, ``assigns``, ``scope_of``, ``qualnames``).
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate.model import constructs
from ndd_migrate.model.features import expected_errors, manual_uses
from ndd_migrate.model.kinds import expr_kind
from ndd_migrate.model.types import ImportedPipeline, Kind, PipelineFunction, PipelineGroup, Problem


def record(analyzer, consumed: list[tuple], helper_returns: dict) -> None:
    """Each use of ``consumed`` becomes a problem of every pipeline function of the module it may be
    about. ``helper_returns`` holds the ``return`` statements of each function of the module other
    than the pipeline functions (see :func:`_made_by_chosen_function`)."""
    for call, about, expr, advice in consumed:
        _keep(analyzer, helper_returns, call, about, expr, advice)


def _keep(analyzer, helper_returns: dict, call: cst.Call, about: str, expr: cst.BaseExpression, advice: tuple) -> None:
    """A use that keeps the pipelines ``expr`` holds in pipeline mode: a problem of each pipeline
    function of the module it may be."""
    found, traced = _kept(analyzer, helper_returns, call, about, expr)
    if not found or found[0] not in (Kind.PIPELINE, Kind.PIPELINES):
        return
    members = found[1].members if isinstance(found[1], PipelineGroup) else (found[1],)
    for pipeline in members:
        if _keeps_nothing_new(analyzer, pipeline, call, about, traced):
            continue
        if isinstance(pipeline, PipelineFunction):  # not one another module defines
            pipeline.problems.append(Problem(about, call, *advice, keeps=about in constructs.KEEPING))
        elif isinstance(pipeline, ImportedPipeline) and about in constructs.KEEPING:
            analyzer.model.imported_keeps.setdefault(pipeline.qualname, (about, call, advice))  # its module keeps it


def _kept(
    analyzer, helper_returns: dict, call: cst.Call, about: str, expr: cst.BaseExpression
) -> tuple[tuple | None, bool]:
    """What ``expr`` holds (its kind, or traced for the uses that allow it), and whether it was
    traced through a helper that chose a pipeline function (the call then goes to
    ``model.traced_keeps``)."""
    model = analyzer.model
    found = expr_kind(model, expr, analyzer.scope_of, analyzer.qualnames)
    traced = False
    if not found and about in constructs.KEEPING:
        found = _made_by_chosen_function(analyzer, helper_returns, expr)
        traced = found is not None
        if traced:
            model.traced_keeps.add(call)
    if not found and about == constructs.BUILD_RAISES and isinstance(expr, cst.Name):  # `assert_raises(E, P)`
        found = next(
            ((Kind.PIPELINE, model.pipelines[q]) for q in analyzer.qualnames(expr) if q in model.pipelines), None
        )
    if not found and about == constructs.FRAMEWORK_ITERATOR:
        found = _made_by_chosen_class(analyzer, expr)
    return found, traced


def _keeps_nothing_new(analyzer, pipeline, call: cst.Call, about: str, traced: bool) -> bool:
    """Does the use ``call`` add nothing to what keeps ``pipeline`` (a keep of its kind is there
    already), or keep nothing at all (the error it expects is raised in both modes)?"""
    if (about == constructs.FRAMEWORK_ITERATOR or traced) and any(p.about == about for p in pipeline.problems):
        return True  # one is enough: it stays in pipeline mode for that framework
    if about == constructs.FED_RUN_RAISES and not manual_uses.feeds_input(pipeline.node):
        return True  # an error DALI raises in both modes (a decoder on bad data) is no keep
    if about in (constructs.PYTHON_RUN_RAISES, constructs.PYTHON_OUTPUTS_RAISE) and (
        not expected_errors.run_differs(analyzer, pipeline.node, about)
        or any(p.node is call for p in pipeline.problems)
    ):
        return True  # the same error in both modes, or the fed-data keep at this checker already
    if about == constructs.BUILD_RAISES and any(p.about == about and p.node is call for p in pipeline.problems):
        return True  # a `with pytest.raises` block in a `@raises` test: one finding at the build
    return False


def _made_by_chosen_function(analyzer, helper_returns: dict, expr: cst.BaseExpression) -> tuple | None:
    """``(Kind.PIPELINES, group)`` for a pipeline made by calling a pipeline function that a
    helper chose and returned: ``make = choose(cfg)``, where every ``return`` of ``choose`` is
    the name of a pipeline function (``return train_pipe if cfg.multi else single_pipe``
    written as two returns), then ``pipe = make(...)`` or ``DALIDataset(pipeline=make(...))``.
    Only for uses that keep a pipeline as it is (a `DALIDataset`): they block the conversion
    with their own reason, so the trace may stop at names bound once, and never converts."""
    if isinstance(expr, cst.Name):
        expr = _bound_once(analyzer, expr)
    if not isinstance(expr, cst.Call) or not isinstance(expr.func, cst.Name):
        return None
    chosen = _bound_once(analyzer, expr.func)
    if not isinstance(chosen, cst.Call):
        return None
    quals = analyzer.qualnames(chosen.func)
    pipelines = analyzer.model.pipelines
    for node, returns in helper_returns.items():
        if not quals & analyzer.qualnames(node.name) or not _always_returns(node.body):
            continue
        found = []
        for ret in returns:
            names_ = analyzer.qualnames(ret.value) if isinstance(ret.value, cst.Name) else set()
            pipeline = next((pipelines[q] for q in names_ if q in pipelines), None)
            if pipeline is None:
                return None
            found.append(pipeline)
        return (Kind.PIPELINES, PipelineGroup(tuple(dict.fromkeys(found)))) if found else None
    return None


def _bound_once(analyzer, name: cst.Name) -> cst.BaseExpression | None:
    """The value of a name assigned exactly once (``name = value``) in the scope it is read from."""
    scope = analyzer.scope_of(name)
    while scope is not None and not scope.assignments[name.value] and scope.parent is not scope:
        scope = scope.parent
    if scope is None or len(scope.assignments[name.value]) != 1:
        return None
    return next(
        (v for sc, t, v in analyzer.assigns if sc is scope and isinstance(t, cst.Name) and t.value == name.value), None
    )


def _made_by_chosen_class(analyzer, expr) -> tuple | None:
    """``pipe`` of ``pipe_class = TrainPipe`` (or ``= ValPipe``, or ``None``), ``pipe = pipe_class(...)``:
    the pipelines it may be, as ``(Kind.PIPELINE, group)``, or None. Only for what keeps
    pipelines in pipeline mode (a framework iterator of theirs): the call is no call site
    (nothing there is rewritten), so every pipeline it may be stays as it is."""

    def bound(name: cst.Name) -> list | None:  # the values of every binding of `name` in its scope
        scope = analyzer.scope_of(name)
        if scope is None or name.value not in scope.assignments:
            return None
        values = [v for s, t, v in analyzer.assigns if s is scope and isinstance(t, cst.Name) and t.value == name.value]
        return values if len(values) == len(scope.assignments[name.value]) else None

    if not isinstance(expr, cst.Name):
        return None
    made = bound(expr)
    if not made or not all(isinstance(v, cst.Call) and isinstance(v.func, cst.Name) for v in made):
        return None
    pipelines = analyzer.model.pipelines
    chosen = []
    for call in made:
        classes = bound(call.func)
        if not classes:
            return None
        for value in classes:
            if isinstance(value, cst.Name) and value.value == "None":
                continue
            pipeline = next((pipelines[q] for q in analyzer.qualnames(value) if q in pipelines), None)
            if pipeline is None or not isinstance(value, cst.Name):
                return None
            chosen.append(pipeline)
    chosen = list(dict.fromkeys(chosen))
    if not chosen:
        return None
    return (Kind.PIPELINE, chosen[0] if len(chosen) == 1 else PipelineGroup(tuple(chosen)))


def _always_returns(block: cst.BaseSuite) -> bool:
    """Every path through the block ends at a ``return`` (the last statement is one, or an
    ``if``/``else`` whose every branch always returns)."""
    body = block.body if isinstance(block, cst.IndentedBlock) else ()
    last = body[-1] if body else None
    if isinstance(last, cst.SimpleStatementLine):
        return isinstance(last.body[-1], cst.Return)
    if isinstance(last, cst.If):
        orelse = last.orelse
        if orelse is None:
            return False
        rest = (
            _always_returns(orelse.body)
            if isinstance(orelse, cst.Else)
            else _always_returns(cst.IndentedBlock([orelse]))
        )
        return _always_returns(last.body) and rest
    return False
