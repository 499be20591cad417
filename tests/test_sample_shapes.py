"""``fn.shapes`` / ``ops.Shapes``: written as ``ndd.as_batch(x.shape, dtype=..., device=...)``
(ndd_migrate/codegen/sample_shapes.py), which gives the operator's batches (real DALI, CPU)."""

from __future__ import annotations

import pytest

from tests.conftest import HAS_DALI, migrate_text
from tests.test_external_source import HEADER, _load

FEED = (
    "def batches():\n"
    "    for i in range(3):\n"
    "        yield [np.zeros((k + 2 + i, 3 - k % 2), dtype=np.float32) for k in range(3)]\n\n"
)
DECORATOR = "@pipeline_def(batch_size=3, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False)\n"

CASES = {
    "default dtype": "    return fn.shapes(data)\n",
    "dtype, used in arithmetic": "    s = fn.shapes(data, dtype=types.INT32)\n    return s, (s + 1) // 2\n",
    "float dtype": "    return fn.shapes(data, dtype=types.FLOAT)\n",
    "deprecated type=": "    return fn.shapes(data, type=types.INT32)\n",
    "argument input of pad": "    return fn.pad(data, axes=[0, 1], shape=fn.shapes(data, dtype=types.INT32) * 2)\n",
    "scalar samples, explicit device": "    return fn.shapes(fn.reductions.sum(data), device='cpu')\n",
    "DataNode.shape method": "    s = data.shape(dtype=types.INT32)\n    return data.shape(), s * 2, (data + 1).shape(device='cpu')\n",
    "argument input of slice": (
        "    size = fn.shapes(data)\n    return fn.slice(data, size * 0, size // 2, axes=[0, 1])\n"
    ),
}


def _source(body: str) -> str:
    return (
        HEADER + FEED + DECORATOR + "def pipe():\n    data = fn.external_source(source=batches, layout='HW')\n" + body
    )


def _collect(step) -> list:
    """Each batch's samples, with their dtypes and the batch layout, until StopIteration."""
    import numpy as np

    out = []
    while True:
        try:
            batches = step()
        except StopIteration:
            return out
        for b in batches:
            samples = [b.at(i) for i in range(len(b))] if hasattr(b, "at") else [np.asarray(t) for t in b.tensors]
            layout = b.layout() if callable(b.layout) else b.layout
            out.append(([(s.tolist(), str(s.dtype), s.shape) for s in samples], layout or ""))


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("name", CASES)
def test_same_batches_as_the_operator(name):
    source = _source(CASES[name])
    migrated, result = migrate_text(source)
    assert not [d for d in result.diagnostics if d.needs_human], migrated
    assert "fn.shapes" not in migrated and ".shape()" not in migrated and "ndd.as_batch(" in migrated
    pipe = _load(source).pipe()
    pipe.build()
    original = _collect(pipe.run)
    assert len(original) >= 3
    assert _collect(_load(migrated).pipe().__next__) == original


def test_written_expression():
    text, _ = migrate_text(_source("    return fn.shapes(data, type=types.INT32, bytes_per_sample_hint=[8])\n"))
    assert "yield ndd.as_batch(data.shape, dtype=types.INT32, device=data.device).evaluate(),\n" in text
    text, _ = migrate_text(_source("    return fn.shapes(data)\n"))
    assert "ndd.as_batch(data.shape, dtype=ndd.int64, device=data.device)" in text  # dtype spelled out


def test_data_node_method():
    text, _ = migrate_text(_source("    return (data * 2).shape(dtype=None)\n"))
    assert 'ndd.as_batch((data * 2).shape, dtype=ndd.int64, device="cpu")' in text


def test_expression_input_with_device_is_parenthesized():
    text, _ = migrate_text(_source("    return fn.shapes(data + 1, device='cpu')\n"))
    assert "ndd.as_batch((data + 1).shape, dtype=ndd.int64, device='cpu')" in text


@pytest.mark.parametrize(
    "body, why",
    [
        ("    return fn.shapes(data + 1)\n", "its input is an expression"),
        ("    return fn.shapes(fn.flip(data))\n", "its input is an expression"),
        ("    kw = {}\n    return fn.shapes(data, **kw)\n", "`*`/`**`"),
        ("    return data.shape(types.INT32)\n", "positional"),
    ],
)
def test_blocked_where_the_expression_cannot_be_written(body, why):
    source = _source(body)
    text, result = migrate_text(source)
    found = [d for d in result.diagnostics if d.needs_human]
    assert [d.code for d in found] == ["NDD101"], found
    assert why in found[0].message
    assert "def pipe():" in text and "@pipeline_def" in text  # left in pipeline mode


def test_outside_a_pipeline_the_hint_is_the_expression():
    source = (
        "import nvidia.dali.fn as fn\nfrom nvidia.dali import pipeline_def\n\n"
        "def sizes(x):\n    return fn.shapes(x + 1)\n\n"
        "@pipeline_def(batch_size=2)\ndef p():\n    return fn.external_source(name='in', dtype=1)\n"
    )
    _, result = migrate_text(source)
    found = [d for d in result.diagnostics if d.code == "NDD901"]
    assert found and "ndd.as_batch(x.shape, dtype=ndd.int64, device=x.device)" in (found[0].hint or "")


LEGACY = (
    "import nvidia.dali.ops as ops\nimport nvidia.dali.types as types\n"
    "from nvidia.dali.pipeline import Pipeline\n\n"
    "class P(Pipeline):\n"
    "    def __init__(self):\n"
    "        super().__init__(batch_size=2, num_threads=1, device_id=None)\n"
    "        self.reader = ops.readers.Numpy(file_root='/data')\n"
    "        self.shapes = ops.Shapes({args})\n\n"
    "    def define_graph(self):\n"
    "        data = self.reader()\n"
    "        return {call}\n"
)


def test_legacy_op_object():
    text, result = migrate_text(LEGACY.format(args="type=types.INT32", call="self.shapes(data)"))
    assert not [d for d in result.diagnostics if d.needs_human], text
    assert "ndd.as_batch(data.shape, dtype=types.INT32, device=data.device)" in text
    assert "ops.Shapes" not in text


def test_legacy_op_object_on_an_expression_is_blocked():
    text, result = migrate_text(LEGACY.format(args="", call="self.shapes(data * 2)"))
    found = [d for d in result.diagnostics if d.needs_human]
    assert [d.code for d in found] == ["NDD402"], found
    assert "its input is an expression" in found[0].message
    assert "class P(Pipeline):" in text
