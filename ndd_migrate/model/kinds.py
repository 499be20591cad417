"""What kind of value an expression of a module holds (:class:`~ndd_migrate.model.types.Kind`): a
pipeline, the batches ``run()`` gives, one batch, a list of pipelines, pipeline functions — read from
the module model, never from spelling.
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate.model import crossfile
from ndd_migrate.model.types import (
    DICT_VIEWS,
    HeldFunctions,
    ImportedPipeline,
    Kind,
    ModuleModel,
    PipelineFunction,
    one_of,
)
from ndd_migrate.syntax import cstutil

# Methods of a pipeline that give its next tuple of batches: `run()`, and the scheduled API's
# `outputs()` / `share_outputs()` (NDD003 rewrites each into `next(pipe)`).
_NEXT_BATCHES = ("run", "outputs", "share_outputs")


# Methods that give a batch back from a batch, in both modes (``as_cpu`` is pipeline mode's ``cpu``).
_BATCH_TO_BATCH = {"cpu", "gpu", "as_cpu"}


def expr_kind(model: ModuleModel, expr: cst.BaseExpression, scope_of, qualnames) -> tuple | None:
    """What an (original) expression holds: ``(Kind, PipelineFunction)`` or None when unknown.

    ``scope_of(name_node)`` gives the scope a name is looked up from; ``qualnames(node)`` its
    qualified names. One function for the analysis and for the rules, so both agree.
    """
    if isinstance(expr, cst.Name):
        return lookup(model, scope_of(expr), expr)
    if (
        isinstance(expr, cst.Attribute) and expr in model.attributes.reads
    ):  # `self.pipe` (ndd_migrate.model.values.attributes)
        return model.attributes.kinds.get(model.attributes.reads[expr])
    if isinstance(expr, cst.Call):
        return _call_kind(model, expr, scope_of, qualnames)
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
        return _item_kind(expr_kind(model, expr.value, scope_of, qualnames))
    # ``pipes = [P(...) for ...] if enabled else None``: the name holds the pipelines or nothing, so
    # what it is given to (a framework iterator that keeps them) is about those pipelines. The
    # expression itself stays an unclaimed use (uses.OTHER), so the pipeline is not converted for it.
    if isinstance(expr, cst.IfExp):
        sides = [side for side in (expr.body, expr.orelse) if not (isinstance(side, cst.Name) and side.value == "None")]
        if len(sides) == 1:
            return expr_kind(model, sides[0], scope_of, qualnames)
        # `out.as_cpu() if on_gpu else out`: the same kind of value either way (uses.CHOSEN).
        return chosen_kind(model, expr, scope_of, qualnames)
    if isinstance(expr, (cst.List, cst.Tuple, cst.Set, cst.Dict, cst.ListComp)):
        return _display_kind(model, expr, scope_of, qualnames)
    return None


def _item_kind(recv: tuple | None) -> tuple | None:
    """What ``value[i]`` holds, ``recv`` being what ``value`` holds."""
    if recv and recv[0] is Kind.BATCHES:
        return (Kind.BATCH, recv[1])
    if recv and recv[0] is Kind.PIPELINES:
        return (Kind.PIPELINE, recv[1])
    if recv and recv[0] is Kind.FUNCTIONS and recv[1].positions == {"values"}:
        return (Kind.FUNCTION, recv[1])  # `PIPELINES[mode]`: the class (or function) it maps to
    return None


def _call_kind(model: ModuleModel, expr: cst.Call, scope_of, qualnames) -> tuple | None:
    """A call that makes a pipeline (of a pipeline function, a factory, one imported, or a name that
    holds a pipeline function), or a method of a known value that gives one again."""
    method = model.self_calls.get(expr)  # `self.make()`: the class's own method (self_methods)
    for qual in (*qualnames(expr.func), *((method,) if method else ())):
        pipeline = model.pipelines.get(qual) or model.factories.get(qual) or imported(model, qual)
        if pipeline is not None:
            return (Kind.PIPELINE, pipeline)
    func = expr.func
    held = lookup(model, scope_of(func), func) if isinstance(func, cst.Name) else None
    if isinstance(func, cst.Subscript):  # `PIPELINES[mode](...)`
        held = expr_kind(model, func, scope_of, qualnames)
    if held and held[0] is Kind.FUNCTION:  # `cls(...)` in `for cls in held`
        return (Kind.PIPELINE, held[1])
    if isinstance(func, cst.Attribute) and not expr.args:
        return _method_kind(model, func, scope_of, qualnames)
    return None


def _method_kind(model: ModuleModel, func: cst.Attribute, scope_of, qualnames) -> tuple | None:
    """``receiver.method()`` (no arguments) of a known receiver: a dict view of a display of
    pipeline functions, a pipeline's next batches, a batch moved between devices."""
    recv = expr_kind(model, func.value, scope_of, qualnames)
    if recv and recv[0] is Kind.FUNCTIONS and func.attr.value in DICT_VIEWS and "items" not in recv[1].positions:
        return recv  # `held.keys()`: iterated as the dict is (loop_parts)
    if recv and recv[0] is Kind.PIPELINE and func.attr.value in _NEXT_BATCHES:
        return (Kind.BATCHES, recv[1])
    if recv and recv[0] is Kind.BATCH and func.attr.value in _BATCH_TO_BATCH:
        return recv
    return None


def _display_kind(model: ModuleModel, expr: cst.BaseExpression, scope_of, qualnames) -> tuple | None:
    """A list, tuple or comprehension of pipelines (or of outputs); else a display of pipeline
    functions (:func:`held_functions`)."""
    if isinstance(expr, (cst.List, cst.Tuple, cst.ListComp)):
        items = cstutil.pipeline_items(expr)
        kinds = [expr_kind(model, item, scope_of, qualnames) for item in items or ()]
        for item, listed in ((Kind.PIPELINE, Kind.PIPELINES), (Kind.BATCH, Kind.BATCHES)):
            # A list of outputs is read as the tuple `run()` gave: indexed, unpacked, iterated.
            if kinds and all(k is not None and k[0] is item for k in kinds):
                return (listed, one_of(k[1] for k in kinds))
    if isinstance(expr, (cst.List, cst.Tuple, cst.Set, cst.Dict)):
        held = held_functions(model, expr, qualnames)
        return (Kind.FUNCTIONS, held) if held else None
    return None


def chosen_kind(model: ModuleModel, expr: cst.IfExp, scope_of, qualnames) -> tuple | None:
    """``a if test else b`` where both sides hold a value of the same kind: that kind, else None."""
    sides = [expr_kind(model, side, scope_of, qualnames) for side in (expr.body, expr.orelse)]
    if all(side is not None for side in sides) and sides[0][0] is sides[1][0]:
        return (sides[0][0], one_of(side[1] for side in sides))
    return None


def held_functions(model: ModuleModel, display: cst.BaseExpression, qualnames) -> HeldFunctions | None:
    """The pipeline functions (or classes) a display names, when some place of it names only them:
    every item of a list, tuple or set; every key, or every value, of a dict (no ``*``/``**``)."""

    def named(expr) -> PipelineFunction | None:
        if not isinstance(expr, cst.Name):
            return None
        return next((model.pipelines[q] for q in qualnames(expr) if q in model.pipelines), None)

    places: dict[str, list] = {}
    if isinstance(display, cst.Dict):
        if not display.elements or not all(isinstance(e, cst.DictElement) for e in display.elements):
            return None
        places = {
            "keys": [named(e.key) for e in display.elements],
            "values": [named(e.value) for e in display.elements],
        }
    elif display.elements and all(isinstance(e, cst.Element) for e in display.elements):
        places = {"items": [named(e.value) for e in display.elements]}
    held = {place: fns for place, fns in places.items() if all(fns)}
    if not held:
        return None
    return HeldFunctions(tuple(dict.fromkeys(pipeline for fns in held.values() for pipeline in fns)), frozenset(held))


def loop_parts(
    held: HeldFunctions, iterated: cst.BaseExpression, target: cst.CSTNode
) -> list[tuple[cst.CSTNode | None, bool]]:
    """What each target of a loop over ``held`` (``iterated``: the display, a name of it, or a dict
    view of it) receives: (the target, or None where its shape does not fit the items, and whether it
    holds a pipeline function). ``for cls, args in held.items()`` gives the key and the value."""
    view = (
        iterated.func.attr.value
        if isinstance(iterated, cst.Call) and isinstance(iterated.func, cst.Attribute)
        else None
    )
    if view == "items":
        pair = ("keys" in held.positions, "values" in held.positions)
        elements = target.elements if isinstance(target, (cst.Tuple, cst.List)) else ()
        if len(elements) == 2 and all(isinstance(e, cst.Element) for e in elements):
            return [(e.value, holds) for e, holds in zip(elements, pair)]
        return [(None, True)]
    place = "values" if view == "values" else "items" if "items" in held.positions else "keys"
    return [(target, place in held.positions)]


def lookup(model: ModuleModel, scope, expr: cst.BaseExpression) -> tuple | None:
    """The Kind of a plain name as seen from ``scope`` (walking out to enclosing scopes); None for
    a read that sees the numpy array a converting rebinding gave (``ModuleModel.converted_reads``)."""
    if not isinstance(expr, cst.Name) or scope is None or expr in model.converted_reads:
        return None
    current = scope
    while True:
        if (current, expr.value) in model.kinds:
            return model.kinds[(current, expr.value)]
        if current.assignments[expr.value]:
            return None  # bound here, but not to something we understand
        parent = current.parent
        if parent is current:
            return None
        current = parent


#: ``out.as_array()``, ``out.at(i)``: a numpy array from an output, in both modes (NDD201 rewrites them).
_TO_ARRAY = {"as_array", "at"}


_NUMPY_OF = {"numpy.asarray", "numpy.array"}


def converts_to_array(expr: cst.BaseExpression, name: str, qualnames) -> bool:
    """Is ``expr`` ``name`` made a numpy array: ``name[.as_cpu()|.cpu()].as_array()``,
    ``name.at(i)``, or ``np.asarray``/``np.array`` of one of these?"""
    if not isinstance(expr, cst.Call):
        return False
    func = expr.func
    if isinstance(func, cst.Attribute) and func.attr.value in _TO_ARRAY:
        if (func.attr.value == "at") != bool(expr.args):
            return False
        receiver = func.value
        while (
            isinstance(receiver, cst.Call)
            and not receiver.args
            and isinstance(receiver.func, cst.Attribute)
            and receiver.func.attr.value in _BATCH_TO_BATCH
        ):
            receiver = receiver.func.value
        return isinstance(receiver, cst.Name) and receiver.value == name
    if qualnames(func) & _NUMPY_OF and len(expr.args) == 1 and expr.args[0].keyword is None and not expr.args[0].star:
        return converts_to_array(expr.args[0].value, name, qualnames)
    return False


def imported(model: ModuleModel, qualname: str) -> ImportedPipeline | None:
    """The pipeline another file of the run defines under ``qualname`` (as imported here), or None."""
    converted = crossfile.lookup(model.crossfile.imported, qualname) if model.crossfile.imported else None
    if converted is None:
        return None
    qualname = qualname.lstrip(".")
    on_disk = crossfile.lookup(model.crossfile.on_disk, qualname)
    return ImportedPipeline(qualname, converted, on_disk, converted and qualname in model.crossfile.epochs)
