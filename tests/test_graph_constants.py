"""``types.Constant(np.array(v, dtype=np.T))`` given as an operator's positional input is written
as the array itself (ndd_migrate/model/values/graph_constants.py, NDD101); every other graph constant keeps the
pipeline as it is (NDD901 or NDD101, saying why)."""

from __future__ import annotations

import pytest

from tests.conftest import HAS_DALI, migrate_text

HEAD = (
    "import numpy as np\n"
    "from nvidia.dali import fn, pipeline_def, types\n\n\n"
    "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
    "def pipe(root):\n"
    "    data = fn.readers.numpy(file_root=root)\n"
    "    size = fn.shapes(data, dtype=types.INT32)\n"
)

LEGACY = (
    "import numpy as np\n"
    "import nvidia.dali.ops as ops\n"
    "import nvidia.dali.types as types\n"
    "from nvidia.dali.pipeline import Pipeline\n\n\n"
    "class Pipe(Pipeline):\n"
    "    def __init__(self, root):\n"
    "        super().__init__(batch_size=2, num_threads=1, device_id=None)\n"
    "        self.reader = ops.readers.Numpy(file_root=root)\n"
    "        self.shapes = ops.Shapes(type=types.INT32)\n"
    "        self.extract = ops.Slice(normalized_anchor=False, normalized_shape=False, axes=[0])\n\n"
    "    def define_graph(self):\n"
    "        data = self.reader()\n"
    "        return self.extract(self.shapes(data), {anchor}, types.Constant(np.array([1], dtype=np.float32)))\n"
)


def _codes(result) -> set[str]:
    return {d.code for d in result.diagnostics if d.needs_human}


def test_array_constants_as_slice_inputs_become_the_arrays():
    text, result = migrate_text(
        HEAD
        + (
            "    return fn.slice(size, types.Constant(np.array([0], dtype=np.float32)),\n"
            "                    types.Constant(np.array([1], dtype=np.float32)), axes=[0])\n"
        )
    )
    assert not _codes(result)
    assert "ndd.slice(size, np.array([0], dtype=np.float32),\n" in text
    assert "types.Constant" not in text


def test_constant_in_a_legacy_op_call_becomes_the_array():
    text, result = migrate_text(LEGACY.format(anchor="types.Constant(np.array([0], dtype=np.float32))"))
    assert not _codes(result)
    assert "np.array([0], dtype=np.float32), np.array([1], dtype=np.float32)," in text and "types.Constant" not in text


@pytest.mark.parametrize(
    "constant",
    [
        "types.Constant(np.array([0]))",  # int64 made int32 by the constant node: the dtype would differ
        "types.Constant(np.array([0.0], dtype=np.float64))",  # float64 sent as float32
        "types.Constant(np.array([0], dtype=np.int64))",
        "types.Constant([0.0])",  # a list: the dtype is the constant node's choice
        "types.Constant(np.array([0], dtype=np.float32), dtype=types.INT32)",
        "types.Constant(np.array([0], dtype=np.float32), shape=[1])",
        "types.Constant(np.array(anchor, dtype=np.float32))",  # not a literal
        "types.Constant(np.zeros([1], dtype=np.float32))",
    ],
)
def test_other_constants_keep_the_pipeline(constant):
    source = (
        HEAD
        + f"    anchor = [0]\n    return fn.slice(size, {constant}, types.Constant(np.array([1], dtype=np.float32)), axes=[0])\n"
    )
    text, result = migrate_text(source)
    assert "NDD901" in _codes(result)
    assert "@pipeline_def" in text


def test_legacy_constant_of_another_dtype_keeps_the_class():
    text, result = migrate_text(LEGACY.format(anchor="types.Constant(np.array([0], dtype=np.int64))"))
    assert "NDD901" in _codes(result)
    assert "class Pipe(Pipeline)" in text


@pytest.mark.parametrize(
    "expression",
    [
        "fn.slice(size, anchor=types.Constant(np.array([0], dtype=np.float32)), shape=size)",  # an argument input
        "size + types.Constant(np.array([1], dtype=np.int32))",  # an arithmetic operand
    ],
)
def test_constant_other_than_an_operator_input_keeps_the_pipeline(expression):
    text, result = migrate_text(HEAD + f"    return {expression}\n")
    assert "NDD901" in _codes(result)
    assert "@pipeline_def" in text


def test_constant_beside_no_batch_input_keeps_the_pipeline():
    # `ndd.cat(array, array)` is one tensor: the pipeline gave a batch of copies.
    source = HEAD + (
        "    return fn.cat(types.Constant(np.array([1], dtype=np.int32)), types.Constant(np.array([2], dtype=np.int32))), size\n"
    )
    text, result = migrate_text(source)
    assert "NDD101" in _codes(result)
    assert "@pipeline_def" in text


def test_noqa_keeps_the_pipeline():
    source = HEAD + (
        "    return fn.slice(size, types.Constant(np.array([0], dtype=np.float32)),  # noqa: NDD101\n"
        "                    np.array([1], dtype=np.float32), axes=[0])\n"
    )
    text, result = migrate_text(source)
    assert "@pipeline_def" in text


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize(
    "dtype", ["bool_", "int8", "int16", "int32", "uint8", "uint16", "uint32", "float16", "float32"]
)
def test_kept_dtypes_give_the_constant_nodes_samples(dtype):
    """Every dtype graph_constants.KEPT_DTYPES takes: the ndd op given the array gives the samples,
    dtype included, that the pipeline's constant node gave (``fn.cat`` beside a batch of that dtype)."""
    import numpy as np
    import nvidia.dali.experimental.dynamic as ndd
    import nvidia.dali.fn as fn
    import nvidia.dali.types as types
    from nvidia.dali import pipeline_def

    from ndd_migrate.model.values.graph_constants import KEPT_DTYPES

    assert dtype in KEPT_DTYPES
    value = np.array([[1, 0, 3]], dtype=getattr(np, dtype))
    samples = [np.array([[k, 1, 0]], dtype=getattr(np, dtype)) for k in range(3)]

    @pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def p():
        data = fn.external_source(source=lambda: samples, batch=True)
        return fn.cat(data, types.Constant(value), axis=0)

    pipe = p()
    pipe.build()
    (expected,) = pipe.run()
    got = ndd.cat(ndd.as_batch(samples), value, axis=0)
    assert got.batch_size == 3
    for i in range(3):
        want, have = expected.at(i), np.asarray(got.tensors[i])
        assert have.dtype == want.dtype and have.tolist() == want.tolist()
