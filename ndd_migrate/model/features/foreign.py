"""Pipelines made in a module this run does not see: the names NDD007 reports.

``main.py`` does ``from pipes import train_pipe``, ``pipe = train_pipe(...)``, ``pipe.build()``,
``pipe.run()``, and ``pipes.py`` is not in the run (pre-commit passes the staged files only). When
``pipes.py`` is migrated, these calls must change; nothing here can change them now, so NDD007 says
where they are (``CrossFile.foreign``).
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import QualifiedNameProvider, QualifiedNameSource

from ndd_migrate.model import crossfile
from ndd_migrate.syntax import names


def find(analyzer, methods_called: list[tuple[cst.Name, str]]) -> None:
    """Fill ``CrossFile.foreign``: (scope, name) → the qualified names of the imported functions
    that bind it. ``methods_called``: every ``name.build()`` / ``name.run()`` of the module.

    A name bound once from ``imported_function(...)`` on which both ``build()`` and ``run()`` are
    called is, in a file that mentions DALI, almost surely a pipeline made in a module this run
    does not see. A function that a project module outside the run is known to define as a
    pipeline (``Policy.outside_pipelines``) needs only one of the two: the object is a pipeline for
    sure, and so is a name rebound to several of them (``pipe = Train(...)``, later ``pipe =
    Val(...)``: the ResNet-50 example's lineage)."""
    model = analyzer.model
    methods: dict[tuple[object, str], set[str]] = {}
    for name, attr in methods_called:
        methods.setdefault((analyzer.scope_of(name), name.value), set()).add(attr)
    for scope, target, value in analyzer.assigns:
        if not (isinstance(target, cst.Name) and isinstance(value, cst.Call)):
            continue
        key = (scope, target.value)
        if not methods.get(key) or key in model.kinds or scope is None or key in model.crossfile.foreign:
            continue
        qual = _imported_callee(analyzer, value)
        if qual is None or crossfile.lookup(model.crossfile.imported, qual) is not None:
            continue
        assignments = scope.assignments[target.value]
        if len(assignments) == 1:
            if methods[key] == {"build", "run"} or crossfile.lookup(model.crossfile.outside, qual) is not None:
                model.crossfile.foreign[key] = (qual,)
            continue
        quals = [_outside_callee(analyzer, a.node) for a in assignments]
        if all(quals):
            model.crossfile.foreign[key] = tuple(dict.fromkeys(quals))


def _outside_callee(analyzer, target: cst.CSTNode) -> str | None:
    """The qualified name of the outside pipeline whose call the plain ``target = f(...)``
    statement binds, or None."""
    assign_target = analyzer.parents.get(target)
    assign = analyzer.parents.get(assign_target)
    if not (isinstance(assign_target, cst.AssignTarget) and isinstance(assign, cst.Assign)):
        return None
    if len(assign.targets) != 1 or not isinstance(assign.value, cst.Call):
        return None
    qual = _imported_callee(analyzer, assign.value)
    return qual if qual is not None and crossfile.lookup(analyzer.model.crossfile.outside, qual) is not None else None


def _imported_callee(analyzer, call: cst.Call) -> str | None:
    """The qualified name of the imported function ``call`` calls, unless it is DALI's."""
    return next(
        (
            q.name
            for q in analyzer.get_metadata(QualifiedNameProvider, call.func, None) or ()
            if q.source is QualifiedNameSource.IMPORT and not q.name.startswith(names.DALI + ".")
        ),
        None,
    )
