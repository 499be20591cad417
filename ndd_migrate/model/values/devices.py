"""Which device each value of graph code is on, and the arithmetic that mixes two of them.

Pipeline mode ran an arithmetic operation (``a * b``, a comparison, an ``nvidia.dali.math``
function) on the GPU when one of its inputs was there, and moved the others to it
(``nvidia/dali/ops/_operators/math.py``). Dynamic mode refuses the mix: ``_arithm_op`` raises
"Cannot mix GPU and CPU inputs" (Python numbers and lists it places itself). So a migrated
``images * fn.random.uniform(...)`` with ``images`` decoded on the GPU fails on its first batch,
and only on a GPU machine.

:class:`Devices` follows the devices through the graph code of a module in the order it runs:
each pipeline's graph function, and each helper it calls, once per combination of devices its
callers give it (nnUNet's ``random_augmentation(p, augmented, original)`` is called with GPU
images and with a CPU random number), so an operand is moved only where it must be:

* a CPU operand whose partner is on the GPU in every call: ``b.gpu()``;
* one whose partner's device differs from call to call, or that only the run decides
  (``if load_to_gpu: img = img.gpu()``): ``to_gpu_with(b, a)`` of the support module, which moves
  ``b`` when ``a`` is on the GPU, which needs ``a`` to be a name (read twice, evaluated once);
* otherwise (the partner an expression whose device the run decides) the pipeline stays in
  pipeline mode, with the reason (NDD111).

A module none of whose graph code can put a value on the GPU is left alone at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from ndd_migrate.model.values.graph_code import LITERALS
from ndd_migrate.model.values.graph_functions import Function, self_attr
from ndd_migrate.syntax import cstutil, names

CPU, GPU, PY = "cpu", "gpu", "py"  # a DALI value on the CPU, on the GPU; a Python value
#: A graph constant (``types.Constant(...)``, one made in ``__init__``): on the CPU, and in dynamic
#: mode a numpy array (``dali_constant``), which has no ``.gpu()``.
CONST = "const"
UNKNOWN = None  # a DALI value whose device only the run decides, or anything not followed

#: ``types`` functions that make a graph node: on the CPU unless given a ``device=``.
_CONSTANTS = frozenset({"Constant", "ScalarConstant"})
_COMPREHENSIONS = (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp)
_ELEMENTS = (cst.DictElement, cst.Element, cst.StarredDictElement, cst.StarredElement)
NOT_GIVEN = object()  # no `device=` among an op's arguments
#: Helpers followed this deep (a call chain), past which a call's result is unknown.
_DEPTH = 12


@dataclass(eq=False)
class Operation:
    """An arithmetic operation of graph code: its operands and, for each time it ran, their devices."""

    node: cst.CSTNode
    operands: list[cst.BaseExpression]
    function: cst.CSTNode
    seen: set[tuple] = field(default_factory=set)


@dataclass(frozen=True)
class Move:
    """How an operand gets to its partner's device: ``.gpu()`` (``witnesses`` empty) or
    ``to_gpu_with(operand, *witnesses)``."""

    witnesses: tuple[str, ...] = ()


@dataclass
class Frame:
    function: Function
    returns: list = field(default_factory=list)


def choice(device) -> bool:
    """A device the run chooses (``"?<n>"``): the same one wherever the same choice flows."""
    return isinstance(device, str) and device.startswith("?")


def _undecided(device) -> bool:
    return device is UNKNOWN or choice(device)


def combined(devices) -> str | None:
    """The device of an operation of values on ``devices``: the GPU when one is there."""
    flat = [_flat(d) for d in devices]
    if GPU in flat:
        return GPU
    choices = {d for d in flat if choice(d)}
    if UNKNOWN in flat or len(choices) > 1:
        return UNKNOWN
    if choices:
        return choices.pop()
    return CPU if CPU in flat or CONST in flat else PY


def _flat(device):
    if isinstance(device, tuple):
        return combined(device) if device else PY
    return device


def _element(device):
    """The device of one element of a value on ``device`` (unpacked, iterated)."""
    return _flat(device) if isinstance(device, tuple) else device


class Devices:
    """Runs the graph code of ``graph`` (:class:`ndd_migrate.model.values.graph_code.Graph`) on devices."""

    def __init__(self, graph) -> None:
        self.graph = graph
        self.operations: dict[cst.CSTNode, Operation] = {}
        self.gpu = False  # some graph code may put a value on the GPU
        self._memo: dict[tuple, object] = {}
        self._active: list[tuple] = []
        self._self: dict[str, object] = {}  # `self.x = ...` in graph code (a legacy pipeline's)
        self._choices: dict[object, str] = {}

    # -- choices -------------------------------------------------------------------------------
    def _choice(self, site) -> str:
        """The device chosen at ``site`` (a branch's join, a ``device=`` only the run knows)."""
        return self._choices.setdefault(site, f"?{len(self._choices)}")

    def _join(self, a, b, site):
        """Two branches' devices for one value: the same, or the one the run chooses at ``site``."""
        if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
            return tuple(self._join(x, y, (site, i)) for i, (x, y) in enumerate(zip(a, b)))
        if a == b:
            return a
        if a is UNKNOWN or b is UNKNOWN or isinstance(a, tuple) or isinstance(b, tuple):
            return UNKNOWN
        return self._choice(site)

    def _joined(self, envs: list[dict], site) -> dict:
        found = {}
        for name in set().union(*envs):
            found[name] = self._reduce([env.get(name, UNKNOWN) for env in envs], (site, name))
        return found

    def _reduce(self, devices, site):
        found = devices[0]
        for device in devices[1:]:
            found = self._join(found, device, site)
        return found

    def run(self) -> None:
        for function, _owners, is_root in self.graph.graph_functions():
            if is_root:
                self._invoke(function, {})

    def moves(
        self,
    ) -> tuple[list[tuple[Operation, cst.BaseExpression, Move]], list[tuple[Operation, cst.BaseExpression]]]:
        """The operands to move ``(operation, operand, how)`` and those that could be moved only
        with a partner that is not a name ``(operation, operand)``: original nodes."""
        moves = []
        undecided = []
        if not self.gpu:
            return moves, undecided
        for operation in self.operations.values():
            for index, operand in enumerate(operation.operands):
                decided = decide(operation, index)
                if decided is False:
                    undecided.append((operation, operand))
                elif decided is not None:
                    moves.append((operation, operand, decided))
        return moves, undecided

    # -- functions -----------------------------------------------------------------------------
    def _invoke(self, function: Function, bound: dict):
        key = (function.node, tuple(sorted(bound.items(), key=lambda item: item[0])))
        if key in self._memo:
            return self._memo[key]
        if key in self._active or len(self._active) >= _DEPTH:
            return UNKNOWN
        self._active.append(key)
        try:
            env = {p.name.value: bound.get(p.name.value, PY) for p in function.params}
            frame = Frame(function)
            node = function.node
            if isinstance(node, cst.Lambda):
                frame.returns.append(self.value(node.body, env, frame))
            elif isinstance(node.body, cst.IndentedBlock):
                self._block(node.body.body, env, frame)
            else:
                self._statement(node.body, env, frame)
            found = self._reduce(frame.returns, (node, "return")) if frame.returns else PY
        finally:
            self._active.pop()
        self._memo[key] = found
        return found

    def _arguments(self, callee: Function, call: cst.Call, values: list) -> dict:
        params = list(callee.params)
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and params:
            params = params[1:]  # `self.method(...)`: `self` is bound by the call
        if any(arg.star for arg in call.args):
            return {p.name.value: UNKNOWN for p in params}
        bound = {}
        positional = [v for arg, v in zip(call.args, values) if arg.keyword is None]
        plain = [p for p in params if p.star not in ("*", "**")]
        for param, value in zip(plain, positional):
            bound[param.name.value] = value
        for arg, value in zip(call.args, values):
            if arg.keyword is not None:
                bound[arg.keyword.value] = value
        for param in params:
            if param.star in ("*", "**"):
                bound[param.name.value] = UNKNOWN
        return bound

    # -- statements ----------------------------------------------------------------------------
    def _block(self, stmts, env: dict, frame: Frame) -> None:
        for stmt in stmts:
            self._statement(stmt, env, frame)

    def _statement(self, stmt: cst.CSTNode, env: dict, frame: Frame) -> None:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self._small(small, env, frame)
        elif isinstance(stmt, cst.If):
            self.value(stmt.test, env, frame)
            self._branches(stmt, env, frame, [stmt.body.body, _else_body(stmt.orelse)])
        elif isinstance(stmt, (cst.For, cst.While)):
            self._loop(stmt, env, frame)
        elif isinstance(stmt, cst.With):
            for item in stmt.items:
                self.value(item.item, env, frame)
                if item.asname is not None:
                    self._bind(item.asname.name, UNKNOWN, env)
            self._block(stmt.body.body, env, frame)
        elif isinstance(stmt, cst.Try):
            self._block(stmt.body.body, env, frame)
            self._branches(stmt, env, frame, [[], *(h.body.body for h in stmt.handlers)])
            if stmt.orelse is not None:
                self._block(stmt.orelse.body.body, env, frame)
            if stmt.finalbody is not None:
                self._block(stmt.finalbody.body.body, env, frame)
        elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            env[stmt.name.value] = UNKNOWN  # not followed: a callback, a local class

    def _branches(self, site, env: dict, frame: Frame, bodies: list) -> None:
        outcomes = []
        for body in bodies:
            branch = dict(env)
            self._block(body, branch, frame)
            outcomes.append(branch)
        joined = self._joined(outcomes, site)
        env.clear()
        env.update(joined)

    def _loop(self, stmt, env: dict, frame: Frame) -> None:
        before = dict(env)
        for _ in range(2):  # again when a pass changed a device: what it binds reaches the next
            entered = dict(env)
            if isinstance(stmt, cst.For):
                self._bind(stmt.target, _element(self.value(stmt.iter, env, frame)), env)
            else:
                self.value(stmt.test, env, frame)
            self._block(stmt.body.body, env, frame)
            joined = self._joined([before, env], stmt)
            env.clear()
            env.update(joined)
            if joined == entered:
                break
        if stmt.orelse is not None:
            self._block(stmt.orelse.body.body, env, frame)

    def _small(self, small: cst.CSTNode, env: dict, frame: Frame) -> None:
        if isinstance(small, cst.Assign):
            value = self.value(small.value, env, frame)
            for target in small.targets:
                self._bind(target.target, value, env)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self._bind(small.target, self.value(small.value, env, frame), env)
        elif isinstance(small, cst.AugAssign):
            devices = [self.value(small.target, env, frame), self.value(small.value, env, frame)]
            self._record(small, [small.target, small.value], devices, frame)
            self._bind(small.target, combined(devices), env)
        elif isinstance(small, cst.Return):
            frame.returns.append(self.value(small.value, env, frame) if small.value is not None else PY)
        elif isinstance(small, cst.Expr):
            self.value(small.value, env, frame)

    def _bind(self, target: cst.CSTNode, value, env: dict) -> None:
        if isinstance(target, cst.Name):
            env[target.value] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = target.elements
            exact = isinstance(value, tuple) and len(value) == len(elements)
            for index, element in enumerate(elements):
                if isinstance(element, cst.StarredElement):
                    self._bind(element.value, UNKNOWN, env)
                else:
                    self._bind(element.value, value[index] if exact else _element(value), env)
        else:
            attr = self_attr(target)
            if attr is not None:
                self._self[attr] = self._join(self._self[attr], value, attr) if attr in self._self else value

    # -- expressions ---------------------------------------------------------------------------
    def value(self, expr: cst.BaseExpression, env: dict, frame: Frame):
        """The device of ``expr`` where it runs; records the arithmetic in it on the way."""
        if isinstance(expr, cst.Name):
            if expr.value in env:
                return env[expr.value]
            return PY if self.graph.kind(expr) == "py" else UNKNOWN
        if isinstance(expr, LITERALS):
            return PY
        for kinds, read in self._readers:
            if isinstance(expr, kinds):
                return getattr(self, read)(expr, env, frame)
        for child in expr.children:  # a dict display, an await, ...: the arithmetic inside
            parts = child.children if isinstance(child, _ELEMENTS) else (child,)
            for part in parts:
                if isinstance(part, cst.BaseExpression):
                    self.value(part, env, frame)
        return UNKNOWN

    def _operation(self, expr, env: dict, frame: Frame):
        if isinstance(expr, cst.BinaryOperation):
            operands = [expr.left, expr.right]
        else:
            operands = [expr.left, *(c.comparator for c in expr.comparisons)]
        devices = [self.value(o, env, frame) for o in operands]
        self._record(expr, operands, devices, frame)
        return combined(devices)

    def _unary(self, expr: cst.UnaryOperation, env: dict, frame: Frame):
        return self.value(expr.expression, env, frame)

    def _if_expression(self, expr: cst.IfExp, env: dict, frame: Frame):
        self.value(expr.test, env, frame)
        return self._join(self.value(expr.body, env, frame), self.value(expr.orelse, env, frame), expr)

    def _display(self, expr, env: dict, frame: Frame):
        values = tuple(self.value(el.value, env, frame) for el in expr.elements)
        return UNKNOWN if any(isinstance(el, cst.StarredElement) for el in expr.elements) else values

    def _boolean(self, expr: cst.BooleanOperation, env: dict, frame: Frame):
        parts = [self.value(expr.left, env, frame), self.value(expr.right, env, frame)]
        return PY if all(p == PY for p in parts) else UNKNOWN

    def _lambda(self, expr: cst.Lambda, env: dict, frame: Frame):
        return UNKNOWN  # its body runs where it is called: not followed

    def _subscript(self, expr: cst.Subscript, env: dict, frame: Frame):
        value = self.value(expr.value, env, frame)
        index = expr.slice[0].slice if len(expr.slice) == 1 else None
        if isinstance(value, tuple):
            if isinstance(index, cst.Index) and isinstance(index.value, cst.Integer):
                position = int(index.value.value, 0)
                return value[position] if position < len(value) else UNKNOWN
            return _flat(value)
        return value

    def _attribute(self, expr: cst.Attribute, env: dict, frame: Frame):
        attr = self_attr(expr)
        if attr is not None and attr in self._self:
            return self._self[attr]
        kind = self.graph.kind(expr)
        if kind == "py":
            return PY
        if attr is not None:
            return CONST if kind == "node" else UNKNOWN  # a graph constant `__init__` made
        self.value(expr.value, env, frame)
        return UNKNOWN if kind == "node" else PY  # `node.name`, `args.scale`: Python values

    def _comprehension(self, expr, env: dict, frame: Frame):
        inner = dict(env)
        clause = expr.for_in
        while clause is not None:
            self._bind(clause.target, _element(self.value(clause.iter, inner, frame)), inner)
            for test in clause.ifs:
                self.value(test.test, inner, frame)
            clause = clause.inner_for_in
        if isinstance(expr, cst.DictComp):
            self.value(expr.key, inner, frame)
            self.value(expr.value, inner, frame)
            return UNKNOWN
        element = self.value(expr.elt, inner, frame)
        return (element,) if isinstance(expr, cst.ListComp) and element != PY else PY if element == PY else UNKNOWN

    def _call(self, call: cst.Call, env: dict, frame: Frame):
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("gpu", "cpu") and not call.args:
            self.value(func.value, env, frame)
            self.gpu = self.gpu or func.attr.value == "gpu"
            return GPU if func.attr.value == "gpu" else CPU
        values = [self.value(arg.value, env, frame) for arg in call.args]
        legacy = self.graph._legacy_op(call)
        if legacy is not None:  # an `ops.X(...)` object of `__init__`: its device is the constructor's
            return self._reduce([self._op(ctor, call, values) for ctor in legacy.ctors or [legacy.ctor]], legacy)
        dali = self.graph.dali_name(func)
        if dali is not None:
            return self._dali_call(dali, call, values, frame)
        callee = self.graph.callee.get(call)
        if callee is not None:
            return self._invoke(callee, self._arguments(callee, call, values))
        if isinstance(func, cst.Attribute) and func.attr.value in ("shape", "layout", "source_info"):
            return CPU  # `DataNode.shape()`: a CPU node, wherever its input is
        return PY if self.graph.kind(call) == "py" else UNKNOWN

    def _dali_call(self, dali: str, call: cst.Call, values: list, frame: Frame):
        """The device of a call of DALI's ``dali``: an op, an ``nvidia.dali.math`` function, a constant."""
        if names.math_function(dali):
            inputs = [arg.value for arg in call.args if arg.keyword is None]
            self._record(call, inputs, values[: len(inputs)], frame)
            return combined(values[: len(inputs)])
        if names.fn_path(dali) is not None:
            return self._op(call, call, values)
        if dali.startswith(names.TYPES + "."):
            if dali.rsplit(".", 1)[-1] not in _CONSTANTS:
                return PY  # `types.FLOAT`, ...
            given = self._device_argument(call)
            return CONST if given is NOT_GIVEN or given == CPU else given
        return UNKNOWN

    def _op(self, settings: cst.Call, call: cst.Call, values: list):
        """The device of an op's outputs: its ``device=`` (in ``settings``, the call or a legacy
        operator's constructor), or the GPU when an input is there."""
        given = self._device_argument(settings)
        if given is not NOT_GIVEN:
            return given
        inputs = [v for arg, v in zip(call.args, values) if arg.keyword is None and not arg.star]
        found = combined(inputs) if inputs else CPU
        return CPU if found == PY else found

    def _device_argument(self, settings: cst.Call):
        for arg in settings.args:
            if arg.keyword is not None and arg.keyword.value == "device":
                device = cstutil.string_value(arg.value)
                if device == "cpu":
                    return CPU
                self.gpu = True
                return GPU if device in ("gpu", "mixed") else self._choice(cstutil.code(arg.value))
        return NOT_GIVEN

    def _record(self, node: cst.CSTNode, operands: list, devices: list, frame: Frame) -> None:
        if any(isinstance(d, tuple) for d in devices):
            return  # Python containers: `outputs + (extra,)` concatenates
        flat = tuple(devices)
        if len(operands) < 2 or all(d == PY for d in flat):
            return
        operation = self.operations.get(node)
        if operation is None:
            operation = self.operations[node] = Operation(node, list(operands), frame.function.node)
        operation.seen.add(flat)

    #: What :meth:`value` reads each kind of expression with (a method's name: subclasses override).
    _readers = (
        (cst.Call, "_call"),
        ((cst.BinaryOperation, cst.Comparison), "_operation"),
        (cst.UnaryOperation, "_unary"),
        (cst.IfExp, "_if_expression"),
        ((cst.Tuple, cst.List), "_display"),
        (cst.Subscript, "_subscript"),
        (cst.Attribute, "_attribute"),
        (_COMPREHENSIONS, "_comprehension"),
        (cst.BooleanOperation, "_boolean"),
        (cst.Lambda, "_lambda"),
    )


def _else_body(orelse) -> list:
    if orelse is None:
        return []
    if isinstance(orelse, cst.If):
        return [orelse]
    return list(orelse.body.body)


def decide(operation: Operation, index: int):
    """How operand ``index`` gets to the GPU with its partners (a :class:`Move`); None when it
    never must; False when it may have to and no name tells when."""
    seen = [(devices[index], [d for i, d in enumerate(devices) if i != index]) for devices in operation.seen]
    operand = operation.operands[index]
    others = [o for i, o in enumerate(operation.operands) if i != index]
    if not any(_must_follow(mine, theirs, operand, others) for mine, theirs in seen):
        return None
    if all(mine == GPU or (mine == CPU and GPU in theirs) for mine, theirs in seen):
        return Move()  # on the CPU (an op's output) with a partner on the GPU wherever it runs
    witnesses = [
        o for i, o in enumerate(others) if any(theirs[i] == GPU or _undecided(theirs[i]) for _, theirs in seen)
    ]
    if witnesses and all(isinstance(o, cst.Name) for o in witnesses):
        return Move(tuple(dict.fromkeys(o.value for o in witnesses)))
    return False


def _must_follow(mine, theirs: list, operand: cst.BaseExpression, others: list) -> bool:
    """May the operand be on the CPU while a partner is on the GPU? Not when both are the same
    name, or the same choice of the run."""
    if not (mine in (CPU, CONST) or _undecided(mine)):
        return False
    partners = [
        d for o, d in zip(others, theirs) if not ((mine is UNKNOWN and _same(o, operand)) or (choice(d) and d == mine))
    ]
    return any(d == GPU or _undecided(d) for d in partners)


def _same(a: cst.BaseExpression, b: cst.BaseExpression) -> bool:
    return isinstance(a, cst.Name) and isinstance(b, cst.Name) and a.value == b.value
