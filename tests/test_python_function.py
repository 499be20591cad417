"""NDD422: ``fn.python_function`` written out as plain Python gives the pipeline's batches (real DALI)."""

from __future__ import annotations

import pytest

from tests.conftest import HAS_DALI, migrate_text
from tests.test_external_source import _run_both

FEED = (
    "def batches():\n"
    "    for i in range(3):\n"
    "        yield [np.arange(k + 2, dtype=np.float32) * (i + 1) for k in range(3)]\n\n"
)
DECORATOR = "@pipeline_def(batch_size=3, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False)\n"

CASES = {
    "per sample": (
        "def square(x):\n    return x * x\n\n"
        + DECORATOR
        + "def pipe():\n    data = fn.external_source(source=batches, layout='X')\n"
        "    return fn.python_function(data, function=square) + 1.0\n"
    ),
    "per sample, two inputs, two outputs, layouts": (
        "def both(a, b):\n    return a + b, (a * b)[:1]\n\n"
        + DECORATOR
        + "def pipe():\n    data = fn.external_source(source=batches)\n"
        "    s, p = fn.python_function(data, data * 2.0, function=both, num_outputs=2,\n"
        "                              output_layouts=['A', 'B'])\n"
        "    return s, p\n"
    ),
    "per batch": (
        "def normalize(batch):\n    top = max(float(x.max()) for x in batch)\n"
        "    return [x / top for x in batch]\n\n"
        + DECORATOR
        + "def pipe():\n    data = fn.external_source(source=batches)\n"
        "    return fn.python_function(data, function=normalize, batch_processing=True, output_layouts='X')\n"
    ),
    "per batch, two outputs": (
        "def split(batch):\n    return [x[:1] for x in batch], [x[1:] for x in batch]\n\n"
        + DECORATOR
        + "def pipe():\n    data = fn.external_source(source=batches)\n"
        "    head, tail = fn.python_function(data, function=split, num_outputs=2, batch_processing=True)\n"
        "    return head, tail\n"
    ),
}


@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("name", CASES)
def test_same_batches_as_pipeline(name):
    original, migrated, text = _run_both(FEED + CASES[name])
    assert "python_function" not in text and "np.asarray" in text
    assert migrated == original, text


BLOCKED = {
    "gpu": ("fn.python_function(data, function=f, device='gpu')", "CuPy"),
    "side effects": ("fn.python_function(data, function=f, num_outputs=0)", "side effects"),
    "no inputs": ("fn.python_function(function=f)", "without inputs"),
}


@pytest.mark.parametrize("name", BLOCKED)
def test_blocked_with_reason(name):
    call, reason = BLOCKED[name]
    source = (
        "from nvidia.dali import fn, pipeline_def\n\n\n@pipeline_def(batch_size=2)\n"
        f"def pipe(root):\n    (data,) = fn.readers.numpy(file_root=root)\n    out = {call}\n    return data\n"
    )
    text, result = migrate_text(source)
    found = [d.message for d in result.diagnostics if d.code == "NDD422" and d.needs_human]
    assert found and reason in found[0]
    assert "@pipeline_def" in text
