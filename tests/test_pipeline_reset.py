"""``pipe.reset()`` on a converted pipeline (NDD005): dropped where DALI's reset does nothing (the
pipeline never ends), the creation call again where the pipeline holds nothing else, else the
pipeline stays with the reason (NDD008). DALI 2.4 ``Pipeline.reset``: acts only after a
``StopIteration`` of ``iter_setup`` / an external source; readers and random state go on."""

from __future__ import annotations

import pytest

from tests.conftest import migrate_text

READER = (
    "from nvidia.dali import fn, pipeline_def\n\n\n"
    "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
    "def p(root):\n"
    "    data = fn.readers.numpy(file_root=root)\n"
    "    return data\n\n\n"
)

LEGACY = (
    "import nvidia.dali.ops as ops\n"
    "from nvidia.dali.pipeline import Pipeline\n\n\n"
    "class Fed(Pipeline):\n"
    "    def __init__(self, items, device_id):\n"
    "        super().__init__(batch_size=1, num_threads=1, device_id=device_id)\n"
    "        self.source = ops.ExternalSource()\n"
    "        self.items = items\n"
    "{init}\n"
    "    def define_graph(self):\n"
    "        self.data = self.source()\n"
    "        return {out}\n\n"
    "    def iter_setup(self):\n"
    "{setup}"
    "        self.feed_input(self.data, next(self.items))\n\n\n"
)

RUN = "    while True:\n        try:\n            pipe.run()\n        except StopIteration:\n            break\n"


def _legacy(tail, init="", out="self.data", setup=""):
    return LEGACY.format(init=init, out=out, setup=setup) + tail


def _human(result):
    return [d for d in result.diagnostics if d.needs_human]


def test_reset_of_a_pipeline_that_never_ends_is_dropped():
    source = READER + "pipe = p('/data')\npipe.build()\npipe.run()\npipe.reset()\n(data,) = pipe.run()\n"
    out, result = migrate_text(source)
    assert not _human(result), _human(result)
    assert "reset" not in out and "(data,) = next(pipe)" in out
    assert any(d.code == "NDD005" and "did nothing" in d.message for d in result.diagnostics)


def test_a_dropped_reset_alone_in_its_block_leaves_pass():
    source = READER + "pipe = p('/data')\nfor i in range(2):\n    pipe.run()\n    if i:\n        pipe.reset()\n"
    out, result = migrate_text(source)
    assert not _human(result)
    assert "    if i:\n        pass\n" in out


def test_reset_after_iter_setup_ends_calls_the_class_again():
    source = _legacy(
        "items = iter([[1], [2]])\npipe = Fed(items, None)\nfor _ in range(2):\n" + RUN + "    pipe.reset()\n"
    )
    out, result = migrate_text(source)
    assert not _human(result), _human(result)
    assert "    pipe = Fed(items, None)\n" in out and "reset" not in out


def test_reset_calls_the_class_again_when_its_argument_was_only_bound_before_the_creation():
    source = _legacy(
        "items = iter([[0]])\nnext(items)\nitems = iter([[1], [2]])\npipe = Fed(items, None)\n"
        "for _ in range(2):\n" + RUN + "    pipe.reset()\n"
    )
    out, result = migrate_text(source)
    assert not _human(result), _human(result)
    assert "    pipe = Fed(items, None)\n" in out and "reset" not in out


@pytest.mark.parametrize(
    "source, why",
    [
        (
            _legacy("pipe = Fed(iter([[1]]), None)\n" + RUN.replace("    ", "", 1) + "pipe.reset()\n"),
            "the argument `iter([[1]])` of `pipe`'s creation would be computed again",
        ),
        (
            _legacy("items = iter([])\npipe = Fed(items, None)\nitems = iter([[1]])\npipe.reset()\n"),
            "`items`, an argument of `pipe`'s creation, may be bound again between the creation and the reset",
        ),
        (
            _legacy(
                "items = iter([])\nfor k in range(2):\n    items = iter([[k]])\n    if k == 0:\n"
                "        pipe = Fed(items, None)\n    pipe.reset()\n"
            ),
            "may be bound again between the creation and the reset",
        ),
        (
            _legacy(
                "items = iter([])\n\n\ndef refill():\n    global items\n    items = iter([[1]])\n\n\n"
                "items = iter([[2]])\npipe = Fed(items, None)\nrefill()\npipe.reset()\n"
            ),
            "may be bound again between the creation and the reset",
        ),
        (
            _legacy("items = iter([])\npipe = Fed(items, None)\npipe = Fed(items, None)\npipe.reset()\n"),
            "`pipe` is not bound once",
        ),
        (
            _legacy("items = iter([])\npipe = Fed(items, None)\n\n\ndef again():\n    pipe.reset()\n\n\nagain()\n"),
            "`pipe` is not bound once, in the scope of its `reset()`",
        ),
        (
            _legacy(
                "items = iter([])\npipe = Fed(items, None)\npipe.reset()\n",
                setup="        self.count += 1\n",
                init="        self.count = 0\n",
            ),
            "`iter_setup` keeps `self.count` between batches",
        ),
        (
            _legacy(
                "items = iter([])\npipe = Fed(items, None)\npipe.reset()\n",
                init="        self.coin = ops.random.CoinFlip()\n",
                out="self.data, self.coin()",
            ),
            "the random state goes on",
        ),
        (
            _legacy("items = iter([])\npipe = Fed(items, None)\npipe.reset()\n", init="        print('made')\n"),
            "`__init__` runs statements that a new generator would run again",
        ),
    ],
)
def test_reset_that_a_new_generator_would_not_reproduce_keeps_the_pipeline(source, why):
    out, result = migrate_text(source)
    found = _human(result)
    assert [d.code for d in found] == ["NDD008"], found
    assert why in found[0].message, found[0].message
    assert "class Fed(Pipeline):" in out


def test_reset_of_an_external_source_pipeline_keeps_it():
    source = (
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "def gen():\n    yield [1]\n\n\n"
        "@pipeline_def(batch_size=1, num_threads=1, device_id=None)\n"
        "def p():\n    data = fn.external_source(source=gen)\n    return data\n\n\n"
        "pipe = p()\npipe.run()\npipe.reset()\n"
    )
    out, result = migrate_text(source)
    found = _human(result)
    assert [d.code for d in found] == ["NDD008"] and "external source's next epoch" in found[0].message


# -- a datapipe class: `self.pipe = self._create_pipeline()`, reset before each pass's iterator --

DATAPIPE = """\
import numpy as np
import nvidia.dali as dali
import nvidia.dali.plugin.pytorch as dali_pth


class Rows:
    def __call__(self, info):
        if info.iteration >= 2:
            raise StopIteration()
        return np.array([info.idx_in_epoch, info.epoch_idx], dtype=np.int64)


class Datapipe:
    def __init__(self):
        self.pipe = self._create_pipeline()

    def _create_pipeline(self):
        pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
        with pipe:
            rows = dali.fn.external_source(Rows(), batch=False)
            pipe.set_outputs(rows)
        return pipe

    def __iter__(self):
        self.pipe.reset()
        return dali_pth.DALIGenericIterator([self.pipe], ["rows"])
"""


def test_a_datapipe_reset_before_each_iterator_is_dropped():
    """The pipeline becomes one generator per epoch, which goes on to the next epoch after the
    source's end by itself: the reset goes, and each pass gets the support module's iterator."""
    out, result = migrate_text(DATAPIPE)
    assert [d for d in result.diagnostics if d.needs_human] == []
    assert "reset()" not in out and "from ndd_support import DALIGenericIterator, prefetching\n" in out
    assert '        return DALIGenericIterator([self.pipe], ["rows"])\n' in out
    assert "epoch_idx, iteration = epoch_idx + 1, 0" in out


@pytest.mark.parametrize(
    "change, why",
    [
        (
            ("        self.pipe.reset()\n", "        self.pipe.reset()\n        print(self.pipe.max_batch_size)\n"),
            "`self.pipe` is used other than by `reset()`, `build()` and iterators",
        ),
        (
            (
                "    def __iter__(self):\n",
                "    def fresh(self):\n        return self._create_pipeline()\n\n    def __iter__(self):\n",
            ),
            "what it returns is not followed",
        ),
    ],
)
def test_a_datapipe_used_otherwise_keeps_its_pipeline_and_says_why(change, why):
    old, new = change
    assert old in DATAPIPE
    text = DATAPIPE.replace(old, new)
    out, result = migrate_text(text)
    human = [d for d in result.diagnostics if d.needs_human]
    assert human and all(d.code == "NDD008" for d in human)
    assert any(why in d.message for d in human), [d.message for d in human]
