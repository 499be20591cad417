"""How many outputs an expression of a pipeline function holds, read from the code (no DALI import).

``pipe.run()`` returns one batch per output of the graph, and the migrated generator must yield the
same tuple (docs/target-shape.md). What ``return EXPR`` gives is clear for a tuple or list display;
for a name or a call it depends on what the name holds or the call returns:

* an operator call: the op table's ``num_outputs`` (from DALI's schemas), or, for operators whose
  outputs depend on their arguments, the count those arguments give
  (:mod:`ndd_migrate.model.values.output_arity`);
* a name: what every binding of it in the function gives (an element of an unpacking is one output);
* a call of a function of the module (a helper building part of the graph): what all its returns give.

The answer is an :class:`Outputs` or, when it cannot be known, a sentence saying why.
:func:`read_function` reads every ``return`` of a ``@pipeline_def`` function for NDD001 (which
unpacks a returned tuple only: a returned list of outputs does not build in pipeline mode);
legacy ``define_graph`` methods use :class:`Reader` directly (ndd_migrate.model.sources.legacy).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
from libcst.metadata import Assignment, ScopeProvider

from ndd_migrate.dali.tables import op_info
from ndd_migrate.model.values import external_source
from ndd_migrate.model.values.output_arity import canonical_path, op_outputs
from ndd_migrate.model.values.returns import contains_return
from ndd_migrate.model.values.returns import read as read_returns
from ndd_migrate.syntax import cstutil, names, tree


@dataclass(frozen=True)
class Outputs:
    """What an expression holds, in pipeline mode (and so what it becomes in dynamic mode).

    ``form``:

    * ``"one"``: one output (a DataNode, then a Batch);
    * ``"tuple"``: a Python tuple of outputs in both modes (a tuple display, ``tuple(x)``);
    * ``"oplist"``: the outputs of a multi-output op or reader: a list of DataNodes in pipeline
      mode, a tuple in dynamic mode (``ndd`` ops return tuples, ``next_epoch`` yields them);
    * ``"list"``: a list in both modes (a list display, a ``python_function`` with ``num_outputs``);
    * ``"dict"``: ``readers.tfrecord``'s outputs, by feature name, in both modes.

    ``count`` is None when only the form is known (the loop target of a reader whose number of
    outputs depends on arguments that are not literals).
    """

    count: int | None
    form: str

    @property
    def several(self) -> bool:
        return self.form != "one"


ONE = Outputs(1, "one")
_MAX_DEPTH = 24  # names defined from names, helpers calling helpers


# What to write instead, in the problems that block a rewrite.
UNKNOWN_HINT = (
    "return a tuple of the outputs (`images, labels = helper(...)` then `return images, labels`), so that "
    "the generator can yield what `pipe.run()` returned"
)
READER_HINT = (
    "unpack the reader's outputs in the assignment (`images, boxes, labels = ...`) or give "
    "the arguments that decide their number as literals"
)
HELPER_READER_HINT = "create the reader in the pipeline function and pass its outputs to the helper"


class Reader:
    """Finds what the expressions of one pipeline function (and the helpers it calls) hold.

    ``resolver`` is the analyzer (it holds the QualifiedName and Scope metadata); ``reader`` the
    reader call whose statement becomes the generator's loop (its targets are the loop targets).
    ``of`` gives None for a name read while its own value is being read (``x = x * 2``)."""

    def __init__(self, resolver, reader: cst.Call | None = None, op_call=None) -> None:
        self.resolver = resolver
        self.reader = reader
        # For legacy pipelines: ``call → (fn path, call with the constructor's arguments)`` of an
        # operator object's call, or None.
        self.op_call = op_call
        self._bindings: dict[cst.FunctionDef, dict[str, list]] = {}
        self._mutations: dict[cst.FunctionDef, set[str]] = {}
        self._active: set[cst.Call] = set()  # helper calls being read
        self._names_active: set[tuple[cst.FunctionDef, str, int]] = set()
        # The helpers being read: parameter → (argument, function the call is in).
        self._arguments: dict[cst.FunctionDef, dict[str, tuple[cst.BaseExpression, cst.FunctionDef]]] = {}
        # Readers called in a helper the returned value comes from: made anew for every batch.
        self.helper_readers: list[tuple[cst.Call, str]] = []

    # -- expressions ---------------------------------------------------------------------------
    def returned(self, expr: cst.BaseExpression, function: cst.FunctionDef) -> Outputs | str:
        """What ``return expr`` in ``function`` gives, or why that is not known."""
        found = self.of(expr, function)
        return found if found is not None else f"`{cstutil.snippet(expr)}` is only defined in terms of itself"

    def of(self, expr: cst.BaseExpression, function: cst.FunctionDef, depth: int = 0) -> Outputs | str | None:
        if depth > _MAX_DEPTH:
            return "its value is built too deeply (names and helpers) to follow"
        if isinstance(expr, (cst.Tuple, cst.List)):
            starred = any(isinstance(el, cst.StarredElement) for el in expr.elements)
            form = "tuple" if isinstance(expr, cst.Tuple) else "list"
            return Outputs(None if starred else len(expr.elements), form)
        if isinstance(expr, cst.Name):
            return self._name(expr, function, depth)
        if isinstance(expr, cst.Call):
            return self._call(expr, function, depth)
        if isinstance(expr, cst.ListComp):
            return self._comprehension(expr, function, depth)
        if isinstance(expr, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison)):
            return self._operation(expr, function, depth)
        if isinstance(expr, cst.Subscript):
            return self._subscript(expr, function, depth)
        if isinstance(expr, cst.IfExp):
            found = {self.of(expr.body, function, depth + 1), self.of(expr.orelse, function, depth + 1)} - {None}
            if len(found) == 1 and isinstance(next(iter(found)), Outputs):
                return found.pop()
            return f"`{cstutil.snippet(expr)}`: its two branches are not known to give the same number of outputs"
        return f"`{cstutil.snippet(expr)}` is not an expression whose number of outputs ndd-migrate can read"

    def _operation(
        self, expr: cst.BinaryOperation | cst.UnaryOperation | cst.Comparison, function: cst.FunctionDef, depth: int
    ) -> Outputs | str | None:
        """Arithmetic or a comparison: one output when an operand is one and none is several;
        ``[a] + outputs`` (a list display or comprehension added) is a list of outputs."""
        if (
            isinstance(expr, cst.BinaryOperation)
            and isinstance(expr.operator, cst.Add)
            and any(isinstance(o, (cst.List, cst.ListComp)) for o in (expr.left, expr.right))
        ):
            return Outputs(None, "list")  # `[labels] + outputs`: a list of outputs, as long as it is at run time
        operands = (
            [expr.left, expr.right]
            if isinstance(expr, cst.BinaryOperation)
            else [expr.expression]
            if isinstance(expr, cst.UnaryOperation)
            else [expr.left, *(c.comparator for c in expr.comparisons)]
        )
        found = [self.of(o, function, depth + 1) for o in operands]
        if any(isinstance(f, Outputs) and f != ONE for f in found):
            return f"`{cstutil.snippet(expr)}` operates on several outputs"
        if any(f == ONE for f in found):
            return ONE  # arithmetic on a DataNode gives a DataNode
        if any(f is None for f in found):
            return None
        return f"`{cstutil.snippet(expr)}`: no operand is known to be one output"

    def _subscript(self, expr: cst.Subscript, function: cst.FunctionDef, depth: int) -> Outputs | str:
        """``x[i]``: one output, whether it indexes inside each sample or picks one of several."""
        base = self.of(expr.value, function, depth + 1)
        if base == ONE or base is None:
            return ONE  # indexing inside each sample
        if isinstance(base, Outputs) and all(isinstance(s.slice, cst.Index) for s in expr.slice):
            return ONE  # one output of several
        if isinstance(base, str) and all(isinstance(s.slice, cst.Index) for s in expr.slice):
            # `x[i]` of a value of unknown kind: slicing inside each sample or one element of a
            # container of outputs, one output either way; NDD108 blocks the rewrite, with the
            # precise reason, when it cannot tell which.
            return ONE
        return f"`{cstutil.snippet(expr)}`: what it picks is not known"

    def _call(self, call: cst.Call, function: cst.FunctionDef, depth: int) -> Outputs | str | None:
        dali = names.dali_name(self.resolver, call.func)
        path, arguments = self._operator(call, dali)
        if path is not None:
            return self._op_call(call, path, arguments)
        if names.math_function(dali):
            return ONE
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in ("gpu", "cpu") and not call.args:
            inner = self.of(call.func.value, function, depth + 1)
            return (
                ONE
                if inner == ONE or inner is None
                else f"`{cstutil.snippet(call)}` on something that is not one output"
            )
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "shape":  # `DataNode.shape()`: one output
            inner = self.of(call.func.value, function, depth + 1)
            return ONE if inner == ONE else f"`{cstutil.snippet(call)}` on something that is not one output"
        if (
            isinstance(call.func, cst.Name)
            and call.func.value in ("tuple", "list")
            and len(call.args) == 1
            and self._builtin(call.func)
        ):
            return self._conversion(call, function, depth)
        helper = self._helper(call)
        if isinstance(helper, str):
            return helper
        return self._helper_outputs(helper, call, function, depth)

    def _operator(self, call: cst.Call, dali: str | None) -> tuple[str | None, cst.Call]:
        """The ``fn`` path of the operator ``call`` runs (None when it runs none), and the call
        that gives the operator's arguments: ``call``, or a legacy operator object's constructor."""
        path = names.fn_path(dali)
        if path is None and self.op_call is not None:
            found = self.op_call(call)  # a legacy operator object: `self.resize(images)`
            if found is not None:
                return found
        return path, call

    def _op_call(self, call: cst.Call, path: str, arguments: cst.Call) -> Outputs | str:
        """What the call of the operator ``fn.<path>`` gives, its arguments those of ``arguments``."""
        if canonical_path(path) == "readers.tfrecord":
            return Outputs(None, "dict")  # one output per feature, by name
        if path == "external_source" and external_source.listed_outputs(arguments):
            return Outputs(None, "list")  # a list of outputs, as long as `num_outputs=` says at run time
        count = op_outputs(path, arguments)
        if call is self.reader and isinstance(count, str):
            return Outputs(None, "oplist")  # next_epoch yields a tuple, whatever its length
        if isinstance(count, str):
            return count
        if count < 1:
            return f"`fn.{path}(...)` has no outputs"
        return ONE if count == 1 else Outputs(count, "list" if path == "python_function" else "oplist")

    def _conversion(self, call: cst.Call, function: cst.FunctionDef, depth: int) -> Outputs | str | None:
        """``tuple(x)`` / ``list(x)`` of several outputs: the same outputs, in that container."""
        inner = self.of(call.args[0].value, function, depth + 1)
        if isinstance(inner, Outputs) and inner.several and inner.form != "dict":
            return Outputs(inner.count, call.func.value)
        return inner if inner is None else f"`{cstutil.snippet(call)}`: what it converts is not known to be outputs"

    def _comprehension(self, comp: cst.ListComp, function: cst.FunctionDef, depth: int) -> Outputs | str | None:
        """``[d.gpu() for d in outputs]``: one output per output of ``outputs``, a list in both modes.
        One ``for`` over several outputs, no ``if``, and an element that is one output made from the
        loop's name (the name itself, ``.gpu()``/``.cpu()`` of it, arithmetic with it, an op with one
        output on it)."""
        loop = comp.for_in
        if loop.inner_for_in is not None or loop.ifs or loop.asynchronous or not isinstance(loop.target, cst.Name):
            return f"`{cstutil.snippet(comp)}` is not one comprehension over outputs"
        if not self._one_of(comp.elt, loop.target.value):
            return f"`{cstutil.snippet(comp)}`: each element is not known to be one output"
        inner = self.of(loop.iter, function, depth + 1)  # None: `data = [... for d in data]`, read already
        if not isinstance(inner, Outputs) or not inner.several or inner.form == "dict":
            return (
                inner
                if inner is None or isinstance(inner, str)
                else f"`{cstutil.snippet(comp)}` does not iterate over outputs"
            )
        return Outputs(inner.count, "list")

    def _one_of(self, expr: cst.BaseExpression, name: str) -> bool:
        """Is ``expr`` one output made from the output ``name`` (see :meth:`_comprehension`)?"""
        if isinstance(expr, cst.Name):
            return expr.value == name
        if isinstance(expr, (cst.BinaryOperation, cst.UnaryOperation)):
            parts = [expr.left, expr.right] if isinstance(expr, cst.BinaryOperation) else [expr.expression]
            return any(self._one_of(p, name) for p in parts) and all(
                self._one_of(p, name) or cstutil.literal_value(p) is not cstutil.NOT_LITERAL for p in parts
            )
        if not isinstance(expr, cst.Call):
            return False
        func = expr.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("gpu", "cpu") and not expr.args:
            return self._one_of(func.value, name)
        path = names.fn_path(names.dali_name(self.resolver, func))
        positional = [a.value for a in expr.args if a.keyword is None]
        return (
            path is not None and op_outputs(path, expr) == 1 and bool(positional) and self._one_of(positional[0], name)
        )

    def _builtin(self, name: cst.Name) -> bool:
        scope = self.resolver.get_metadata(ScopeProvider, name, None)
        return scope is not None and not any(isinstance(a, Assignment) for a in scope[name.value])

    def _helper(self, call: cst.Call) -> cst.FunctionDef | str:
        spelled = cstutil.snippet(call.func)
        model = getattr(self.resolver, "model", None)
        method = model.self_calls.get(call) if model is not None else None
        if method is not None and isinstance(model.functions.get(method), cst.FunctionDef):
            return model.functions[method]  # `self.name()`, the class's own method (self_methods)
        if not isinstance(call.func, cst.Name):
            return f"`{spelled}(...)` is not a function of this module"
        scope = self.resolver.get_metadata(ScopeProvider, call.func, None)
        if scope is None:
            return f"`{spelled}` cannot be resolved"
        found = [a.node for a in scope[call.func.value] if isinstance(a, Assignment)]
        if len(found) != 1 or not isinstance(found[0], cst.FunctionDef):
            return f"`{spelled}` is not a function defined once in this module"
        return found[0]

    def _helper_outputs(
        self, helper: cst.FunctionDef, call: cst.Call, caller: cst.FunctionDef, depth: int
    ) -> Outputs | str | None:
        """What all the returns of ``helper`` give, its parameters read as the call's arguments."""
        name = helper.name.value
        if call in self._active:
            return f"`{name}` calls itself"
        finder = _Returns()
        tree.visit(helper.body, finder)
        if finder.yields:
            return f"`{name}` is a generator"
        if not finder.returns or any(r.value is None for r in finder.returns) or not read_returns(helper).ends:
            return f"`{name}` does not end with `return <outputs>` on every path"
        self._note_readers(finder.calls, name)
        found = self._returns_of(helper, finder.returns, call, caller, depth)
        found = [f for f in found if f is not None]
        if not found:
            return None  # only returns of values read while being read: they add nothing
        why = next((f for f in found if isinstance(f, str)), None)
        if why is not None:
            return f"in `{name}`: {why}"
        if len(set(found)) != 1 or found[0].count is None:
            return f"the returns of `{name}` do not all give the same outputs"
        return found[0]

    def _note_readers(self, calls: list[cst.Call], helper: str) -> None:
        """Records the readers among ``calls``, those of the helper ``helper`` (the returned value
        comes from it: called for every batch, it makes them anew)."""
        for inner in calls:
            info = op_info(names.fn_path(names.dali_name(self.resolver, inner.func)) or "")
            if info is not None and info.reader:
                self.helper_readers.append((inner, helper))

    def _returns_of(
        self, helper: cst.FunctionDef, returns: list[cst.Return], call: cst.Call, caller: cst.FunctionDef, depth: int
    ) -> list[Outputs | str | None]:
        """What each of ``returns`` gives, read while ``call`` is active and ``helper``'s
        parameters stand for its arguments (then as they were: the call may be inside the arguments
        of another call of the same helper)."""
        self._active.add(call)
        outer = self._arguments.get(helper)  # the same helper, called in the arguments of this call
        self._arguments[helper] = _arguments(helper, call, caller)
        try:
            return [self.of(r.value, helper, depth + 1) for r in returns]
        finally:
            self._active.discard(call)
            if outer is None:
                del self._arguments[helper]
            else:
                self._arguments[helper] = outer

    # -- names -----------------------------------------------------------------------------------
    def _name(self, name: cst.Name, function: cst.FunctionDef, depth: int) -> Outputs | str | None:
        """What every binding of the name gives; None while the name is being read already
        (``x = x * 2``: that binding then says nothing more than the others)."""
        bindings = self._bindings_of(function).get(name.value)
        if not bindings:
            return f"`{name.value}` is not assigned in `{function.name.value}`"
        key = (function, name.value, id(self._arguments.get(function)))  # per call of a helper
        if key in self._names_active:
            return None
        found = []
        self._names_active.add(key)
        try:
            for kind, value in bindings:
                if kind == "element":
                    found.append(ONE)
                elif kind == "value":
                    found.append(self.of(value, function, depth + 1))
                elif kind == "a parameter" and name.value in self._arguments.get(function, {}):
                    argument, caller = self._arguments[function][name.value]
                    found.append(self.of(argument, caller, depth + 1))
                else:
                    return f"`{name.value}` is bound by {kind}"
        finally:
            self._names_active.discard(key)
        found = [f for f in found if f is not None]
        if not found:
            return None
        why = next((f for f in found if isinstance(f, str)), None)
        if why is not None:
            return why
        if len(set(found)) != 1:
            return f"`{name.value}` is assigned values with different numbers of outputs"
        if found[0].form == "list" and name.value in self._mutated(function):
            return f"the list `{name.value}` is changed after it is built"
        return found[0]

    def _bindings_of(self, function: cst.FunctionDef) -> dict[str, list]:
        if function not in self._bindings:
            collector = _Bindings()
            for param in (*function.params.posonly_params, *function.params.params, *function.params.kwonly_params):
                collector.add(param.name.value, "a parameter")
            for extra in (function.params.star_arg, function.params.star_kwarg):
                if isinstance(extra, cst.Param):
                    collector.add(extra.name.value, "a parameter")
            tree.visit(function.body, collector)
            self._bindings[function] = collector.found
            self._mutations[function] = collector.receivers
        return self._bindings[function]

    def _mutated(self, function: cst.FunctionDef) -> set[str]:
        self._bindings_of(function)
        return self._mutations[function]


def _arguments(helper: cst.FunctionDef, call: cst.Call, caller: cst.FunctionDef) -> dict:
    """The helper's parameters given by the call, as ``name → (argument, caller)``."""
    if any(a.star for a in call.args):
        return {}
    found = {}
    positional = [*helper.params.posonly_params, *helper.params.params]
    if isinstance(call.func, cst.Attribute):  # `self.name(...)`: the first parameter is `self`
        positional = positional[1:]
    for param, arg in zip(positional, [a for a in call.args if a.keyword is None]):
        found[param.name.value] = (arg.value, caller)
    for arg in call.args:
        if arg.keyword is not None:
            found[arg.keyword.value] = (arg.value, caller)
    return found


class _Scoped(cstutil.SkipsTrivia, cst.CSTVisitor):
    """Visits one function's own body: not nested functions, classes, lambdas or comprehensions."""

    def visit_FunctionDef(self, node) -> bool:
        self.nested(node)
        return False

    def visit_ClassDef(self, node) -> bool:
        self.nested(node)
        return False

    def visit_Lambda(self, node) -> bool:
        return False

    def visit_ListComp(self, node) -> bool:
        return False

    def visit_SetComp(self, node) -> bool:
        return False

    def visit_DictComp(self, node) -> bool:
        return False

    def visit_GeneratorExp(self, node) -> bool:
        return False

    def nested(self, node) -> None:
        pass


class _Returns(_Scoped):
    def __init__(self) -> None:
        super().__init__()
        self.returns: list[cst.Return] = []
        self.calls: list[cst.Call] = []
        self.yields = False

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_Return(self, node: cst.Return) -> None:
        self.returns.append(node)

    def visit_Yield(self, node: cst.Yield) -> None:
        self.yields = True


class _Bindings(_Scoped):
    """``name → [(kind, value)]``: ``("value", expr)`` for ``name = expr``, ``("element", None)``
    for a name in an unpacking, else a phrase saying what binds it (``"a `for` loop"``)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: dict[str, list] = {}
        self.receivers: set[str] = set()  # `name.append(...)`, `name[i] = ...`, `name += ...`

    def add(self, name: str, kind: str, value=None) -> None:
        self.found.setdefault(name, []).append((kind, value))

    def nested(self, node) -> None:
        self.add(node.name.value, "a `def` or `class`")

    def _targets(self, target, kind: str, value=None) -> None:
        if isinstance(target, cst.Name):
            self.add(target.value, kind, value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                inner = el.value
                if isinstance(el, cst.StarredElement):
                    self._targets(inner, "a starred unpacking")
                else:
                    self._targets(inner, "element" if kind == "value" else kind)
        elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
            self.receivers.add(target.value.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            self._targets(t.target, "value", node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._targets(node.target, "value", node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):  # `x += 1` binds `x` to `x + 1`
            operator = getattr(cst, type(node.operator).__name__.removesuffix("Assign"))()
            self.add(node.target.value, "value", cst.BinaryOperation(node.target, operator, node.value))
            self.receivers.add(node.target.value)
        else:
            self._targets(node.target, "an augmented assignment")

    def visit_For(self, node: cst.For) -> None:
        self._targets(node.target, "a `for` loop")

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._targets(node.asname.name, "a `with` statement")

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._targets(node.target, "an assignment expression")

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        bound = node.asname.name if node.asname else node.name
        if isinstance(bound, cst.Name):
            self.add(bound.value, "an import")

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._targets(node.name.name, "an `except` clause")

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if isinstance(node.value, cst.Name):
            self.receivers.add(node.value.value)


def reader_name_used(
    function: cst.FunctionDef, reader_stmt: cst.CSTNode, rets: list[cst.Return], path_of
) -> str | None:
    """A reader whose number of outputs is not known, bound to one name: the loop binds the name to
    the tuple ``next_epoch`` yields, which is right only when the name is only ever returned whole
    (a single output was a DataNode in pipeline mode, not a tuple) at every ``return`` of ``rets``
    that returns it. Why not, or None.
    ``path_of(call)`` is the reader's ``fn`` path."""
    assign = reader_stmt.body[0]
    target = assign.targets[0].target
    if not isinstance(target, cst.Name) or path_of(assign.value) == "readers.tfrecord":
        return None  # a dict of outputs by feature name in both modes
    finder = _Uses(target.value)
    tree.visit(function.body, finder)
    returned = sum(isinstance(ret.value, cst.Name) and ret.value.value == target.value for ret in rets)
    if finder.count > 1 + returned:
        return (
            f"`{target.value}` holds all the outputs of a reader whose number of outputs is not known "
            "(arguments that are not literals), and it is used other than as the returned value"
        )
    return None


class _Uses(_Scoped):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.count = 0

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.count += 1


CONSTANT_HINT = (
    "return op outputs only (leave the constant out of the returned outputs and use it where the batches are "
    "read), then run ndd-migrate again"
)


def _python_constant(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, (cst.List, cst.Tuple)):
        return all(isinstance(el, cst.Element) and _python_constant(el.value) for el in expr.elements)
    return cstutil.literal_value(expr) is not cstutil.NOT_LITERAL


def constant_output(value: cst.BaseExpression) -> tuple[str, str] | None:
    """Why a returned tuple/list display holding a Python constant (``return images, 2``) cannot be
    yielded as ``pipe.run()`` gave it: the pipeline made the constant a batch (``types.Constant``, in
    ``Pipeline._build_graph``), dynamic mode would yield the Python value, which is no ``Batch``."""
    for el in value.elements if isinstance(value, (cst.Tuple, cst.List)) else ():
        if isinstance(el, cst.Element) and _python_constant(el.value):
            return (
                f"`{cstutil.snippet(el.value)}` is a Python constant returned as an output: the pipeline gave it as a batch "
                "of constants, the generator would yield the Python value",
                CONSTANT_HINT,
            )
    return None


def pipeline_def_problem(value: cst.BaseExpression, found: Outputs | str) -> tuple[str, str] | None:
    """Why ``return value`` of a ``@pipeline_def`` function cannot be yielded as ``pipe.run()``
    gave it, with what to write instead; None when it can.

    ``@pipeline_def`` unpacks a returned tuple only (``nvidia.dali.pipeline._generate_graph``):
    anything else is one output, and a list of outputs (``out = fn.readers.file(...)``, ``return
    out``) fails to build (``TypeError: ... nested DataNode``). A list display keeps its rewrite
    as a tuple display (``shape.yield_value``)."""
    if isinstance(value, (cst.Tuple, cst.List)):
        return constant_output(value)
    if isinstance(found, str):
        return f"the number of outputs is not known: {found}", UNKNOWN_HINT
    if found.form == "dict":
        return "the pipeline returns a dict of outputs, which DALI does not accept", "return the outputs as a tuple"
    if found.form == "list" or (found.form == "oplist" and found.count is not None):
        spelled = cstutil.snippet(value)
        return (
            (
                f"`{spelled}` is a list of {found.count or 'several'} outputs: `@pipeline_def` takes a returned list "
                "as ONE output, and DALI fails to build this pipeline (`TypeError: ... nested DataNode`)"
            ),
            f"return a tuple (`return tuple({spelled})`, or the outputs one by one) and run ndd-migrate again",
        )
    return None


def read_function(resolver, pipeline, is_reader) -> list[tuple[cst.CSTNode, str, str]]:
    """Reads what every ``return`` of the ``@pipeline_def`` function ``fn`` (an
    ``types.PipelineFunction`` whose returns were read: ``pipeline.returns``) gives, and sets
    ``pipeline.outputs`` (the final ``return``) and ``pipeline.branch_forms`` (the others); ``(node, why,
    hint)`` for what blocks the rewrite. Each ``return`` is yielded as the tuple it gave: branches
    may give different numbers of outputs (a flag of the pipeline picks one per pipeline object)."""
    problems: list[tuple[cst.CSTNode, str, str]] = []
    body = list(pipeline.node.body.body)

    def dali_path(call: cst.Call) -> str | None:
        return canonical_path(names.fn_path(names.dali_name(resolver, call.func)))

    anchor = next(
        (
            i
            for i, stmt in enumerate(body)
            if (call := cstutil.assigned_call(stmt)) is not None
            and (is_reader(call) or dali_path(call) == "external_source")
        ),
        None,
    )
    for stmt in body[:anchor] if anchor is not None else ():
        if contains_return(stmt):  # the reader is created once, before the loop
            problems.append(
                (
                    stmt,
                    "a `return` before the reader: dynamic mode creates the reader once, before the loop, on every path",
                    "create the reader first, or make two pipeline functions",
                )
            )
    rets = pipeline.returns.all
    reader = pipeline.top_level_readers[0] if pipeline.reader_index is not None else None
    finder = Reader(resolver, reader)
    found = [finder.returned(ret.value, pipeline.node) for ret in rets]
    for call, helper in dict.fromkeys(finder.helper_readers):
        problems.append(
            (
                call,
                f"`{helper}` creates a reader: called for every batch, it would restart the epoch each time",
                HELPER_READER_HINT,
            )
        )
    for ret, one in zip(rets, found):
        why = pipeline_def_problem(ret.value, one)
        if why is not None:
            return [*problems, (ret, *why)]
    final = pipeline.returns.final is not None
    pipeline.branch_forms = [one.form for one in (found[:-1] if final else found)]
    pipeline.outputs = found[-1] if final else None
    if reader is not None and pipeline.reader_outputs is None:
        stmt = body[pipeline.reader_index]
        why = reader_name_used(pipeline.node, stmt, rets, dali_path)
        if why:
            problems.append((stmt, why, READER_HINT))
    return problems
