"""NDD422 (``fn.python_function``) and NDD402 (legacy ``ops.PythonFunction`` objects): written out as
plain Python over the samples, the pipeline's batches come out the same (real DALI)."""

from __future__ import annotations

import pytest

import libcst as cst
from libcst.metadata import MetadataWrapper, ScopeProvider

from ndd_migrate.codegen import python_function
from tests.conftest import HAS_DALI, migrate_text
from tests.test_external_source import HEADER, _collect, _load, _run_both

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
    "a strided result (DALI copies it into its buffer)": (
        "def mirrored(x):\n    return x[::-1]\n\n"
        + DECORATOR
        + "def pipe():\n    data = fn.external_source(source=batches)\n"
        "    flipped = fn.python_function(data, function=mirrored)\n"
        "    both = fn.python_function(data, function=lambda b: (b[::-1], [x[::2] for x in b]), num_outputs=2,\n"
        "                              batch_processing=True)\n"
        "    return flipped, both[0], both[1]\n"
    ),
    "no inputs: called once per sample": (
        "calls = []\n\n"
        "def ticket():\n    calls.append(1)\n    return np.array([len(calls)], dtype=np.int32)\n\n"
        + DECORATOR
        + "def pipe():\n    return fn.python_function(function=ticket)\n"
    ),
    "no inputs, per batch": (
        "def three():\n    return [np.full((2,), i, dtype=np.float32) for i in range(3)]\n\n"
        + DECORATOR
        + "def pipe():\n    return fn.python_function(function=three, batch_processing=True)\n"
    ),
    "a lambda": (
        DECORATOR
        + "def pipe():\n    data = fn.external_source(source=batches)\n"
        "    return fn.python_function(data, function=lambda x: x * 2.0)\n"
    ),
}


@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("name", CASES)
def test_same_batches_as_pipeline(name):
    original, migrated, text = _run_both(FEED + CASES[name])
    assert "python_function" not in text and "ndd.as_batch" in text
    assert migrated == original, text


def test_a_lambda_is_called_in_parentheses():
    """Was ``[lambda x: x * 2.0(np.asarray(s)) for s in ...]``: a list of lambdas."""
    text, _ = migrate_text(HEADER + FEED + CASES["a lambda"])
    assert '[np.asarray((lambda x: x * 2.0)(np.asarray(s)), order="C") for s in data.tensors]' in text


def test_no_inputs_calls_it_batch_size_times():
    text, _ = migrate_text(HEADER + FEED + CASES["no inputs: called once per sample"])
    assert 'ndd.as_batch([np.asarray(ticket(), order="C") for _ in range(batch_size)])' in text


@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_a_function_changing_its_sample_gets_a_copy():
    """DALI hands the function a writable view of its input; the migration gives a function that may
    change it ``np.array`` (a copy), so the input batch, returned too, keeps its values."""
    source = HEADER + FEED + (
        "def halve(x):\n    x /= 2.0\n    return x\n\n"
        + DECORATOR
        + "def pipe():\n    data = fn.external_source(source=batches)\n"
        "    return fn.python_function(data * 1.0, function=halve), data\n"
    )
    text, _ = migrate_text(source)
    assert '[np.asarray(halve(np.array(s)), order="C") for s in (data * 1.0).tensors]' in text
    migrated = _collect(_load(text).pipe().__next__)
    pipe = _load(source).pipe()
    pipe.build()
    assert migrated == _collect(pipe.run), text
    assert migrated[0][0][0] == [0.0, 0.5] and migrated[0][1][0] == [0.0, 1.0]


def _may_modify(source: str) -> bool:
    module = cst.parse_module("import numpy as np\n" + source + "\nused = f\n")
    scopes = MetadataWrapper(module, unsafe_skip_copy=True).resolve(ScopeProvider)

    class Resolver:
        def get_metadata(self, key, node, default=None):
            return scopes.get(node, default)

    return python_function.may_modify(module.body[-1].body[0].value, Resolver(), {"np"})


@pytest.mark.parametrize("source, expected", [
    ("def f(a, b):\n    return a + b\n", False),
    ("def f(x):\n    return x[::-1].copy(), x.shape[0]\n", False),
    ("def f(x):\n    y = np.flip(x)\n    return y * 2\n", False),
    ("def f(batch):\n    return [x[:1] for x in batch], [x[1:] for x in batch]\n", False),
    ("def f(x):\n    return x\n", False),
    ("def f(x):\n    x += 1\n    return x\n", True),
    ("def f(x):\n    x[0] = 1\n    return x\n", True),
    ("def f(x):\n    x.sort()\n    return x\n", True),
    ("def f(x):\n    y = x.reshape(-1)\n    y[0] = 3\n    return y\n", True),
    ("def f(x):\n    y = np.flip(x)\n    y += 2\n    return y\n", True),
    ("def f(x):\n    return np.clip(x, 0, 1, out=x)\n", True),
    ("def f(x):\n    return other(x)\n", True),
    ("def f(x):\n    for row in x:\n        row[0] = 1\n    return x\n", True),
    ("def f(batch):\n    rows = list(batch)\n    rows[0][0] = 1\n    return rows\n", True),
    ("def f(batch):\n    max(batch)[0] = 1\n    return batch\n", True),
    ("def f(x):\n    return len(x), abs(x)\n", False),
    ("from helpers import f\n", True),
    ("class F:\n    def __call__(self, x):\n        return x\n\nf = F()\n", True),
])
def test_may_modify(source, expected):
    """Only a function the module shows reading its arguments is handed views (``np.asarray``)."""
    assert _may_modify(source) is expected


BLOCKED = {
    "gpu": ("fn.python_function(data, function=f, device='gpu')", "CuPy"),
    "side effects": ("fn.python_function(data, function=f, num_outputs=0)", "side effects"),
    "a computed function": ("fn.python_function(data, function=make(3))", "is computed"),
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


LEGACY_HEADER = "import numpy as np\nimport nvidia.dali.ops as ops\nfrom nvidia.dali.pipeline import Pipeline\n\n"
LEGACY = (
    "made = []\n\n"
    "def batches():\n"
    "    for i in range(3):\n"
    "        yield [np.arange(k + 2, dtype=np.float32) * (i + 1) for k in range(3)]\n\n"
    "def square(x):\n    return x * x\n\n"
    "def offset(k):\n    made.append(k)\n    return lambda x: x + k\n\n"
    "def split(batch):\n    return [x[:1] for x in batch], [x[1:] for x in batch]\n\n"
    "class P(Pipeline):\n"
    "    def __init__(self, batch_size):\n"
    "        super().__init__(batch_size, 1, None, exec_async=False, exec_pipelined=False)\n"
    "        self.source = ops.ExternalSource()\n"
    "        self.feed = batches()\n"
    "        self.square = ops.PythonFunction(function=square)\n"
    "        self.shift = ops.PythonFunction(function=offset(10.0))\n"
    "        self.zeros = ops.PythonFunction(function=lambda: np.zeros((2,), np.float32))\n"
    "        self.split = ops.PythonFunction(function=split, num_outputs=2, batch_processing=True)\n\n"
    "    def define_graph(self):\n"
    "        self.data = self.source()\n"
    "        head, tail = self.split(self.data, output_layouts=['A', 'B'])\n"
    "        return self.square(self.data), self.shift(self.data), self.zeros(), head, tail\n\n"
    "    def iter_setup(self):\n"
    "        self.feed_input(self.data, next(self.feed))\n\n"
    "def pipe():\n    return P(3)\n"
)


def test_legacy_calls_become_plain_python():
    text, result = migrate_text(LEGACY_HEADER + LEGACY)
    assert not [d for d in result.diagnostics if d.needs_human], text
    assert "    shift_function = offset(10.0)\n" in text  # evaluated once, where it was created
    assert "    zeros_function = lambda: np.zeros((2,), np.float32)\n" in text
    assert 'ndd.as_batch([np.asarray(square(np.asarray(s)), order="C") for s in data.tensors])' in text
    assert "shift_function(np.array(s))" in text  # a closure: it may change its argument
    assert 'ndd.as_batch([np.asarray(zeros_function(), order="C") for _ in range(batch_size)])' in text
    assert ('[ndd.as_batch([np.asarray(o, order="C") for o in out], layout=layout) for out, layout in '
            "zip(split([np.asarray(s) for s in data.tensors]), ['A', 'B'])]") in text
    assert "PythonFunction" not in text


@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_legacy_same_batches_as_pipeline():
    source = LEGACY_HEADER + LEGACY
    text, _ = migrate_text(source)
    module = _load(text)
    migrated = _collect(module.pipe().__next__)
    assert module.made == [10.0], "the function's factory must run once"
    pipe = _load(source).pipe()
    pipe.build()
    assert migrated == _collect(pipe.run), text


LEGACY_BLOCKED = {
    "gpu": ("self.f = ops.PythonFunction(function=square, device='gpu')", "self.f(data)", "CuPy"),
    "side effects": ("self.f = ops.PythonFunction(function=square, num_outputs=0)", "self.f(data)", "side effects"),
    "positional": ("self.f = ops.PythonFunction(square)", "self.f(data)", "positional arguments"),
    "gpu at the call": ("self.f = ops.PythonFunction(function=square)", "self.f(data, device='gpu')", "CuPy"),
    "in an if": ("if batch_size > 1:\n            self.f = ops.PythonFunction(function=square)\n"
                 "        else:\n            self.f = ops.PythonFunction(function=np.sqrt)",
                 "self.f(data)", "created in an `if`"),
}


@pytest.mark.parametrize("name", LEGACY_BLOCKED)
def test_legacy_left_for_a_human(name):
    ctor, call, reason = LEGACY_BLOCKED[name]
    source = LEGACY_HEADER + (
        "def square(x):\n    return x * x\n\n"
        "class P(Pipeline):\n"
        "    def __init__(self, batch_size):\n"
        "        super().__init__(batch_size, 1, None)\n"
        "        self.input = ops.readers.Numpy(file_root='x')\n"
        f"        {ctor}\n\n"
        "    def define_graph(self):\n"
        "        data = self.input()\n"
        f"        return {call}\n"
    )
    text, result = migrate_text(source)
    found = [d.message for d in result.diagnostics if d.code == "NDD402" and d.needs_human]
    assert len(found) == 1 and reason in found[0], found
    assert "class P(Pipeline):" in text


def test_legacy_function_name_rebound_in_init_is_bound_once():
    """``function=f`` where ``__init__`` binds ``f`` again afterwards: the object holds the first value."""
    source = LEGACY_HEADER + (
        "def square(x):\n    return x * x\n\n"
        "class P(Pipeline):\n"
        "    def __init__(self, batch_size, f):\n"
        "        super().__init__(batch_size, 1, None)\n"
        "        self.input = ops.readers.Numpy(file_root='x')\n"
        "        self.a = ops.PythonFunction(function=f)\n"
        "        f = square\n"
        "        self.b = ops.PythonFunction(function=f)\n\n"
        "    def define_graph(self):\n"
        "        data = self.input()\n"
        "        return self.a(data), self.b(data)\n"
    )
    text, result = migrate_text(source)
    assert not [d for d in result.diagnostics if d.needs_human], text
    assert "    a_function = f\n    f = square\n    b_function = f\n" in text
    assert "a_function(np.array(s))" in text
