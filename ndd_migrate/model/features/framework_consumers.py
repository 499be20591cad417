"""Which framework a pipeline is handed to, where it is not PyTorch's: the uses that keep a
pipeline in pipeline mode on purpose (NDD411), because dynamic mode converts batches for PyTorch
only and the drop-ins of the support module cover JAX's and Paddle's iterators but not MXNet's or
TensorFlow's.

The iterator may be named (``MXNetIterator(pipes, ...)``), be TensorFlow's ``DALIIterator`` op
(``op = dali_tf.DALIIterator(); op(pipeline=pipe, ...)``), or be a class chosen at run time (a
parameter, ``def run(Iterator): Iterator(pipes, ...)``) in a module whose functions hand out
another framework's iterator class.
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate.model import constructs
from ndd_migrate.model.features.iterators import FRAMEWORKS, OTHER_ITERATORS, REWRITTEN, listed
from ndd_migrate.syntax import names


def framework_uses(resolver, returns, calls) -> list[tuple]:
    """The pipelines given to an iterator of another framework (MXNet, TensorFlow; those of JAX and
    PaddlePaddle are NDD411's, REWRITTEN), as uses that keep them in pipeline mode (``(call, code, expression, (message,
    hint))``, see :mod:`ndd_migrate.model.features.manual_uses`): dynamic mode converts its batches for PyTorch
    only (``.torch()``), and has no iterator for these frameworks. Also found:

    * TensorFlow's ``DALIIterator`` is an op factory: ``daliop = dali_tf.DALIIterator()`` and then
      ``daliop(pipeline=pipe, ...)`` (or ``DALIIterator()(pipeline=pipe)``) runs the pipeline;
    * an iterator class chosen at run time (a parameter: ``def test(IteratorClass): IteratorClass(pipes)``,
      or its op, ``daliop = IteratorClass(); daliop(pipeline=pipe)``) in a module whose functions
      hand out DALI iterator classes of another framework (``return MXNetIterator``): the
      pipeline goes to one of those.

    ``calls`` are the analysis' ``(call, qualified name)``s, ``returns`` the module's ``return``
    statements; ``resolver`` is the analysis (it resolves DALI names and scopes, and knows the
    module's assignments)."""
    uses = []
    ops = _bound_to(
        resolver, lambda value: isinstance(value, cst.Call) and names.dali_name(resolver, value.func) == TF_ITERATOR
    )
    chosen = _handed_out(resolver, returns)
    for call in {id(call): call for call, _ in calls}.values():
        fed = _fed_framework(resolver, call, ops, chosen)
        if fed is None:
            continue
        framework, given, why = fed
        if given is None:
            continue
        advice = (
            why,
            f"keep it in pipeline mode for {framework}: dynamic mode hands out batches for PyTorch only "
            f"(`.torch()`); or iterate the migrated generator yourself and convert each batch for {framework} "
            "(e.g. through DLPack), ending each epoch at `reader.get_metadata()['epoch_size']`",
        )
        uses.extend((call, constructs.FRAMEWORK_ITERATOR, item, advice) for item in listed(given))
    return uses


def _fed_framework(resolver, call: cst.Call, ops: set, chosen: set[str]) -> tuple | None:
    """``(framework, the pipeline expression given or None, why)`` when ``call`` feeds an iterator
    of another framework (see :func:`framework_uses`: the iterator, TensorFlow's op, or a class
    chosen at run time among ``chosen``), else None."""
    dali = names.dali_name(resolver, call.func)
    framework = FRAMEWORKS.get(dali.split(".")[3]) if dali in OTHER_ITERATORS and dali not in REWRITTEN else None
    if framework is not None and call.args:
        short = dali.rsplit(".", 1)[-1]
        given = call.args[0].value if call.args[0].keyword is None and not call.args[0].star else None
        given = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "pipelines"), given)
        return framework, given, f"its pipeline feeds {framework}'s `{short}`, which has no dynamic-mode form"
    if _is_op(resolver, ops, call.func):
        op = call.func.value if isinstance(call.func, cst.Name) else "DALIIterator()"
        why = f"its pipeline feeds `{op}(pipeline=...)`, TensorFlow's `DALIIterator` op, which has no dynamic-mode form"
        return "TensorFlow", _pipeline_kwarg(call), why
    if chosen and (param := _runtime_class(resolver, call.func)) is not None:
        return _fed_chosen_class(call, chosen, param)
    return None


def _fed_chosen_class(call: cst.Call, chosen: set[str], param: str) -> tuple:
    """:func:`_fed_framework` for a call of the iterator class the parameter ``param`` holds, or of
    its op (``daliop = IteratorClass(); daliop(pipeline=pipe)``)."""
    others = sorted({FRAMEWORKS[d.split(".")[3]] for d in chosen if d in OTHER_ITERATORS})
    framework = " and ".join([", ".join(others[:-1]), others[-1]] if len(others) > 1 else others)
    given = _pipeline_kwarg(call) if not isinstance(call.func, cst.Name) or call.func.value != param else None
    if given is None and call.args and call.args[0].keyword is None and not call.args[0].star:
        given = call.args[0].value
    classes = ", ".join(_framework_class(d) for d in sorted(chosen))
    if isinstance(call.func, cst.Name) and call.func.value == param:
        how = f"`{param}(...)`,"
    else:
        op = call.func.value if isinstance(call.func, cst.Name) else f"{param}()"
        how = f"`{op}(pipeline=...)`, the op of `{param}`,"
    why = (
        f"its pipeline feeds {how} an iterator class chosen at run time among those this module hands "
        f"out ({classes}): those of {framework} have no dynamic-mode form"
    )
    return framework, given, why


TF_ITERATOR = "nvidia.dali.plugin.tf.DALIIterator"


def _framework_class(dali: str) -> str:
    fw = dali.split(".")[3]
    return f"{FRAMEWORKS.get(fw, 'PyTorch')}'s `{dali.rsplit('.', 1)[-1]}`"


def _pipeline_kwarg(call: cst.Call) -> cst.BaseExpression | None:
    return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "pipeline"), None)


def _binding(resolver, name: cst.Name):
    """The scope ``name`` is bound in, as seen from where it is read, and its assignments there."""
    scope = resolver.scope_of(name)
    while scope is not None and not scope.assignments[name.value]:
        scope = None if scope.parent is scope else scope.parent
    return scope, (scope.assignments[name.value] if scope is not None else ())


def _bound_to(resolver, test) -> set:
    """``(scope, name)`` of the names every assignment of which (in its scope) passes ``test``."""
    seen: dict = {}
    for scope, target, value in resolver.assigns:
        if isinstance(target, cst.Name):
            key = (scope, target.value)
            seen[key] = seen.get(key, True) and bool(test(value))
    return {key for key, ok in seen.items() if ok}


def _is_op(resolver, ops: set, func: cst.BaseExpression) -> bool:
    """Is ``func`` TensorFlow's DALI op: ``DALIIterator()``, or a name bound to one?"""
    if isinstance(func, cst.Call):
        return names.dali_name(resolver, func.func) == TF_ITERATOR
    if isinstance(func, cst.Name):
        scope, _ = _binding(resolver, func)
        return (scope, func.value) in ops
    return False


def _runtime_class(resolver, func: cst.BaseExpression) -> str | None:
    """The parameter ``func`` is, or whose call made it (``daliop = IteratorClass()``), or None."""
    if isinstance(func, cst.Call):
        func = func.func
    if not isinstance(func, cst.Name):
        return None
    _, assignments = _binding(resolver, func)
    assignments = list(assignments)
    if assignments and all(isinstance(getattr(a, "node", None), cst.Param) for a in assignments):
        return func.value
    values = [
        v
        for sc, t, v in resolver.assigns
        if isinstance(t, cst.Name) and t.value == func.value and sc is _binding(resolver, func)[0]
    ]
    if values and len(values) == len(assignments) and all(isinstance(v, cst.Call) for v in values):
        made = {_runtime_class(resolver, v.func) if isinstance(v.func, cst.Name) else None for v in values}
        if len(made) == 1 and None not in made:
            return made.pop()
    return None


def _handed_out(resolver, returns) -> set[str]:
    """The DALI iterator classes the module's functions return (``return MXNetIterator``; ``returns``
    are the module's ``return`` statements, as the analysis met them), when one of them is another
    framework's (a module that picks its iterator class at run time)."""
    found = {names.dali_name(resolver, node.value) for node in returns if node.value is not None}
    found = {dali for dali in found if dali in OTHER_ITERATORS or dali in REWRITTEN}
    return found if found & OTHER_ITERATORS else set()
