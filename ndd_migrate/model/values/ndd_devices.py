"""The devices of hand-written dynamic-mode code, for the arithmetic that mixes a CPU and a GPU value.

:class:`~ndd_migrate.model.values.devices.Devices` runs a pipeline's graph code on devices (NDD111);
:class:`HandWritten` runs each function of a module's ``ndd`` code the same way: ``ndd.<op>(...)``
is where its ``device=`` says or where its inputs are, a reader object (``ndd.readers.X(...)``) gives
batches on its device through ``next_epoch()``, ``x.gpu()``/``x.cpu()`` move. Nothing is followed
into other functions and a parameter's device is unknown: only what the function itself shows
counts, so a mix it reports is one that raises "Cannot mix GPU and CPU inputs" whatever the caller.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ndd_migrate.model.values.devices import CPU, NOT_GIVEN, UNKNOWN, Devices, Frame, Move, decide
from ndd_migrate.model.values.graph_code import LITERALS
from ndd_migrate.model.values.graph_functions import Function
from ndd_migrate.model.values.ndd_flow import ndd_path, reader_info


@dataclass(frozen=True)
class _Reader:
    """A dynamic-mode reader object: its batches are on ``device``."""

    device: str | None


class _Code:
    """What :class:`Devices` asks of its code, for hand-written code: names resolved by the
    file's context, no graph, no operator objects, no helpers followed."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.callee: dict = {}

    def kind(self, expr: cst.BaseExpression) -> str | None:
        return "py" if isinstance(expr, LITERALS) else None

    def dali_name(self, node: cst.CSTNode) -> str | None:
        return self.ctx.dali_name(node)

    def _legacy_op(self, call: cst.Call) -> None:
        return None


class HandWritten(Devices):
    """:class:`Devices` over the functions of a module's hand-written dynamic-mode code."""

    def __init__(self, ctx) -> None:
        super().__init__(_Code(ctx))

    def run_module(self, module: cst.Module) -> None:
        """Every function of ``module`` on its own (parameters of unknown device), and its body."""
        for node in self.graph.ctx.model.functions.values():
            params = [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]
            self._invoke(Function(node, params=params), {p.name.value: UNKNOWN for p in params})
        frame = Frame(Function(module))
        self._block(module.body, {}, frame)

    def cpu_operands(self) -> dict[cst.BaseExpression, cst.CSTNode]:
        """Each operand on the CPU whose partner is on the GPU wherever it runs → its operation."""
        found = {}
        if not self.gpu:
            return found
        for operation in self.operations.values():
            for index, operand in enumerate(operation.operands):
                if decide(operation, index) == Move():
                    found[operand] = operation.node
        return found

    def _call(self, call: cst.Call, env: dict, frame: Frame):
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "next_epoch":
            owner = self.value(func.value, env, frame)
            for arg in call.args:
                self.value(arg.value, env, frame)
            return owner.device if isinstance(owner, _Reader) else UNKNOWN
        return super()._call(call, env, frame)

    def _dali_call(self, dali: str, call: cst.Call, values: list, frame: Frame):
        path = ndd_path(self.graph.ctx, call.func)
        if path is None:
            return super()._dali_call(dali, call, values, frame)
        if path.startswith("math."):
            inputs = [arg.value for arg in call.args if arg.keyword is None]
            self._record(call, inputs, values[: len(inputs)], frame)
            return self._op(call, call, values)
        if reader_info(path) is not None:
            given = self._device_argument(call)
            return _Reader(CPU if given is NOT_GIVEN else given)
        return self._op(call, call, values)
