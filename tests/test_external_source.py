"""NDD421: external sources migrated into the generator's loop give the pipeline's batches, and stop
where the pipeline raised ``StopIteration`` — checked by running both sides with real DALI."""

from __future__ import annotations

import types as pytypes

import pytest

from ndd_migrate.model.values import external_source
from tests.conftest import HAS_DALI, migrate_text

HEADER = "import numpy as np\nfrom nvidia.dali import fn, pipeline_def, types\n\n"
LIMIT = 12  # batches drawn at most (for sources that never end)

CASES = {
    "iterable, two outputs, layouts": (
        "class Batches:\n"
        "    def __iter__(self):\n"
        "        for i in range(3):\n"
        "            yield ([np.full((2, 3), 4 * i + j, dtype=np.uint8) for j in range(4)],\n"
        "                   np.arange(4 * i, 4 * i + 4, dtype=np.int32).reshape(4, 1))\n\n"
        "source = Batches()\n\n"
        "@pipeline_def(batch_size=4, num_threads=1, device_id=None)\n"
        "def pipe():\n"
        "    images, labels = fn.external_source(source=source, num_outputs=2, layout=['HW', ''])\n"
        "    return images * 2, labels\n"
    ),
    "generator function, cycle": (
        "def gen():\n"
        "    for i in range(3):\n"
        "        yield [np.array([i, j], dtype=np.float32) for j in range(2)]\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def pipe():\n"
        "    data = fn.external_source(source=gen, cycle='quiet', dtype=types.FLOAT)\n"
        "    return data + 1.0\n"
    ),
    "callable without argument": (
        "class Counter:\n"
        "    def __init__(self):\n"
        "        self.n = 0\n"
        "    def __call__(self):\n"
        "        self.n += 1\n"
        "        if self.n > 5:\n"
        "            raise StopIteration\n"
        "        return np.full((3, 2), self.n, dtype=np.int16)\n\n"
        "@pipeline_def(batch_size=3, num_threads=1, device_id=None)\n"
        "def pipe():\n"
        "    data = fn.external_source(source=Counter())\n"
        "    return data\n"
    ),
    "callable with the iteration number": (
        "def batch(i):\n"
        "    if i == 4:\n"
        "        raise StopIteration\n"
        "    return [np.array([i, k], dtype=np.int32) for k in range(2)]\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def pipe():\n"
        "    data = fn.external_source(batch)\n"
        "    return data\n"
    ),
    "callable with BatchInfo": (
        "def batch(info):\n"
        "    if info.iteration == 3:\n"
        "        raise StopIteration\n"
        "    return [np.array([info.iteration, info.epoch_idx, k], dtype=np.int32) for k in range(2)]\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def pipe():\n"
        "    data = fn.external_source(source=batch, batch_info=True)\n"
        "    return data\n"
    ),
    "per-sample callable with SampleInfo, two outputs": (
        "def sample(info):\n"
        "    if info.idx_in_epoch >= 10:\n"
        "        raise StopIteration\n"
        "    v = [info.idx_in_epoch, info.idx_in_batch, info.iteration, info.epoch_idx]\n"
        "    return np.array(v, dtype=np.int64), np.float32(info.idx_in_epoch)\n\n"
        "@pipeline_def(batch_size=3, num_threads=1, device_id=None)\n"
        "def pipe():\n"
        "    a, b = fn.external_source(source=sample, batch=False, num_outputs=2)\n"
        "    return a, b * 2\n"
    ),
    "per-sample iterable (generator object)": (
        "def samples():\n"
        "    for i in range(7):\n"
        "        yield np.arange(i + 1, dtype=np.uint8)\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def pipe():\n"
        "    data = fn.external_source(source=samples(), batch=False)\n"
        "    return data\n"
    ),
    "batch= from a module-level name, per sample, two outputs": (
        "PER_BATCH = False\n\n"
        "def sample(info):\n"
        "    if info.iteration >= 3:\n"
        "        raise StopIteration\n"
        "    return np.int32(info.idx_in_epoch), np.float32(info.idx_in_batch)\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def pipe():\n"
        "    a, b = fn.external_source(source=sample, batch=PER_BATCH, num_outputs=2)\n"
        "    return a, b\n"
    ),
    "batch= from a module-level name, per batch": (
        "SETTINGS = {'batch': True}\n\n"
        "def batch(i):\n"
        "    if i == 3:\n"
        "        raise StopIteration\n"
        "    return [np.array([i, k], dtype=np.int32) for k in range(2)]\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def pipe():\n"
        "    data = fn.external_source(batch, batch=SETTINGS['batch'])\n"
        "    return data\n"
    ),
    "batch= None from a name: DALI's default, per batch": (
        "MODE = None\n\n"
        "def batch(i):\n"
        "    if i == 2:\n"
        "        raise StopIteration\n"
        "    return [np.array([i, k], dtype=np.int32) for k in range(2)]\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def pipe():\n"
        "    data = fn.external_source(batch, batch=MODE)\n"
        "    return data\n"
    ),
    "batch= from a name, iterable drawn per sample": (
        "MODE = False\n\n"
        "def samples():\n"
        "    for i in range(5):\n"
        "        yield np.arange(i + 1, dtype=np.uint8)\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def pipe():\n"
        "    data = fn.external_source(source=samples(), batch=MODE)\n"
        "    return data\n"
    ),
    "parallel=True without batch=: per batch (DALI's default)": (
        "def sample(i):\n"
        "    if i >= 3:\n"
        "        raise StopIteration\n"
        "    return [np.full((2,), 2 * i + k, dtype=np.int32) for k in range(2)]\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None, py_start_method='fork')\n"
        "def pipe():\n"
        "    data = fn.external_source(source=sample, parallel=True)\n"
        "    return data\n"
    ),
    "iterator class deriving from object, made in the pipeline": (
        "class Frames(object):\n"
        "    def __init__(self, count):\n"
        "        self.count = count\n"
        "    def __iter__(self):\n"
        "        self.i = 0\n"
        "        return self\n"
        "    def __next__(self):\n"
        "        if self.i >= self.count:\n"
        "            raise StopIteration\n"
        "        self.i += 1\n"
        "        return ([np.full((2,), self.i * 10 + k, dtype=np.uint8) for k in range(3)],\n"
        "                [np.array([self.i], dtype=np.int32)] * 3)\n\n"
        "@pipeline_def(batch_size=3, num_threads=1, device_id=None)\n"
        "def pipe():\n"
        "    frames = Frames(4)\n"
        "    data, labels = fn.external_source(source=frames, num_outputs=2)\n"
        "    return data, labels\n"
    ),
    "num_outputs from the run, outputs kept as a list": (
        "NAMES = ['u', 'v', 'w']\n\n"
        "def gen():\n"
        "    for i in range(3):\n"
        "        yield tuple([np.full((k + 1,), i * 10 + k + j, dtype=np.int16) for j in range(2)] for k in range(3))\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def pipe():\n"
        "    data = fn.external_source(gen, num_outputs=len(NAMES), layout='X')\n"
        "    data = [d.cpu() - 1 for d in data]\n"
        "    return data[0], data[2], data[1][0]\n"
    ),
    "num_outputs from the run, per sample": (
        "WIDTHS = [1, 2, 3]\n\n"
        "def sample(info):\n"
        "    if info.iteration > 2:\n"
        "        raise StopIteration\n"
        "    return tuple(np.full((w,), info.idx_in_epoch * 10 + w, dtype=np.int32) for w in WIDTHS)\n\n"
        "@pipeline_def(batch_size=3, num_threads=1, device_id=None)\n"
        "def pipe():\n"
        "    data = fn.external_source(source=sample, num_outputs=len(WIDTHS), batch=False)\n"
        "    return tuple(data)\n"
    ),
    "num_outputs and batch= from the run, per sample": (
        "WIDTHS = [1, 2]\nPER_BATCH = False\n\n"
        "class Steps:\n"
        "    def __iter__(self):\n"
        "        for i in range(7):\n"
        "            yield tuple(np.full((w, 2), i, dtype=np.uint8) for w in WIDTHS)\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def pipe():\n"
        "    data = fn.external_source(Steps(), num_outputs=len(WIDTHS), batch=PER_BATCH)\n"
        "    return data[1], data[0]\n"
    ),
    "lambda, random op after it": (
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=3)\n"
        "def pipe():\n"
        "    data = fn.external_source(lambda: [np.ones((2,), np.float32)] * 2)\n"
        "    noise = fn.random.uniform(range=[0.0, 1.0])\n"
        "    return data + noise * 0.0\n"
    ),
}


def _load(text: str) -> pytypes.ModuleType:
    module = pytypes.ModuleType("case")
    exec(compile(text, "case.py", "exec"), module.__dict__)
    return module


def _collect(step) -> list:
    """Batches as lists of numpy samples, until StopIteration (or LIMIT)."""
    import numpy as np

    out = []
    for _ in range(LIMIT):
        try:
            batches = step()
        except StopIteration:
            out.append("StopIteration")
            break
        out.append([[np.asarray(t).tolist() for t in _samples(b)] + [str(_layout(b))] for b in batches])
    return out


def _samples(batch):
    return [batch.at(i) for i in range(len(batch))] if hasattr(batch, "at") else list(batch.tensors)


def _layout(batch):
    layout = batch.layout
    return (layout() if callable(layout) else layout) or ""  # no layout: "" in a pipeline, None in ndd


def _run_both(text: str):
    source = HEADER + text
    migrated, result = migrate_text(source)
    assert result.error is None and not [d for d in result.diagnostics if d.needs_human], migrated
    pipe = _load(source).pipe()
    pipe.build()
    return _collect(pipe.run), _collect(_load(migrated).pipe().__next__), migrated


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("name", CASES)
def test_same_batches_as_pipeline(name):
    original, migrated, text = _run_both(CASES[name])
    assert migrated == original, text
    assert len(original) > 1


def test_iterable_becomes_the_loop():
    text, _ = migrate_text(HEADER + CASES["iterable, two outputs, layouts"])
    assert "    for images, labels in source:\n" in text
    assert "images = ndd.as_batch(images, layout='HW')" in text
    assert "labels = ndd.as_batch(labels)\n" in text


def test_cycle_wraps_the_loop_forever():
    text, _ = migrate_text(HEADER + CASES["generator function, cycle"])
    assert "    while True:\n        for data in gen():\n" in text
    assert "dtype=types.FLOAT" in text


def test_types_import_added_when_missing():
    source = CASES["per-sample callable with SampleInfo, two outputs"]
    text, _ = migrate_text("import numpy as np\nfrom nvidia.dali import fn, pipeline_def\n\n" + source)
    assert "from nvidia.dali import types\n" in text
    assert "types.SampleInfo(iteration * batch_size + i, i, iteration, 0)" in text
    assert migrate_text(text)[0] == text


def test_batch_decided_at_run_time_reads_it_once():
    text, _ = migrate_text(HEADER + CASES["batch= from a module-level name, per sample, two outputs"])
    assert "    batched = PER_BATCH\n    if batched is None:\n        batched = True\n" in text
    assert "            if batched:\n                a, b = sample(iteration)\n            else:\n" in text
    assert "a = [s[0] for s in samples]" in text and "b = [s[1] for s in samples]" in text
    assert migrate_text(text)[0] == text


def test_batch_bound_to_a_literal_in_the_function_is_resolved():
    text, _ = migrate_text(
        HEADER
        + CASES["batch= from a module-level name, per sample, two outputs"]
        .replace("    a, b = fn.external_source(", "    per_batch = False\n    a, b = fn.external_source(")
        .replace("batch=PER_BATCH", "batch=per_batch")
    )
    assert "batched" not in text and "types.SampleInfo(" in text


def test_parallel_dropped_with_a_note():
    _, result = migrate_text(HEADER + CASES["parallel=True without batch=: per batch (DALI's default)"])
    notes = [d.message for d in result.diagnostics if d.code == "NDD421"]
    assert any("`parallel=` dropped" in n for n in notes), notes
    assert not [d for d in result.diagnostics if d.needs_human]


def test_parallel_from_a_name_is_dropped_too():
    text, result = migrate_text(
        HEADER
        + CASES["parallel=True without batch=: per batch (DALI's default)"].replace("parallel=True", "parallel=WORKERS")
    )
    assert "batched" not in text and "data = sample(iteration)" in text
    assert any("`parallel=` dropped" in d.message for d in result.diagnostics)


BLOCKED = {
    "run-time batch with cycle": ("data = fn.external_source(source=gen, cycle=True, batch=src)", "`cycle=` with"),
    "run-time batch with batch_info": (
        "data = fn.external_source(source=call, batch_info=True, batch=src)",
        "`batch_info=True` with a `batch=`",
    ),
    "cycle raise": ("data = fn.external_source(source=gen, cycle='raise')", 'cycle="raise"'),
    "no source": ("data = fn.external_source(name='in')", "feed_input"),
    "source=None": ("data = fn.external_source(source=None, name='in')", "feed_input"),
    "reader too": (
        "jpegs, labels = fn.readers.file(file_root='x')\n    data = fn.external_source(source=gen)",
        "a reader and an external source",
    ),
    "cycle callable": ("data = fn.external_source(source=call, cycle=True)", "needs an iterable source"),
    "nested": ("data = fn.external_source(source=gen) + 1", "not a statement"),
    "run-time num_outputs unpacked": (
        "data, _ = fn.external_source(source=gen, num_outputs=len(src))",
        "bound to one name",
    ),
    "run-time num_outputs, a layout per output": (
        "data = fn.external_source(source=gen, num_outputs=len(src), layout=['A', 'B'])",
        "a list of per-output",
    ),
}


def test_output_list_becomes_a_list_of_batches():
    text, result = migrate_text(HEADER + CASES["num_outputs from the run, outputs kept as a list"])
    assert "    for data in gen():\n        data = [ndd.as_batch(output, layout='X') for output in data]\n" in text
    assert "data[1].slice[0]" in text  # an output picked from the list, then sliced inside each sample
    assert not [d for d in result.diagnostics if d.needs_human]
    assert migrate_text(text)[0] == text


@pytest.mark.parametrize(
    "comprehension",
    [
        "[d for d in data if d]",
        "[(d, d) for d in data]",
        "[d for d in data for e in data]",
        "[fn.readers.file(file_root=d) for d in data]",
    ],
)
def test_other_comprehensions_of_the_output_list_block(comprehension):
    source = HEADER + (
        "def gen():\n    yield [1]\n\n"
        "@pipeline_def(batch_size=2)\n"
        f"def pipe(names):\n    data = fn.external_source(gen, num_outputs=len(names))\n    data = {comprehension}\n"
        "    return tuple(data)\n"
    )
    text, result = migrate_text(source)
    assert "@pipeline_def" in text and [d for d in result.diagnostics if d.needs_human]


@pytest.mark.parametrize("name", BLOCKED)
def test_blocked_with_reason(name):
    statement, reason = BLOCKED[name]
    source = (
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "def gen():\n    yield [1]\n\n\n"
        "def call():\n    return [1]\n\n\n"
        "@pipeline_def(batch_size=2)\n"
        f"def pipe(src):\n    {statement}\n    return data\n"
    )
    text, result = migrate_text(source)
    todos = [d for d in result.diagnostics if d.code == "NDD421" and d.needs_human]
    assert todos and reason in todos[0].message, [d.message for d in result.diagnostics]
    assert "@pipeline_def" in text and "# TODO(ndd-migrate): NDD421" in text


@pytest.mark.parametrize(
    "cls, kind",
    [
        ("class Src(object):\n    def __iter__(self):\n        return iter([[1]])\n", "iterable"),
        ("class Src(object):\n    def __call__(self):\n        return [1]\n", "callable"),
        # DALI tries iter() first: `__getitem__` makes an instance iterable, `__call__` or not
        (
            "class Src:\n    def __getitem__(self, i):\n        return [1]\n    def __call__(self):\n        return [1]\n",
            None,
        ),
        (
            "class Src(Base):\n    def __iter__(self):\n        return iter([[1]])\n",
            None,
        ),  # the base's methods are unknown
        ("class Src(object, metaclass=Meta):\n    def __iter__(self):\n        return iter([[1]])\n", None),
        ("class Src(object):\n    if True:\n        def __call__(self):\n            return [1]\n", None),
    ],
)
def test_a_class_of_the_module_decides_what_its_instance_is(cls, kind):
    """An instance of a class whose methods the code shows is drawn as its kind says; any other is
    left to `dali_external_source`, which asks the instance when the generator starts."""
    source = (
        "from nvidia.dali import fn, pipeline_def\n\n\nclass Base:\n    pass\n\n\nclass Meta(type):\n    pass\n\n\n"
        f"{cls}\n\n\n"
        "@pipeline_def(batch_size=2)\n"
        "def pipe():\n    inner = Src()\n    data = fn.external_source(source=inner)\n    return data\n"
    )
    text, result = migrate_text(source)
    assert not _human(result), _human(result)
    said = [d.message for d in result.diagnostics if d.code == "NDD421"]
    assert said == [f"external source ({kind or external_source.RUN_TIME}) → the generator's loop"], said
    assert ("feed = dali_external_source(inner)" in text) == (kind is None), text


def test_an_iterator_over_a_source_that_ends_says_so():
    source = (
        "from nvidia.dali import fn, pipeline_def\nfrom nvidia.dali.plugin.pytorch import DALIGenericIterator\n\n\n"
        "def gen():\n    yield [1]\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def pipe():\n    data = fn.external_source(source=gen)\n    return data\n\n\n"
        "source = pipe()\nfor batch in DALIGenericIterator(source, ['data']):\n    print(batch)\n"
    )
    out, result = migrate_text(source)  # the loop is over the call: the support module's iterator
    assert [d for d in result.diagnostics if d.needs_human] == []
    assert "    return batches\n" in out and "from ndd_support import DALIGenericIterator, prefetching\n" in out
    assert out.endswith("source = pipe()\nfor batch in DALIGenericIterator(source, ['data']):\n    print(batch)\n")
    called = source.replace("source=gen", "source=lambda: [1]").replace(
        "for batch in DALIGenericIterator(source, ['data']):",
        "loader = DALIGenericIterator(source, ['data'])\nfor batch in loader:",
    )
    out, result = migrate_text(called)  # a callable too: called again in each epoch's generator
    assert [d for d in result.diagnostics if d.needs_human] == []
    assert "    return batches\n" in out and "        for batch in next(loader):\n" not in out
    shown = called.replace("for batch in loader:", "print(source)\nfor batch in loader:")
    human = [d for d in migrate_text(shown)[1].diagnostics if d.needs_human]
    assert [d.code for d in human] == ["NDD008"]
    assert "each epoch ends where the external source raises `StopIteration`" in human[0].message
    assert "a migrated one never does" not in human[0].message and "without `cycle=`" in human[0].message


# -- beside a reader: a source that never ends, drawn once per batch (the reader drives the epochs) --

BESIDE = (
    "import numpy as np\nfrom nvidia.dali import fn, pipeline_def\n\n\n"
    "def offsets():\n"
    "    draw = np.random.default_rng(5)\n"
    "    for _ in range(3):\n"
    "        yield [draw.integers(0, 50, 4).astype(np.float32) for _ in range(2)]\n\n\n"
    "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
    "def pipe(root, shift=False, extra=None):\n"
    "    data = fn.readers.numpy(file_root=root)\n"
    "    if shift and extra is not None:\n"
    "        offset = fn.external_source(source=extra, cycle=True, dtype=types.FLOAT)\n"
    "        data = data + offset\n"
    "    return data * 2\n\n\n"
    "def make(root, shift):\n"
    "    extra = offsets if shift else None\n"
    "    return pipe(root, shift=shift, extra=extra)\n"
).replace("from nvidia.dali import fn, pipeline_def", "from nvidia.dali import fn, pipeline_def, types")


def _numpy_files(root) -> str:
    import numpy as np

    for i in range(5):
        np.save(root / f"s{i}.npy", np.arange(4, dtype=np.float32) + 10 * i)
    return str(root)


def _human(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.needs_human]


def test_beside_a_reader_in_an_if_is_drawn_at_its_place():
    text, result = migrate_text(BESIDE)
    assert not _human(result), _human(result)
    assert "    reader = ndd.readers.Numpy(file_root=root)\n    feed = None\n    while True:\n" in text
    assert (
        "            if shift and extra is not None:\n"
        "                if feed is None:\n"
        "                    feed = iter(extra())\n"
        "                try:\n"
        "                    offset = next(feed)\n"
        "                except StopIteration:  # `cycle=`: the source starts again\n"
        "                    feed = iter(extra())\n"
        "                    try:\n"
        "                        offset = next(feed)\n"
        "                    except StopIteration:  # `pipe.run()` raised it\n"
        "                        return\n"
        "                offset = ndd.as_batch(offset, dtype=types.FLOAT)\n"
        "                data = data + offset\n"
    ) in text, text
    notes = [d.message for d in result.diagnostics if d.code == "NDD421"]
    assert notes == [
        "external source (generator function) → drawn once per batch beside the reader "
        "(its iterator made at the first draw, under the `if`)"
    ], notes
    assert migrate_text(text)[0] == text


def test_beside_a_reader_at_the_top_makes_its_iterator_after_the_reader():
    source = (
        BESIDE.replace("    if shift and extra is not None:\n        offset", "    offset")
        .replace("        data = data + offset", "    data = data + offset")
        .replace("source=extra", "source=[[np.ones(4, np.float32)] * 2]")
    )
    text, result = migrate_text(source)
    assert not _human(result), _human(result)
    assert (
        "    reader = ndd.readers.Numpy(file_root=root)\n"
        "    feed_source = [[np.ones(4, np.float32)] * 2]\n"
        "    feed = iter(feed_source)\n"
        "    while True:\n"
        "        for (data,) in reader.next_epoch(batch_size=batch_size):\n"
        "            try:\n"
        "                offset = next(feed)\n"
        "            except StopIteration:  # `cycle=`: the source starts again\n"
        "                feed = iter(feed_source)\n"
    ) in text, text
    assert migrate_text(text)[0] == text


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("where, shift", [("in an if", True), ("in an if", False), ("at the top", True)])
def test_beside_a_reader_gives_the_pipeline_batches(tmp_path, shift, where):
    source = BESIDE
    if where == "at the top":  # drawn at every batch: the caller always passes the generator function
        source = source.replace("    if shift and extra is not None:\n        offset", "    offset").replace(
            "        data = data + offset", "    data = data + offset"
        )
    root = _numpy_files(tmp_path)
    migrated, result = migrate_text(source)
    assert not _human(result), _human(result)
    original = _load(source).make(root, shift)
    original.build()
    expected = _collect(original.run)
    assert _collect(_load(migrated).make(root, shift).__next__) == expected
    assert len(expected) == LIMIT and "StopIteration" not in expected  # 12 batches: 3 calls of `offsets` and more


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("shift", [True, False])
def test_beside_a_reader_a_source_of_either_kind_gives_the_pipeline_batches(tmp_path, shift):
    """The caller passes the generator function or a list: `dali_external_source` cycles through
    either as DALI did, drawn once per batch under the `if`."""
    source = BESIDE.replace("if shift and extra is not None:", "if extra is not None:").replace(
        "extra = offsets if shift else None", "extra = offsets if shift else [[np.ones(4, np.float32)] * 2] * 3"
    )
    root = _numpy_files(tmp_path)
    migrated, result = migrate_text(source)
    assert not _human(result), _human(result)
    assert (
        "                if feed is None:\n"
        "                    feed = dali_external_source(extra, cycle=True)\n"
        "                try:\n"
        "                    offset = next(feed)\n"
        "                except StopIteration:\n"
        "                    return\n"
    ) in migrated, migrated
    original = _load(source).make(root, shift)
    original.build()
    expected = _collect(original.run)
    assert _collect(_load(migrated).make(root, shift).__next__) == expected
    assert len(expected) == LIMIT and "StopIteration" not in expected


BESIDE_BLOCKED = {
    "a source that ends beside a reader": (("cycle=True", "cycle=False"), external_source.READER_AND_ENDING_SOURCE),
    "no cycle= beside a reader": (("cycle=True, ", ""), external_source.READER_AND_ENDING_SOURCE),
    "a condition that is not the parameters": (
        ("if shift and extra is not None:", "if shift and len(extra):"),
        external_source.NOT_BUILD_TIME,
    ),
    "a parameter of the condition assigned in the function": (
        (
            "    data = fn.readers.numpy(file_root=root)\n",
            "    data = fn.readers.numpy(file_root=root)\n    shift = not shift\n",
        ),
        external_source.NOT_BUILD_TIME,
    ),
    "in a loop": (
        ("    if shift and extra is not None:\n", "    for _ in range(1):\n"),
        external_source.NOT_A_STATEMENT,
    ),
    "in an if without a reader": (
        ("    data = fn.readers.numpy(file_root=root)\n", "    data = fn.random.uniform(range=[0, 1], shape=[4])\n"),
        external_source.NESTED_WITHOUT_READER,
    ),
}


@pytest.mark.parametrize("name", BESIDE_BLOCKED)
def test_beside_a_reader_blocked_with_reason(name):
    (old, new), reason = BESIDE_BLOCKED[name]
    assert old in BESIDE
    text, result = migrate_text(BESIDE.replace(old, new))
    todos = [d.message for d in result.diagnostics if d.code == "NDD421" and d.needs_human]
    assert todos == [f"`pipe` not migrated: {reason}"], _human(result)
    assert "@pipeline_def" in text and "# TODO(ndd-migrate): NDD421" in text


@pytest.mark.parametrize("source", ["offsets()", "(a for a in [[1]])", "made"])
def test_cycle_over_a_generator_object_is_refused_as_dali_does(source):
    text, result = migrate_text(
        BESIDE.replace("source=extra", f"source={source}").replace(
            "    data = fn.readers.numpy(file_root=root)\n",
            "    made = offsets()\n    data = fn.readers.numpy(file_root=root)\n",
        )
    )
    assert _human(result) == [
        "`pipe` not migrated: `cycle=` with a generator object: DALI refuses it when it builds the "
        'pipeline ("Cannot cycle through a generator"); pass the generator function instead'
    ]


def test_a_parameter_source_is_looked_up_as_python_does():
    """A method's `offsets` is the module's generator function, not the class attribute of that name."""
    source = BESIDE + (
        "\n\nclass Loader:\n    offsets = [[1]]\n\n"
        "    def start(self, root):\n        loaded = pipe(root, shift=True, extra=offsets)\n        loaded.build()\n"
    )
    text, result = migrate_text(source)
    assert not _human(result), _human(result)
    assert "feed = iter(extra())" in text
    shadowed = source.replace("extra=offsets)\n        loaded", "extra=self.offsets)\n        loaded")
    text, result = migrate_text(shadowed)  # a list, or the generator function: the run decides
    assert not _human(result) and "feed = dali_external_source(extra, cycle=True)" in text, text


def test_beside_a_reader_in_an_if_a_source_expression_is_evaluated_under_the_condition():
    text, result = migrate_text(BESIDE.replace("source=extra", "source=[[np.ones(4, np.float32)] * 2]"))
    assert not _human(result), _human(result)
    assert (
        "                if feed is None:\n"
        "                    feed_source = [[np.ones(4, np.float32)] * 2]\n"
        "                    feed = iter(feed_source)\n"
    ) in text, text
    assert "                    feed = iter(feed_source)\n                    try:\n" in text


@pytest.mark.parametrize(
    "change, reason",
    [
        (("source=gen", "source=[[1]], cycle=True"), "(here its source has `cycle=`: it never ends an epoch)"),
        (("source=gen", "source=gen, batch=BATCHED"), "(here its `batch=` is decided at run time)"),
        (
            (
                "loader = DALIGenericIterator(source, ['data'])",
                "loader = DALIGenericIterator(source, ['data'])\nprint(source)",
            ),
            "(here the pipeline is used other than by such iterators and `build()`)",
        ),
        (
            ("source = pipe()\n", "def make():\n    return pipe()\n\n\nsource = make()\n"),
            "(here it is made by a function that returns it (a factory))",
        ),
    ],
)
def test_an_iterator_over_a_source_that_ends_says_which_condition_fails(change, reason):
    """The finding names the one condition of the per-epoch shape that the pipeline does not meet."""
    source = (
        "from nvidia.dali import fn, pipeline_def\nfrom nvidia.dali.plugin.pytorch import DALIGenericIterator\n\n"
        "BATCHED = True\n\n\ndef gen():\n    yield [1]\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def pipe():\n    data = fn.external_source(source=gen)\n    return data\n\n\n"
        "source = pipe()\nloader = DALIGenericIterator(source, ['data'])\nfor batch in loader:\n    print(batch)\n"
    )
    assert not [d for d in migrate_text(source)[1].diagnostics if d.needs_human]  # the per-epoch shape
    old, new = change
    assert old in source
    human = [d.message for d in migrate_text(source.replace(old, new))[1].diagnostics if d.needs_human]
    assert any(
        "each epoch ends where the external source raises `StopIteration`" in m and reason in m for m in human
    ), human


def test_a_source_in_one_branch_and_a_reader_in_the_other_is_not_called_readerless():
    """The reader in the `else` branch is there: "a pipeline without a reader" was false."""
    source = (
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def p(render, root, use_render=False):\n"
        "    if use_render:\n"
        "        images, labels = fn.external_source(source=render, num_outputs=2)\n"
        "    else:\n"
        "        images, labels = fn.readers.file(file_root=root)\n"
        "    return images, labels\n\n\n"
        "pipe = p(None, '/d')\npipe.build()\nout = pipe.run()\n"
    )
    out, result = migrate_text(source)
    said = [d.message for d in result.diagnostics if d.code == "NDD421"]
    assert said and not any("without a reader" in m for m in said)
    assert said == [f"`p` not migrated: {external_source.BRANCH_BESIDE_READER}"]
    # a reader in the source's own branch is no reader of another branch: the general reason
    both = source.replace(
        "        images, labels = fn.external_source(source=render, num_outputs=2)\n",
        "        images, labels = fn.external_source(source=render, num_outputs=2)\n"
        "        extra, _ = fn.readers.file(file_root=root)\n",
    )
    assert both != source
    said = [d.message for d in migrate_text(both)[1].diagnostics if d.code == "NDD421"]
    assert said == [f"`p` not migrated: {external_source.NESTED_WITHOUT_READER}"]


PARAMETER_SOURCE = """\
import numpy as np
from nvidia.dali import fn, pipeline_def


class Batches(object):
    def __iter__(self):
        self.i = 0
        return self

    def __next__(self):
        if self.i == 3:
            raise StopIteration
        self.i += 1
        return [np.full(2, self.i, np.int32)] * 2


def draw(info):
    return [np.zeros(2, np.int32)] * 2


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def pipe(source):
    data = fn.external_source(source=source)
    return data


{calls}
"""


@pytest.mark.parametrize(
    "calls, drawn",
    [
        ("p = pipe(Batches())\np.build()\nprint(p.run())\n", "for data in source:"),
        ("batches = Batches()\np = pipe(source=batches)\np.build()\nprint(p.run())\n", "for data in source:"),
        ("p = pipe(lambda info: [np.ones(2, np.int32)] * 2)\np.build()\nprint(p.run())\n", "source(iteration)"),
        ("p = pipe(draw)\nq = pipe(draw)\np.build()\nprint(p.run(), q.run())\n", "source(iteration)"),
    ],
)
def test_a_parameter_source_has_the_kind_every_call_passes(calls, drawn):
    """`source=` a parameter: what every call of the pipeline function passes decides how the loop
    draws from it, an instance of an iterable class of the module, a name bound to one, a lambda, a
    function; as for a source the function names itself."""
    out, result = migrate_text(PARAMETER_SOURCE.format(calls=calls))
    assert not _human(result), _human(result)
    assert drawn in out, out


def test_a_parameter_source_of_two_kinds_is_drawn_as_the_run_decides():
    calls = "p = pipe(Batches())\nq = pipe(draw)\np.build()\nq.build()\nprint(p.run(), q.run())\n"
    text, result = migrate_text(PARAMETER_SOURCE.format(calls=calls))
    assert not _human(result), _human(result)
    assert (
        "    feed = dali_external_source(source)\n" in text and "from ndd_support import dali_external_source" in text
    )


RUN_TIME_LISTED = """\
import numpy as np
from nvidia.dali import fn, pipeline_def

NAMES = ["a", "b"]


def rows(info):
    if info.idx_in_epoch == 5:
        raise StopIteration
    return np.array([info.idx_in_epoch, info.iteration], np.int32), np.array([info.idx_in_batch], np.int32)


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def pipe(source, per_batch):
    outputs = fn.external_source(source=source, num_outputs=len(NAMES), batch=per_batch)
    return outputs[0] * 2, outputs[1]


def make():
    return pipe({"rows": rows}["rows"], per_batch=False)
"""


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_a_run_time_source_with_a_run_time_batch_and_a_list_of_outputs():
    """`batch=` and the kind both decided at run time, the outputs a list: `dali_external_source`
    draws per sample and gives one list per output, which the loop makes batches."""
    migrated, result = migrate_text(RUN_TIME_LISTED)
    assert not _human(result), _human(result)
    assert (
        "feed = dali_external_source(source, batch=per_batch, num_outputs=len(NAMES), batch_size=batch_size)"
        in migrated
    ), migrated
    original = _load(RUN_TIME_LISTED).make()
    original.build()
    expected = _collect(original.run)
    assert _collect(_load(migrated).make().__next__) == expected
    assert expected[-1] == "StopIteration" and len(expected) == 3


def test_a_source_without_source_says_where_it_is_fed():
    """An external source with no `source=` is fed by `feed_input` or `run(name=data)`, one batch
    per `run()`: the reason says so, and says when nothing in the module feeds it (a DALI proxy
    server, Triton, another module do)."""
    graph = (
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "@pipeline_def(batch_size=1, num_threads=1, device_id=None, prefetch_queue_depth=1)\n"
        "def fed():\n    data = fn.external_source(name='data')\n    return data + 1\n"
    )
    consumers = {
        "pipe = fed()\npipe.build()\npipe.feed_input('data', [[1]])\nout = pipe.run()\n": external_source.NO_SOURCE,
        "pipe = fed()\nout = pipe.run(data=[[1]])\n": external_source.NO_SOURCE,
        "": external_source.NO_SOURCE_FED_ELSEWHERE,
    }
    for consumer, reason in consumers.items():
        text, result = migrate_text(graph + "\n\n" + consumer)
        said = [d.message for d in result.diagnostics if d.code == "NDD421" and d.needs_human]
        assert said == [f"`fed` not migrated: {reason}"], (consumer, said)
        assert "@pipeline_def" in text


LAYOUTS = """\
import numpy as np
from nvidia.dali import fn, pipeline_def


def gen():
    yield [np.zeros((2, 2), np.float32)] * 2, [np.ones(3, np.int32)] * 2, [np.ones(1, np.int32)] * 2


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def p(layouts):
    a, b, c = fn.external_source(source=gen, num_outputs=3, layout={layout})
    return a, b, c
"""


def test_a_layout_list_shorter_than_the_outputs_leaves_the_rest_without_one():
    """DALI gives `layout[i]` to output i and none to the outputs past the list's end."""
    out, result = migrate_text(LAYOUTS.format(layout='["HW", "C"]'))
    assert 'a = ndd.as_batch(a, layout="HW")' in out and 'b = ndd.as_batch(b, layout="C")' in out
    assert "c = ndd.as_batch(c)" in out and not [d for d in result.diagnostics if d.needs_human]


def test_a_layout_of_several_outputs_that_is_not_a_literal_keeps_the_pipeline():
    """`layout=layouts`: a list (one per output) or a string (every output); only the run tells."""
    out, result = migrate_text(LAYOUTS.format(layout="layouts"))
    (found,) = [d for d in result.diagnostics if d.needs_human]
    assert found.code == "NDD421" and "`layout=` of several outputs is not a literal" in found.message
    assert "@pipeline_def" in out
