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


INIT = (
    "import numpy as np\n"
    "import nvidia.dali.fn as fn\n"
    "import nvidia.dali.ops as ops\n"
    "import nvidia.dali.types as types\n"
    "from nvidia.dali.pipeline import Pipeline\n\n\n"
    "class Pipe(Pipeline):\n"
    "    def __init__(self, root, patch_size):\n"
    "        super().__init__(batch_size=2, num_threads=1, device_id=None)\n"
    "        self.reader = ops.readers.Numpy(file_root=root)\n"
    "        self.start = {start}\n"
    "        self.shape = types.Constant(np.array(patch_size), dtype=types.FLOAT)\n"
    "{more}\n"
    "    def define_graph(self):\n"
    "        data = self.reader()\n"
    "{graph}"
)
SLICE = "        data = fn.slice(data, self.start, self.start, axes=[0, 1])\n"
RESIZE = "        return fn.resize(fn.expand_dims(data, axes=[2]), size=self.shape)\n"


def _init_pipe(start="types.Constant(np.zeros(2), dtype=types.INT64)", more="", graph=SLICE + RESIZE) -> str:
    return INIT.format(start=start, more=more, graph=graph)


def test_constants_made_in_init_become_their_arrays():
    """`types.Constant(value, dtype=...)` made in `__init__` and given only to operators, as inputs
    beside a batch and as arguments: the generator's prologue makes its data with `dali_constant`
    (was: NDD901, "detached from any graph")."""
    text, result = migrate_text(_init_pipe())
    assert not _codes(result), text
    assert "    start = dali_constant(np.zeros(2), dtype=types.INT64)\n" in text
    assert "    shape = dali_constant(np.array(patch_size), dtype=types.FLOAT)\n" in text
    assert "from ndd_support import dali_constant, prefetching\n" in text
    assert "ndd.slice(data, start, start, axes=[0, 1])" in text and "size=shape" in text


def test_a_constant_made_in_init_used_in_a_graph_helper_becomes_its_array():
    helper = (
        "        return self.grow(data)\n\n"
        "    def grow(self, data):\n"
        "        return fn.resize(fn.slice(data, self.start, self.start, axes=[0, 1]), size=self.shape)\n"
    )
    text, result = migrate_text(_init_pipe(graph=helper))
    assert not _codes(result), text
    assert "start = dali_constant(" in text and "def grow" not in text


def test_a_constant_made_in_init_beside_an_input_set_becomes_its_array():
    """`fn.slice([img, label], self.start, ...)`: one call per input, each beside a batch."""
    graph = "        img, label = fn.slice([data, data * 2], self.start, self.start, axes=[0, 1])\n" + RESIZE
    text, result = migrate_text(_init_pipe(graph=graph.replace("fn.expand_dims(data", "fn.expand_dims(img")))
    assert not _codes(result), text
    assert "for x in [data, data * 2]" in text and "start = dali_constant(" in text


@pytest.mark.parametrize(
    ("change", "code", "why"),
    [
        (
            {"graph": "        return self.start + 1\n"},
            "NDD901",
            "`self.start`, a graph constant made in `__init__`, used",
        ),
        ({"graph": SLICE + "        return data, self.shape\n"}, "NDD901", "`self.shape`, a graph constant"),
        ({"graph": SLICE + "        self.shape = 2\n" + RESIZE}, "NDD901", "`self.shape`, a graph constant"),
        (
            {"graph": "        return fn.cast(self.start, dtype=types.INT32), data\n"},
            "NDD101",
            "`self.start` (a graph constant) is an input of an operator none of whose other inputs",
        ),
        ({"start": "types.Constant(np.zeros(2), dtype=types.FLOAT64)"}, "NDD901", "of a `dtype=` other than"),
        ({"start": "types.Constant(np.zeros(2))"}, "NDD901", "without `dtype=`"),
        ({"start": "types.Constant(0, dtype=types.INT64, shape=[2])"}, "NDD901", "with arguments other than"),
        ({"start": "[types.Constant(0, dtype=types.INT64)]"}, "NDD901", "keep the Python value on `self`"),
        ({"start": "types.ScalarConstant(0, dtype=types.INT64)"}, "NDD901", "keep the Python value on `self`"),
        ({"more": "        self.also = self.start\n"}, "NDD901", "as `self.start`, assigned or read in `__init__`"),
    ],
)
def test_other_constants_made_in_init_keep_the_class(change, code, why):
    text, result = migrate_text(_init_pipe(**change))
    found = [d for d in result.diagnostics if d.needs_human and d.code == code]
    assert any(why in d.message for d in found), [d.message for d in result.diagnostics]
    assert "class Pipe(Pipeline)" in text


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_dali_constant_gives_the_constant_nodes_data():
    """``dali_constant(value, dtype)`` (the support module) against the data ``types.Constant(value,
    dtype=dtype)`` gave in a pipeline, DALI 2.4: float data to an integer type rounded half away
    from zero through float32 and saturated, integer data saturated, numbers (``ScalarConstant``)
    converted as Python converts them, every numeric dtype but FLOAT64."""
    import numpy as np
    import nvidia.dali.fn as fn
    import nvidia.dali.types as types
    from nvidia.dali import pipeline_def

    from ndd_migrate.support.template.ndd_support import dali_constant

    values = [
        np.array([3, -2, 7, 2**31 + 5]),
        np.array([1.7, -1.7, 2.5, -0.5, 0.1, 16777217.0, 2.4999999999, 300.4]),
        [3, -2, 300],
        [1.7, -2.5, 0.5],
        np.array([[1.5, 2.5]], dtype=np.float32),
        np.array([True, False]),
        np.array([np.nan, np.inf, -np.inf]),
        np.array(2.7),
        5,
        -2.5,
    ]
    names = ["BOOL", "FLOAT16", "FLOAT", *(f"{s}INT{b}" for s in ("", "U") for b in (8, 16, 32, 64))]
    for value in values:
        for name in names:
            dtype = getattr(types, name)

            @pipeline_def(batch_size=1, num_threads=1, device_id=None)
            def constant(value=value, dtype=dtype):
                return fn.copy(types.Constant(value, dtype=dtype))  # a `ScalarConstant` too, as an input

            pipe = constant()
            pipe.build()
            want = np.asarray(pipe.run()[0].at(0))
            have = dali_constant(value, dtype)
            assert have.dtype == want.dtype and have.shape == want.shape, (value, name, have, want)
            assert np.array_equal(have, want, equal_nan=True), (value, name, have, want)


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("int_type", ["INT64", "INT32"])
def test_ops_given_dali_constants_give_what_the_constant_nodes_gave(int_type):
    """The array of a constant made in ``__init__``, as a positional input (``slice``'s anchor and
    shape, integer) and as an argument input (``resize(size=...)``, ``crop(crop=...)``, float; a
    number as ``slice(fill_values=...)``): the ndd ops give the pipeline's samples."""
    import numpy as np
    import nvidia.dali.experimental.dynamic as ndd
    import nvidia.dali.fn as fn
    import nvidia.dali.types as types
    from nvidia.dali import pipeline_def

    from ndd_migrate.support.template.ndd_support import dali_constant

    rng = np.random.default_rng(5)
    samples = [rng.normal(size=(4 + k, 5 - k % 2, 1)).astype(np.float32) for k in range(3)]
    anchor, shape, size, crop, fill = [0.6, 1.5], np.array([4, 3]), np.array([7, 2.5]), [2.6, 3.5], 7
    int64 = getattr(types, int_type)
    a, s = (types.Constant(v, dtype=int64) for v in (anchor, shape))
    z, c = (types.Constant(v, dtype=types.FLOAT) for v in (size, crop))
    f = types.Constant(fill, dtype=types.UINT8)

    @pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def p():
        data = fn.external_source(source=lambda: samples, batch=True, layout="HWC")
        cut = fn.slice(data, a, s, axis_names="HW", out_of_bounds_policy="pad", fill_values=f)
        return cut, fn.resize(data, size=z), fn.crop(data, crop=c)

    pipe = p()
    pipe.build()
    expected = pipe.run()
    data = ndd.as_batch(samples, layout="HWC")
    a, s = (dali_constant(v, int64) for v in (anchor, shape))
    z, c = (dali_constant(v, types.FLOAT) for v in (size, crop))
    f = dali_constant(fill, types.UINT8)
    got = (
        ndd.slice(data, a, s, axis_names="HW", out_of_bounds_policy="pad", fill_values=f),
        ndd.resize(data, size=z),
        ndd.crop(data, crop=c),
    )
    for want, have in zip(expected, got):
        assert have.batch_size == 3
        for i in range(3):
            w, h = want.at(i), np.asarray(have.tensors[i])
            assert h.dtype == w.dtype and h.shape == w.shape and np.array_equal(h, w)
