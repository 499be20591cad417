"""CPU lowering: run both sides on the CPU when there is no GPU (or ``--device cpu``).

Both sides then run the same CPU kernels, so outputs stay comparable bit for bit — what
``dali-dynamic-mode.md`` §6 observed and what the tests check. What changes:

pipeline side
    every operator constructed with ``device="gpu"`` or ``"mixed"`` gets ``"cpu"`` (through the
    construction hook, before the ``OpSpec`` exists); ``DataNode.gpu()`` returns the node itself;
    every ``Pipeline`` is created with ``device_id=None`` (CPU-only), also when the user's code
    hard-codes a device id.
ndd side
    every ``Device("gpu"[:k])``/``"cuda"`` resolves to the CPU, so ``device="gpu"`` arguments,
    ``.gpu()`` and ``to_device("gpu")`` all stay on the CPU (``Batch.to_device`` returns ``self``
    for the device it is on); ``EvalContext(device_id=k)`` becomes a CPU context.

An op with no CPU backend (``jitter``, ``optical_flow``, video readers, ``experimental.resize``...)
cannot be lowered. The pipeline side lets graph definition finish so that *all* of them are named
at once; the ndd side fails at the first one (DALI raises ``Invalid device "cpu" for operator``),
which :func:`no_cpu_backend_from_error` recognises. Either way the verdict is "could not run"
(exit 2) naming the ops, never a crash.
"""

from __future__ import annotations

import inspect
import re

from ndd_migrate.verify.patching import ConstructionHooks, Patches, canonical_op, fn_name

#: Attribute on a lowered ``Device``: the device type the code asked for.
REQUESTED = "_ndd_verify_requested"


class NoCpuBackend(Exception):
    """Ops that have no CPU implementation, so the check cannot run CPU-lowered."""

    def __init__(self, ops: list[str], side: str):
        self.ops = sorted(set(ops))
        self.side = side
        super().__init__(
            f"cannot lower to CPU: no CPU backend for {', '.join(self.ops)}; run on a machine with a GPU (--device gpu)"
        )


class PipelineLowering:
    """Context manager: the pipeline side, CPU-lowered (see module docstring)."""

    def __init__(self) -> None:
        self.no_cpu_backend: list[str] = []
        self.lowered_ops: list[str] = []
        #: (canonical op, display name, device= as written or None) of every op, before lowering
        self.devices: list[tuple[str, str, str | None]] = []
        self._patches = Patches()

    def _transform(self, op_cls: type, kwargs: dict) -> dict:
        from nvidia.dali.ops import _registry

        name = getattr(op_cls, "schema_name", None)
        if name:
            written = kwargs.get("device")
            self.devices.append((canonical_op(name), fn_name(name), None if written is None else str(written)))
        device = kwargs.get("device", "cpu")
        if device in ("gpu", "mixed"):
            if name and name not in _registry.cpu_ops():
                # Keep the GPU device so that graph definition goes on and every such op is
                # named; the worker fails before build().
                self.no_cpu_backend.append(fn_name(name))
                return kwargs
            self.lowered_ops.append(fn_name(name) if name else op_cls.__name__)
            return {**kwargs, "device": "cpu"}
        if name and name not in _registry.cpu_ops() and device == "cpu":
            self.no_cpu_backend.append(fn_name(name))
        return kwargs

    def __enter__(self) -> PipelineLowering:
        from nvidia.dali import data_node
        from nvidia.dali.pipeline import Pipeline

        ConstructionHooks.add(self._transform)
        self._patches.set(data_node.DataNode, "gpu", lambda node: node)

        original_init = Pipeline.__init__
        signature = inspect.signature(original_init)

        def pipeline_init(pipe, *args, **kwargs):
            bound = signature.bind(pipe, *args, **kwargs)
            bound.arguments["device_id"] = None
            original_init(*bound.args, **bound.kwargs)

        # @pipeline_def sorts call arguments with inspect.getfullargspec(Pipeline.__init__):
        # the replacement must show the original signature.
        pipeline_init.__signature__ = signature
        self._patches.set(Pipeline, "__init__", pipeline_init)
        return self

    def __exit__(self, *exc) -> None:
        ConstructionHooks.remove(self._transform)
        self._patches.undo()


class NddLowering:
    """Context manager: the ndd side, CPU-lowered (see module docstring)."""

    def __init__(self) -> None:
        self._patches = Patches()
        #: (canonical op, display name, device= as written or None) of the calls of the first
        #: step (set ``recording = False`` after it), before lowering
        self.devices: list[tuple[str, str, str | None]] = []
        self.recording = True

    def _record(self, schema_name: str, device) -> None:
        if not self.recording:
            return
        if device is not None and not isinstance(device, str):
            device = getattr(device, REQUESTED, None) or getattr(device, "device_type", None)
        self.devices.append((canonical_op(schema_name), fn_name(schema_name), device))

    def __enter__(self) -> NddLowering:
        from nvidia.dali.experimental.dynamic import _device, _eval_context

        Device = _device.Device
        original_device_init = Device.__init__

        lowering = self
        original_process = _ops_module().Operator.__dict__["_process_params"].__func__

        def process_params(cls, backend, op_device, batch_size, *raw_args, **raw_kwargs):
            lowering._record(cls._schema_name, op_device)
            return original_process(cls, backend, op_device, batch_size, *raw_args, **raw_kwargs)

        self._patches.set(_ops_module().Operator, "_process_params", classmethod(process_params))

        def device_init(dev, name, device_id=None):
            device_type = name.split(":")[0] if isinstance(name, str) else name
            if device_type in ("gpu", "cuda"):
                name, device_id = "cpu", None
            original_device_init(dev, name, device_id)
            if device_type in ("gpu", "cuda"):
                setattr(dev, REQUESTED, "gpu")  # what the user asked for, before lowering

        self._patches.set(Device, "__init__", device_init)
        self._patches.set(Device, "_default_device_type", staticmethod(lambda: "cpu"))

        EvalContext = _eval_context.EvalContext
        original_ctx_init = EvalContext.__init__

        sentinel = EvalContext._default_context_stream_sentinel

        def ctx_init(ctx, *, device_id=None, cuda_stream=None, **kwargs):
            # A CUDA stream means nothing on the CPU; the sentinel is how DALI builds its
            # default contexts and must pass through.
            stream = cuda_stream if cuda_stream is sentinel else None
            original_ctx_init(ctx, device_id=None, cuda_stream=stream, **kwargs)

        self._patches.set(EvalContext, "__init__", ctx_init)

        # An op with only a GPU backend and CPU (lowered) inputs would be given its GPU backend
        # by ndd's device inference and then fail deep inside with a device assertion; stop it
        # at construction with the op's name instead.
        from nvidia.dali.experimental.dynamic import _ops

        original_op_init = _ops.Operator.__init__

        def op_init(op, *args, _backend=None, **kwargs):
            cls = type(op)
            if _backend in ("gpu", "mixed") or "cpu" not in cls._supported_backends:
                raise NoCpuBackend([fn_name(cls._schema_name)], "migrated")
            original_op_init(op, *args, _backend=_backend, **kwargs)

        self._patches.set(_ops.Operator, "__init__", op_init)
        return self

    def __exit__(self, *exc) -> None:
        self._patches.undo()


def _ops_module():
    from nvidia.dali.experimental.dynamic import _ops

    return _ops


def _normal_device(device: str | None) -> str | None:
    if device is None:
        return None
    device = device.split(":")[0]
    return {"mixed": "gpu", "cuda": "gpu"}.get(device, device)


def device_findings(original: list, migrated: list) -> list[tuple[str, str]]:
    """Ops whose ``device=`` differs between the two sides *before* lowering (which would hide
    it: both then run on the CPU). Ops are matched by kind and occurrence (the 2nd ``resize`` of
    one side with the 2nd of the other); ``"mixed"`` in a pipeline is ``"gpu"`` in ndd. A
    pipeline's ``fn.*`` call always passes a device (the one it infers from its inputs, which are
    CPU nodes once lowered, unless written); an ndd call passes only what the code wrote. Both
    given and different: an error; ``device="gpu"`` on one side only: a warning (the other side
    infers its device from its inputs, which lowering does not show)."""

    def occurrences(ops):
        seen: dict[str, int] = {}
        out = {}
        for op, display, device in ops:
            if op in ("ExternalSource", "_conditional__Split", "_conditional__Merge"):
                continue
            k = seen.get(op, 0)
            seen[op] = k + 1
            out[(op, k)] = (display, _normal_device(device))
        return out

    o, m = occurrences(original), occurrences(migrated)
    errors, warnings = [], []
    for key in [k for k in o if k in m]:
        (display, od), (_, md) = o[key], m[key]
        if od == md:
            continue
        where = f"{display}" + (f" (#{key[1] + 1})" if key[1] else "")
        if od is not None and md is not None:
            errors.append(f"{where}: device={od!r} in the original, device={md!r} migrated")
        elif "gpu" in (od, md):
            side = "the original" if od == "gpu" else "the migration"
            warnings.append(f'{where}: device="gpu" only in {side}')
    findings = []
    if errors:
        findings.append(
            (
                "error",
                "device placement differs (hidden by CPU lowering): " + "; ".join(errors),
            )
        )
    if warnings:
        findings.append(
            (
                "warning",
                "device placement may differ (hidden by CPU lowering; the other side infers its "
                "device from its inputs): " + "; ".join(warnings),
            )
        )
    return findings


_INVALID_DEVICE = re.compile(r'Invalid device "cpu" for operator `([^`]+)`')


def no_cpu_backend_from_error(exc: BaseException) -> NoCpuBackend | None:
    """Recognise the ndd error for an op that cannot run on the CPU (raised by the op builder or
    by a reader's constructor once its ``device="gpu"`` was lowered)."""
    m = _INVALID_DEVICE.search(str(exc))
    if not m:
        return None
    name = m.group(1)
    if "__" in name or name[:1].isupper():  # a schema name such as readers__Video or Jitter
        name = fn_name(name)
    return NoCpuBackend([name], "migrated")
