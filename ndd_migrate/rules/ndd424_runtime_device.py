"""NDD424 runtime-device: a pipeline parameter that reaches ``device=`` of a decoder may carry "mixed".

NDD103 rewrites ``device="mixed"`` written at the op. When the op says ``device=device`` and
``device`` is a parameter of the pipeline function, the "mixed" arrives from the parameter's default
or from a caller. The choice made here: every literal "mixed" the module shows (the default, the
call sites' arguments) becomes "gpu", so the migrated code reads as dynamic-mode code; and when some
value is not a literal (a caller passes a variable, or a caller outside the module may pass "mixed"),
the migrated function starts with ``device = "gpu" if device == "mixed" else device``, which maps
every value that was "mixed" to "gpu" whoever passes it.
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate.codegen import devices
from ndd_migrate.dali.tables import op_info
from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.types import PipelineFunction
from ndd_migrate.syntax import cstutil, names, tree
from ndd_migrate.syntax.cstutil import SkipsTrivia

RULE = Rule(
    code="NDD424",
    name="runtime-device",
    summary='a pipeline parameter passed as `device=` to a decoder may be "mixed": map it to "gpu"',
    what=(
        "In a migrated pipeline function, a parameter used as `device=<param>` of an op that has a mixed "
        'backend (the decoders): a literal "mixed" default and literal "mixed" arguments at the module\'s '
        'call sites become "gpu"; when a call site passes something that is not a literal, the function '
        'starts with `<param> = "gpu" if <param> == "mixed" else <param>`. A module constant '
        '(`DEVICE = "mixed"`) or a local of the function (`decoder_device = "cpu" if cpu else "mixed"`) read '
        'only as such a `device=` becomes "gpu"; read anywhere else too, it keeps its value and the decoders get '
        '`"gpu" if <name> == "mixed" else <name>`.'
    ),
    why='Dynamic mode rejects `device="mixed"`; a decoder on the GPU is `device="gpu"`.',
    fix_safety=FixSafety.UNSAFE,
    fix=(
        'Callers outside the module are not seen: one that passes "mixed" to a function whose values are '
        "all literals here gets an error from ndd (nothing silent). Code in the function that compares the "
        'parameter with "mixed" sees "gpu" after the inserted line.'
    ),
    examples=(
        Example(
            title="literal values: rewritten where they are written",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=4)\n"
                "def pipe(root, device='mixed'):\n"
                "    jpegs, labels = fn.readers.file(file_root=root)\n"
                "    return fn.decoders.image(jpegs, device=device), labels\n\n\n"
                "cpu_pipe = pipe('/data', device='cpu')\n"
                "gpu_pipe = pipe('/data', device='mixed')\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def pipe(root, device='gpu', *, batch_size=4):\n"
                "    reader = ndd.readers.File(file_root=root)\n"
                "    while True:\n"
                "        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
                "            yield ndd.decoders.image(jpegs, device=device).evaluate(), labels.evaluate()\n\n\n"
                "cpu_pipe = pipe('/data', device='cpu')\n"
                "gpu_pipe = pipe('/data', device='gpu')\n"
            ),
        ),
        Example(
            title="a value only known at run time",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=4)\n"
                "def pipe(root, device):\n"
                "    jpegs, labels = fn.readers.file(file_root=root)\n"
                "    return fn.decoders.image(jpegs, device=device), labels\n\n\n"
                "p = pipe('/data', device=DEVICE)\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def pipe(root, device, *, batch_size=4):\n"
                '    device = "gpu" if device == "mixed" else device\n'
                "    reader = ndd.readers.File(file_root=root)\n"
                "    while True:\n"
                "        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
                "            yield ndd.decoders.image(jpegs, device=device).evaluate(), labels.evaluate()\n\n\n"
                "p = pipe('/data', device=DEVICE)\n"
            ),
        ),
    ),
    valid=(
        "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
        "def decode(jpegs, device='gpu'):\n    return ndd.decoders.image(jpegs, device=device)\n",
    ),
)


class Impl(RuleImpl):
    rule = RULE

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._params: dict[PipelineFunction, dict[str, int | None]] = {}  # param → positional index
        self._normalize: dict[PipelineFunction, list[str]] = {}
        self._call_args: dict[cst.Arg, PipelineFunction] = {}  # call-site arguments to rewrite
        self._constants: set[cst.Assign] = set()  # module constants holding "mixed" to rewrite
        self._device_args: dict[str, list[cst.Arg]] = {}  # name → the decoders' `device=<name>` arguments
        self._mapped: set[cst.Arg] = set()  # given as `"gpu" if name == "mixed" else name`

    def visit_Module(self, node: cst.Module) -> None:
        device_names: list[str] = []
        for pipeline in self.ctx.model.pipelines.values():
            # Not a legacy Pipeline subclass (its node is the ClassDef; NDD402 spells its devices).
            if not pipeline.convert or not isinstance(pipeline.node, cst.FunctionDef):
                continue
            finder = _DeviceNames(self.ctx)
            tree.visit(pipeline.node.body, finder)
            for arg in finder.args:
                self._device_args.setdefault(arg.value.value, []).append(arg)
            params = self._device_params(pipeline, finder.found)
            if params:
                self._plan(pipeline, params)
            others = [n for n in finder.found if n not in params]
            local = self._plan_locals(pipeline.node, others)
            device_names += [n for n in others if n not in local]
        self._plan_constants(node, device_names)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        """A graph helper whose ``fn.*`` calls become ``ndd.*`` (not a pipeline function: those are
        planned with the module): its locals holding "mixed", as in a pipeline function."""
        if node in self.ctx.model.by_node or not self.ctx.may_rewrite_dali_calls():
            return
        finder = _DeviceNames(self.ctx)
        tree.visit(node.body, finder)
        for arg in finder.args:
            self._device_args.setdefault(arg.value.value, []).append(arg)
        self._plan_locals(node, finder.found)

    def _plan_locals(self, function: cst.FunctionDef, device_names: list[str]) -> set[str]:
        """A local of the pipeline function bound to "mixed" (``decoder_device = "cpu" if cpu else
        "mixed"``, the shape of DALI's ImageNet example) and read only as ``device=`` of decoders:
        its value is rewritten. Read anywhere else (``padding = ... if decoder_device == "mixed"
        else 0``), it keeps its value and the decoders get ``"gpu" if decoder_device == "mixed" else
        decoder_device``. The names it decides."""
        decided = set()
        body = list(tree.walk(function.body))
        for assign in body:
            if not (
                isinstance(assign, cst.Assign)
                and len(assign.targets) == 1
                and isinstance(assign.targets[0].target, cst.Name)
                and assign.targets[0].target.value in device_names
            ):
                continue
            name = assign.targets[0].target.value
            decided.add(name)
            if not devices.has_mixed(assign.value):
                continue
            bound = sum(
                isinstance(n, cst.AssignTarget) and isinstance(n.target, cst.Name) and n.target.value == name
                for n in body
            )
            uses = sum(isinstance(n, cst.Name) and n.value == name for n in body)
            if uses == bound + device_names.count(name):
                self._constants.add(assign)
            else:
                self._mapped.update(self._device_args.get(name, ()))
        return decided

    def _plan_constants(self, module: cst.Module, device_names: list[str]) -> None:
        """A module constant (``DEVICE = "mixed"``) read only as ``device=`` of decoders in migrated
        pipelines: its value is rewritten. Read anywhere else, it may mean "mixed" there: left alone."""
        for stmt in module.body:
            assign = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
            if not (
                isinstance(assign, cst.Assign)
                and len(assign.targets) == 1
                and isinstance(assign.targets[0].target, cst.Name)
                and devices.has_mixed(assign.value)
            ):
                continue
            name = assign.targets[0].target.value
            uses = sum(isinstance(n, cst.Name) and n.value == name for n in tree.walk(module))
            if name in device_names and uses == 1 + device_names.count(name):
                self._constants.add(assign)
            elif name in device_names:  # read elsewhere too: it keeps its value, the decoders map it
                self._mapped.update(self._device_args.get(name, ()))

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
        if original not in self._constants:
            return updated
        self.ctx.report(self.code, original, 'a value used only as a decoder\'s `device=`: "mixed" → "gpu"', fixed=True)
        return updated.with_changes(value=devices.to_gpu(updated.value))

    def _device_params(self, pipeline: PipelineFunction, found: list[str]) -> dict[str, int | None]:
        """Parameters used as ``device=`` of an op with a mixed backend, with their positions."""
        positions = {
            p.name.value: i for i, p in enumerate([*pipeline.node.params.posonly_params, *pipeline.node.params.params])
        }
        positions.update({p.name.value: None for p in pipeline.node.params.kwonly_params})
        return {name: positions[name] for name in found if name in positions}

    def _plan(self, pipeline: PipelineFunction, params: dict[str, int | None]) -> None:
        by_name = {
            p.name.value: p
            for p in (
                *pipeline.node.params.posonly_params,
                *pipeline.node.params.params,
                *pipeline.node.params.kwonly_params,
            )
        }
        for name, position in params.items():
            values = [by_name[name].default] if by_name[name].default is not None else []
            unknown = False
            for call in self.ctx.model.sites_of(pipeline):  # by its name, or through a name holding it
                arg = cstutil.kwarg(call, name)
                positional = [a for a in call.args if a.keyword is None]
                if arg is None and position is not None and position < len(positional):
                    arg = positional[position]
                    if call in self.ctx.model.made_through:  # another function it holds may take it otherwise
                        unknown = True  # not rewritten there: mapped in the function
                        continue
                if arg is not None:
                    values.append(arg.value)
                    self._call_args[arg] = pipeline
            self._params.setdefault(pipeline, {})[name] = position
            if unknown or not values or any(not _is_literal(v) for v in values):  # nothing known, or a run-time value
                self._normalize.setdefault(pipeline, []).append(name)

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        if original in self._mapped:
            self.ctx.report(
                self.code,
                original,
                f'`{original.value.value}` may be "mixed" and is read for more than `device=`: the decoder '
                'gets "gpu" in its place',
                fixed=True,
            )
            return updated.with_changes(value=devices.mapped(updated.value))
        if original not in self._call_args or not devices.has_mixed(original.value):
            return updated
        self.ctx.report(self.code, original, '"mixed" passed on to a decoder\'s `device=` → "gpu"', fixed=True)
        return updated.with_changes(value=devices.to_gpu(updated.value))

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        pipeline = self.ctx.model.by_node.get(original)
        if pipeline not in self._params:
            return updated
        params = updated.params
        for name in self._params[pipeline]:
            params = _rewrite_default(self, params, name)
        body = list(updated.body.body)
        at = 1 if body and cstutil.is_docstring(body[0]) else 0
        lines = [
            cst.parse_statement(f'{name} = "gpu" if {name} == "mixed" else {name}\n')
            for name in self._normalize.get(pipeline, ())
        ]
        for name in self._normalize.get(pipeline, ()):
            self.ctx.report(
                self.code, original.name, f'`{name}` may be "mixed" at run time: mapped to "gpu"', fixed=True
            )
        return updated.with_changes(
            params=params, body=updated.body.with_changes(body=[*body[:at], *lines, *body[at:]])
        )


def _rewrite_default(impl: Impl, params: cst.Parameters, name: str) -> cst.Parameters:
    def fix(group):
        out = []
        for p in group:
            if p.name.value == name and p.default is not None and devices.has_mixed(p.default):
                impl.ctx.report(impl.code, p, f'default of `{name}` "mixed" → "gpu"', fixed=True)
                p = p.with_changes(default=devices.to_gpu(p.default))
            out.append(p)
        return out

    return params.with_changes(
        posonly_params=fix(params.posonly_params), params=fix(params.params), kwonly_params=fix(params.kwonly_params)
    )


def _is_literal(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.IfExp):
        return _is_literal(expr.body) and _is_literal(expr.orelse)
    return isinstance(cstutil.string_value(expr), str)


class _DeviceNames(SkipsTrivia, cst.CSTVisitor):
    """Names passed as ``device=`` to DALI ops that have a mixed backend."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.found: list[str] = []
        self.args: list[cst.Arg] = []

    def visit_Call(self, node: cst.Call) -> None:
        path = names.fn_path(self.ctx.dali_name(node.func))
        info = op_info(path) if path else None
        arg = cstutil.kwarg(node, "device")
        if info and "mixed" in info.backends and arg is not None and isinstance(arg.value, cst.Name):
            self.found.append(arg.value.value)  # once per use (constants count their uses)
            self.args.append(arg)
