"""One step's outputs, as plain host data the parent can compare without DALI.

A step is what one ``pipe.run()`` / one ``next(gen)`` returns: a tuple with one batch per output.
Each batch becomes ``{"kind", "dtype", "layout", "device", "samples"}`` with the samples as numpy
arrays copied to the host (GPU outputs included: comparison is always on the host, so CuPy is not
needed). ``dtype`` is the DALI type name (``UINT8``, ``FLOAT``), so that a dtype difference is
reported in DALI's terms even where numpy would see the same thing.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _dtype_name(dtype: Any) -> str:
    type_id = getattr(dtype, "type_id", dtype)  # ndd DType has .type_id; TensorList gives the enum
    return getattr(type_id, "name", str(type_id))


def pipeline_step(outputs: Any) -> list[dict]:
    """``pipe.run()``'s tuple of ``TensorListCPU``/``TensorListGPU`` → host batches."""
    if not isinstance(outputs, (tuple, list)):
        outputs = (outputs,)
    step = []
    for out in outputs:
        device = "gpu" if type(out).__name__ == "TensorListGPU" else "cpu"
        host = out.as_cpu() if device == "gpu" else out
        layout = host.layout() or ""
        step.append(
            {
                "kind": type(out).__name__,
                "dtype": _dtype_name(host.dtype),
                "layout": layout,
                "device": device,
                "samples": [np.array(host.at(i), copy=True) for i in range(len(host))],
            }
        )
    return step


def ndd_step(outputs: Any) -> tuple[list[dict], list[str]]:
    """``next(gen)``'s value → host batches, plus notes about outputs not in the target shape
    (a bare ``Batch`` instead of a 1-tuple, a ``Tensor`` where a ``Batch`` belongs)."""
    from nvidia.dali.experimental.dynamic import Batch, Tensor

    notes: list[str] = []
    if isinstance(outputs, (Batch, Tensor)):
        notes.append("the migrated step yields a bare batch, not a tuple; treated as a 1-tuple")
        outputs = (outputs,)
    if isinstance(outputs, dict):
        notes.append("the migrated step yields a dict; its values are compared in order")
        outputs = tuple(outputs.values())
    if not isinstance(outputs, (tuple, list)):
        raise TypeError(
            f"the migrated step yielded a {type(outputs).__name__}; expected a tuple of Batch (one per pipeline output)"
        )
    step = []
    for index, out in enumerate(outputs):
        if isinstance(out, Batch):
            device = out.device.device_type
            host = out.cpu() if device == "gpu" else out
            samples = [np.array(np.asarray(t), copy=True) for t in host.tensors]
            kind = "Batch"
        elif isinstance(out, Tensor):
            notes.append(
                f"output {index} is a single Tensor, not a Batch (a random op without "
                "batch_size=, or an op on one sample?)"
            )
            device = out.device.device_type
            host = out.cpu() if device == "gpu" else out
            samples = [np.array(np.asarray(host), copy=True)]
            kind = "Tensor"
        else:
            raise TypeError(f"output {index} of the migrated step is a {type(out).__name__}; expected an ndd Batch")
        step.append(
            {
                "kind": kind,
                "dtype": _dtype_name(host.dtype),
                "layout": host.layout or "",
                "device": device,
                "samples": samples,
            }
        )
    return step, notes


def ensure_ndd_complete(outputs: Any) -> int:
    """Wait for an ndd step to finish (execution is asynchronous) and return its sample count.
    Used by the timing loop, which must not copy outputs to the host."""
    from nvidia.dali.experimental.dynamic import Batch

    if not isinstance(outputs, (tuple, list)):
        outputs = (outputs,)
    samples = 0
    for i, out in enumerate(outputs):
        evaluate = getattr(out, "evaluate", None)
        if evaluate is not None:
            evaluate()
        if i == 0:
            samples = out.batch_size if isinstance(out, Batch) else 1
    return samples
