"""An operator called on an *input set* (``fn.cast([a, b], ...)``, ``self.cmn([a, b])``): one
``ndd`` call per element, when that gives what pipeline mode gives.

What pipeline mode does (DALI 2.4: ``ops/__init__.py``, ``Operator.__call__``;
``ops/_operator_utils.py``, ``_build_input_sets`` / ``_repack_output_sets``; each point checked on
the CPU by ``tests/test_input_sets.py``):

* A positional input that is a Python ``list`` holding a ``DataNode`` is an input set. The
  operator makes one *operator instance* per element, in order; other positional inputs are
  repeated for each, several lists are zipped (of one length, or it raises). A ``tuple`` is no
  input set: pipeline mode raises ``TypeError`` for it.
* Every instance gets the same arguments, and the same argument-input nodes: ``mirror=coin`` is one
  ``coin_flip`` shared by all elements, not one draw per element.
* The instances share the operator's logical id (``relation_id``), so the backend seeds them alike:
  a random operator (``random_resized_crop``, ``decoders.image_random_crop``, ``jitter``, ...)
  draws *the same* values for every element — the same crop window for an image and its mask.
  Separate ``ndd`` calls on one RNG draw anew each time, so those are not converted.
* The result: for one element, what a plain call gives (no list); for several, a list with one
  output per element, in order; for an operator with several outputs, the outputs grouped by
  output (``[[out0_a, out0_b], [out1_a, out1_b]]``), which is not converted.

The per-element form evaluates the call's other arguments once per element, so it is written only
when none of them holds a call (``mirror=fn.random.coin_flip()`` inline would draw once per
element instead of once).
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate.syntax import cstutil, tree
from ndd_migrate.syntax.cstutil import fresh

_CONSTANTS = ("Constant", "ScalarConstant")  # `types.Constant(1)` in an input set is a constant input


def lists(call: cst.Call) -> list[int]:
    """Positions (in ``call.args``) of the positional arguments that are list displays."""
    return [i for i, a in enumerate(call.args) if a.keyword is None and not a.star and isinstance(a.value, cst.List)]


def obstacle(call: cst.Call, random: bool, outputs: int | None, extra: list[cst.Arg] = ()) -> str | None:
    """Why the input sets of ``call`` cannot become one call per element, or None when they can.

    ``random``/``outputs``: the operator's (``OpInfo.random``, ``num_outputs``); ``extra``:
    arguments the call takes from elsewhere (a legacy operator's constructor)."""
    found = lists(call)
    items = [call.args[i].value.elements for i in found]
    why = _inputs_obstacle(call, items)
    if why is not None:
        return why
    count = len(items[0]) if items else 0
    return _instances_obstacle(count, random, outputs) or _arguments_obstacle(call, found, extra, count)


def _inputs_obstacle(call: cst.Call, items: list) -> str | None:
    """Why the input sets themselves (``items``: the elements of each) cannot be split, or None: a
    tuple, elements unpacked from elsewhere, no element, lengths that differ, a constant element."""
    if any(a.keyword is None and not a.star and isinstance(a.value, cst.Tuple) for a in call.args):
        return "a tuple of inputs, which pipeline mode rejects as well (an input set is a list)"
    if any(isinstance(e, cst.StarredElement) for elements in items for e in elements):
        return "its list of inputs is unpacked from another (`*`): how many outputs it gives is not known"
    if any(len(elements) == 0 for elements in items):
        return "an empty list of inputs"
    if len({len(elements) for elements in items}) > 1:
        return "lists of inputs of different lengths, which pipeline mode rejects"
    for elements in items:
        for e in elements:
            if _is_constant(e.value):
                return (
                    f"the input `{cstutil.code(e.value)}` of the input set is a constant, which pipeline mode "
                    "turns into a constant node for the whole set"
                )
    return None


def _instances_obstacle(count: int, random: bool, outputs: int | None) -> str | None:
    """Why ``count`` instances of the operator give what separate calls would not, or None: they
    draw alike, or their outputs come grouped by output."""
    if count > 1 and random:
        return (
            "pipeline mode seeds its instances alike (one logical operator), so every input gets the same "
            "random draws (the same crop for an image and its mask), where separate `ndd` calls on one RNG draw anew"
        )
    if count > 1 and outputs != 1:
        return (
            "the operator has several outputs"
            if outputs
            else "the operator may have several outputs (they depend on its arguments)"
        ) + (", which pipeline mode gives grouped by output (`[[out0_a, out0_b], [out1_a, out1_b]]`)")
    return None


def _arguments_obstacle(call: cst.Call, found: list[int], extra, count: int) -> str | None:
    """Why the call's other arguments (those not at ``found``, and ``extra``) cannot be repeated in
    each of the ``count`` calls, or None: passed through ``*``, or computed by a call."""
    others = [a for i, a in enumerate(call.args) if i not in found] + list(extra)
    if any(a.star == "*" for a in others):
        return "inputs passed through `*`: which of them are input sets is not known"
    if count > 1:
        for a in others:
            if _has_call(a.value):
                what = f"{a.keyword.value}=" if a.keyword is not None else ("**" if a.star else "")
                return (
                    f"the argument `{what}{cstutil.code(a.value)}` would be evaluated once per input, where pipeline "
                    "mode evaluates it once for all of them"
                )
    return None


def hint(ndd_path: str, inputs: cst.BaseExpression, random: bool) -> str:
    """What to write by hand instead of a blocked input set. For a random operator: one call per
    input, each on the same RNG state (a clone taken before the last call draws from the RNG), which
    gives every input the same draws as pipeline mode does (checked by tests/test_input_sets.py)."""
    code = cstutil.code(inputs)
    if random and isinstance(inputs, cst.List) and len(inputs.elements) > 1:
        first, last = (cstutil.code(e.value) for e in (inputs.elements[0], inputs.elements[-1]))
        return (
            f"write one call per input, all drawing from one RNG state, as pipeline mode does "
            f"(`[ndd.{ndd_path}({first}, ..., rng=rng.clone()), ..., ndd.{ndd_path}({last}, ..., rng=rng)]`)"
        )
    return f"call the operator once per input (`[ndd.{ndd_path}(x, ...) for x in {code}]`)"


def per_element(call: cst.Call, layout: bool = False) -> cst.BaseExpression:
    """``op([a, b], y=1)`` → ``[op(x, y=1) for x in [a, b]]`` (``zip`` for several lists; names not
    used by the call); ``op([a])`` → ``op(a)``. ``obstacle`` must have returned None. ``layout``:
    the call is written on several lines (its arguments two levels in), so the comprehension is
    too, the element and the ``for`` on lines of their own, as black writes it."""
    found = lists(call)
    if not found:
        return call
    if len(call.args[found[0]].value.elements) == 1:
        args = [a.with_changes(value=a.value.elements[0].value) if i in found else a for i, a in enumerate(call.args)]
        return call.with_changes(args=args)
    used = _names(call)
    targets = [cst.Name(fresh(base, used)) for base in ("x", "y", "z", "w")[: len(found)]]
    targets += [cst.Name(fresh("x", used)) for _ in range(len(found) - len(targets))]
    by_position = dict(zip(found, targets))
    args = [a.with_changes(value=by_position[i]) if i in by_position else a for i, a in enumerate(call.args)]
    element = call.with_changes(args=args)
    sets = [call.args[i].value for i in found]
    if len(found) == 1:
        target: cst.BaseAssignTargetExpression = targets[0]
        iterable: cst.BaseExpression = sets[0]
    else:
        target = cst.Tuple([cst.Element(t) for t in targets], lpar=[], rpar=[])
        iterable = cst.Call(cst.Name("zip"), [cst.Arg(s) for s in sets])
    comp = cst.ListComp(element, cst.CompFor(target=target, iter=iterable))
    if not layout:
        return comp
    return comp.with_changes(
        lbracket=cst.LeftSquareBracket(whitespace_after=_break("    ")),
        for_in=comp.for_in.with_changes(whitespace_before=_break("    ")),
        rbracket=cst.RightSquareBracket(whitespace_before=_break("")),
    )


def _break(indent: str) -> cst.ParenthesizedWhitespace:
    return cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(indent))


def _is_constant(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.UnaryOperation):
        expr = expr.expression
    if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)):
        return True
    if isinstance(expr, cst.Name) and expr.value in ("None", "True", "False"):
        return True
    if isinstance(expr, cst.Call):
        func = expr.func
        last = (
            func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
        )
        return last in _CONSTANTS
    return False


def _has_call(expr: cst.CSTNode) -> bool:
    """``expr`` runs code of its own when evaluated (a call, a lambda, a walrus, ...)."""
    finder = _Finds()
    tree.visit(expr, finder)
    return finder.found


class _Finds(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(
            node,
            (
                cst.Call,
                cst.Lambda,
                cst.NamedExpr,
                cst.Yield,
                cst.Await,
                cst.ListComp,
                cst.GeneratorExp,
                cst.SetComp,
                cst.DictComp,
            ),
        ):
            self.found = True
        return not self.found


def _names(node: cst.CSTNode) -> set[str]:
    class _Names(cst.CSTVisitor):
        def __init__(self) -> None:
            self.names: set[str] = set()

        def visit_Name(self, name: cst.Name) -> None:
            self.names.add(name.value)

    visitor = _Names()
    tree.visit(node, visitor)
    return visitor.names | {"zip"}
