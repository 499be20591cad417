"""NDD422 (``fn.python_function``) and NDD402 (legacy ``ops.PythonFunction`` objects): written out as
plain Python over the samples, the pipeline's batches come out the same (real DALI)."""

from __future__ import annotations

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, ScopeProvider

from ndd_migrate.model.features import python_operators
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
        DECORATOR + "def pipe():\n    data = fn.external_source(source=batches)\n"
        "    return fn.python_function(data, function=lambda x: x * 2.0)\n"
    ),
}


@pytest.mark.dali
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


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_a_function_changing_its_sample_gets_a_copy():
    """DALI hands the function a writable view of its input; the migration gives a function that may
    change it ``np.array`` (a copy), so the input batch, returned too, keeps its values."""
    source = (
        HEADER
        + FEED
        + (
            "def halve(x):\n    x /= 2.0\n    return x\n\n"
            + DECORATOR
            + "def pipe():\n    data = fn.external_source(source=batches)\n"
            "    return fn.python_function(data * 1.0, function=halve), data\n"
        )
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

    return python_operators.may_modify(module.body[-1].body[0].value, Resolver(), {"np"})


@pytest.mark.parametrize(
    "source, expected",
    [
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
    ],
)
def test_may_modify(source, expected):
    """Only a function the module shows reading its arguments is handed views (``np.asarray``)."""
    assert _may_modify(source) is expected


BLOCKED = {
    "gpu": ("fn.python_function(data, function=f, device='gpu')", "CuPy"),
    "a sink's result used": ("fn.python_function(data, function=f, num_outputs=0)", "its result cannot be used"),
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
    assert (
        '[ndd.as_batch([np.asarray(o, order="C") for o in out], layout=layout) for out, layout in '
        "zip(split([np.asarray(s) for s in data.tensors]), ['A', 'B'])]"
    ) in text
    assert "PythonFunction" not in text


@pytest.mark.dali
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
    "a sink's result used": (
        "self.f = ops.PythonFunction(function=square, num_outputs=0)",
        "self.f(data)",
        "its result cannot be used",
    ),
    "positional": ("self.f = ops.PythonFunction(square)", "self.f(data)", "positional arguments"),
    "gpu at the call": ("self.f = ops.PythonFunction(function=square)", "self.f(data, device='gpu')", "CuPy"),
    "in an if": (
        "if batch_size > 1:\n            self.f = ops.PythonFunction(function=square)\n"
        "        else:\n            self.f = ops.PythonFunction(function=np.sqrt)",
        "self.f(data)",
        "created in an `if`",
    ),
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


# -- sinks (`num_outputs=0`) ------------------------------------------------------------------------

SINKS = {
    "per sample, after an output's function": (
        "def save(x):\n    log.append(('save', x.tolist(), x.flags.writeable))\n\n"
        "def double(x):\n    log.append(('double', x.tolist()))\n    return x * 2\n\n"
        + DECORATOR
        + "def pipe():\n    data = fn.external_source(source=batches)\n"
        "    out = fn.python_function(data, function=double)\n"
        "    fn.python_function(data, function=save, num_outputs=0)\n"
        "    return out\n"
    ),
    "two inputs, then per batch, then per batch without inputs": (
        "def pair(a, b):\n    log.append(('pair', a.tolist(), b.tolist()))\n\n"
        "def whole(batch):\n    log.append(('whole', [x.tolist() for x in batch]))\n\n"
        "def tick():\n    log.append('tick')\n\n"
        + DECORATOR
        + "def pipe():\n    data = fn.external_source(source=batches)\n"
        "    fn.python_function(data, data * 3.0, function=pair, num_outputs=0)\n"
        "    fn.python_function(data, function=whole, num_outputs=0, batch_processing=True)\n"
        "    fn.python_function(function=tick, num_outputs=0, batch_processing=True)\n"
        "    return data\n"
    ),
}


def _run_both_logged(text: str):
    """The batches and the ``log`` the functions append to, run by DALI and by the migrated code."""
    source = HEADER + FEED + "log = []\n\n" + text
    migrated, result = migrate_text(source)
    assert result.error is None and not [d for d in result.diagnostics if d.needs_human], migrated
    original = _load(source)
    pipe = original.pipe()
    pipe.build()
    assert original.log == [], "DALI calls no function at build()"
    expected = _collect(pipe.run)
    module = _load(migrated)
    return (expected, original.log), (_collect(module.pipe().__next__), module.log), migrated


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("name", SINKS)
def test_sink_calls_as_dali(name):
    """Each sink is called at every batch, per sample in order (or once per batch), after the
    Python operators giving the outputs, with what DALI gives it (writable numpy arrays)."""
    original, migrated, text = _run_both_logged(SINKS[name])
    assert "python_function" not in text
    assert migrated == original, text
    assert len(original[1]) >= 9


def test_sink_becomes_a_statement_over_the_samples():
    text, _ = migrate_text(
        HEADER + FEED + "log = []\n\n" + SINKS["two inputs, then per batch, then per batch without inputs"]
    )
    assert (
        "        for s0, s1 in zip(data.tensors, (data * 3.0).tensors):\n"
        "            pair(np.asarray(s0), np.asarray(s1))\n"
        "        whole([np.asarray(s) for s in data.tensors])\n"
        "        tick()\n        yield data.evaluate(),\n"
    ) in text


def test_sink_that_only_reads_gets_views_and_keeps_its_comment():
    source = HEADER + (
        "def show(x):\n    print(x.shape)\n\n"
        + DECORATOR
        + "def pipe(root):\n    (data,) = fn.readers.numpy(file_root=root)\n\n"
        "    # inspect\n    fn.python_function(data, function=show, num_outputs=0)  # each sample\n    return data\n"
    )
    text, result = migrate_text(source)
    assert not [d for d in result.diagnostics if d.needs_human], text
    assert (
        "            # inspect\n            for s in data.tensors:  # each sample\n"
        "                show(np.asarray(s))\n            yield"
    ) in text, text


SINKS_BLOCKED = {
    "its result used": (
        "    done = fn.python_function(data, function=show, num_outputs=0)\n",
        "its result cannot be used",
    ),
    "inside a block": (
        "    if root:\n        fn.python_function(data, function=show, num_outputs=0)\n",
        "inside a block",
    ),
    "a Python operator after it": (
        (
            "    fn.python_function(data, function=show, num_outputs=0)\n"
            "    data = fn.python_function(data, function=lambda x: x + 1)\n"
        ),
        "move the sink's statement after them",
    ),
    "per sample without inputs: DALI never calls it": (
        "    fn.python_function(function=show, num_outputs=0)\n",
        "DALI never calls it",
    ),
}


@pytest.mark.parametrize("name", SINKS_BLOCKED)
def test_sink_blocked_with_reason(name):
    body, reason = SINKS_BLOCKED[name]
    source = HEADER + (
        "def show(*x):\n    print(x)\n\n"
        + DECORATOR
        + f"def pipe(root):\n    (data,) = fn.readers.numpy(file_root=root)\n{body}    return data\n"
    )
    text, result = migrate_text(source)
    found = [d.message for d in result.diagnostics if d.needs_human]
    assert len(found) == 1 and reason in found[0], found
    assert "@pipeline_def" in text


def test_a_sink_after_another_sink_converts():
    """Sinks run in the order they were created, after the other Python operators: as written."""
    source = HEADER + (
        "def show(x):\n    print(x.shape)\n\n"
        + DECORATOR
        + "def pipe(root):\n    (data,) = fn.readers.numpy(file_root=root)\n"
        "    fn.python_function(data, function=show, num_outputs=0)\n"
        "    fn.python_function(data, function=show, num_outputs=0, batch_processing=True)\n    return data\n"
    )
    text, result = migrate_text(source)
    assert not [d for d in result.diagnostics if d.needs_human], text


# -- `batch_processing=` a parameter of the pipeline ----------------------------------------------

PARAMETER = (
    "def kind(x):\n    log.append(type(x).__name__)\n    return [s * 2 for s in x] if isinstance(x, list) else x * 2\n\n"
    "def seen(x):\n    log.append(('seen', type(x).__name__))\n\n"
    + DECORATOR
    + "def pipe(per_batch=False):\n    data = fn.external_source(source=batches)\n"
    "    out = fn.python_function(data, function=kind, batch_processing=per_batch)\n"
    "    fn.python_function(data, function=seen, batch_processing=per_batch, num_outputs=0)\n"
    "    return out\n"
)


def test_batch_processing_parameter_writes_both_forms():
    text, result = migrate_text(HEADER + FEED + "log = []\n\n" + PARAMETER)
    assert not [d for d in result.diagnostics if d.needs_human], text
    assert (
        'out = (ndd.as_batch([np.asarray(o, order="C") for o in kind([np.asarray(s) for s in data.tensors])]) '
        'if per_batch else ndd.as_batch([np.asarray(kind(np.asarray(s)), order="C") for s in data.tensors]))'
    ) in text
    assert (
        "        if per_batch:\n            seen([np.asarray(s) for s in data.tensors])\n"
        "        else:\n            for s in data.tensors:\n                seen(np.asarray(s))\n"
    ) in text


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("per_batch", [False, True])
def test_batch_processing_parameter_same_as_pipeline(per_batch):
    source = HEADER + FEED + "log = []\n\n" + PARAMETER
    text, _ = migrate_text(source)
    original = _load(source)
    pipe = original.pipe(per_batch=per_batch)
    pipe.build()
    expected = _collect(pipe.run)
    module = _load(text)
    assert (_collect(module.pipe(per_batch=per_batch).__next__), module.log) == (expected, original.log), text
    assert original.log[0] == ("list" if per_batch else "ndarray")


def test_batch_processing_parameter_of_a_sink_without_inputs():
    """Per sample, DALI calls a sink without inputs for no sample: only the batch form calls it."""
    source = HEADER + (
        "def tick():\n    print(1)\n\n"
        + DECORATOR
        + "def pipe(root, once=True):\n    (data,) = fn.readers.numpy(file_root=root)\n"
        "    fn.python_function(function=tick, num_outputs=0, batch_processing=once)\n    return data\n"
    )
    text, result = migrate_text(source)
    assert not [d for d in result.diagnostics if d.needs_human], text
    assert "            if once:\n                tick()\n            yield" in text, text


@pytest.mark.parametrize(
    "body, params",
    [
        ("    per_batch = not per_batch\n", "per_batch=False"),  # bound again in the body
        ("", "root"),  # a module-level name, not a parameter
    ],
)
def test_batch_processing_name_that_is_not_a_fixed_parameter_blocks(body, params):
    source = HEADER + (
        "per_batch = True\n\n"
        + DECORATOR
        + f"def pipe({params}):\n{body}    (data,) = fn.readers.numpy(file_root='x')\n"
        "    return fn.python_function(data, function=np.sqrt, batch_processing=per_batch)\n"
    )
    text, result = migrate_text(source)
    found = [d.message for d in result.diagnostics if d.code == "NDD422" and d.needs_human]
    assert found and "`batch_processing=` is neither a literal" in found[0], found
    assert "@pipeline_def" in text


LEGACY_SINK = (
    "log = []\n\n"
    "def batches():\n"
    "    for i in range(3):\n"
    "        yield [np.arange(k + 2, dtype=np.float32) * (i + 1) for k in range(3)]\n\n"
    "def save(x):\n    log.append(('save', x.tolist()))\n\n"
    "def trio(x):\n    log.append(type(x).__name__)\n"
    "    return (x, [s + 1 for s in x], [s * 2 for s in x]) if isinstance(x, list) else (x, x + 1, x * 2)\n\n"
    "class P(Pipeline):\n"
    "    def __init__(self, batch_size, function, batch_processing=False):\n"
    "        super().__init__(batch_size, 1, None, exec_async=False, exec_pipelined=False)\n"
    "        self.source = ops.ExternalSource()\n"
    "        self.feed = batches()\n"
    "        self.f = ops.PythonFunction(function=function, num_outputs=3, batch_processing=batch_processing)\n"
    "        self.sink = ops.PythonFunction(function=save, num_outputs=0)\n\n"
    "    def define_graph(self):\n"
    "        self.data = self.source()\n"
    "        a, b, c = self.f(self.data)\n"
    "        self.sink(b)\n"
    "        return a, b, c\n\n"
    "    def iter_setup(self):\n"
    "        self.feed_input(self.data, next(self.feed))\n\n"
    "def pipe(batch_processing):\n    return P(3, trio, batch_processing=batch_processing)\n"
)


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("batch_processing", [False, True])
def test_legacy_sink_and_batch_processing_parameter_same_as_pipeline(batch_processing):
    source = LEGACY_HEADER + LEGACY_SINK
    text, result = migrate_text(source)
    assert not [d for d in result.diagnostics if d.needs_human], text
    assert "        for s in b.tensors:\n            save(np.asarray(s))\n        yield" in text
    assert "if batch_processing else" in text and "PythonFunction" not in text
    original = _load(source)
    pipe = original.pipe(batch_processing)
    pipe.build()
    expected = _collect(pipe.run)
    module = _load(text)
    assert (_collect(module.pipe(batch_processing).__next__), module.log) == (expected, original.log), text
    assert original.log[0] == ("list" if batch_processing else "ndarray") and ("save", [1.0, 2.0]) in original.log


@pytest.mark.parametrize(
    "change, reason",
    [
        (
            (
                "        self.sink(b)\n        return a, b, c\n",
                "        self.sink(b)\n        return a, self.f(b)[0], c\n",
            ),
            "move the sink's statement after them",
        ),
        (
            ("        super().__init__(", "        batch_processing = not batch_processing\n        super().__init__("),
            "`batch_processing=` is neither a literal",
        ),
    ],
)
def test_legacy_sink_or_parameter_blocked(change, reason):
    source = LEGACY_HEADER + LEGACY_SINK.replace(*change)
    text, result = migrate_text(source)
    found = [d.message for d in result.diagnostics if d.code == "NDD402" and d.needs_human]
    assert found and reason in found[0], found
    assert "class P(Pipeline):" in text


def test_legacy_sink_of_a_made_function_is_bound_once():
    source = LEGACY_HEADER + (
        "def make_saver(tag):\n    return lambda x: print(tag, x.shape)\n\n"
        "class P(Pipeline):\n"
        "    def __init__(self, batch_size):\n"
        "        super().__init__(batch_size, 1, None, exec_async=False, exec_pipelined=False)\n"
        "        self.input = ops.readers.Numpy(file_root='x')\n"
        "        self.sink = ops.PythonFunction(function=make_saver('seen'), num_outputs=0)\n\n"
        "    def define_graph(self):\n"
        "        data = self.input()\n"
        "        self.sink(data)\n"
        "        return data\n"
    )
    text, result = migrate_text(source)
    assert not [d for d in result.diagnostics if d.needs_human], text
    assert "    sink_function = make_saver('seen')\n" in text
    assert "            for s in data.tensors:\n                sink_function(np.array(s))\n            yield" in text
