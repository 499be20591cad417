"""The support module's ``dali_external_source`` against DALI's own external source: for each kind
of ``source=`` (an iterable, an iterator object, a generator function, a callable with nothing, the
iteration number, a ``BatchInfo`` or a ``SampleInfo``) and each ``cycle=``/``batch=`` setting, the
same batches in the same order, the same end of each epoch, the same next epoch after
``pipe.reset()``, and DALI's error where DALI refuses the source."""

from __future__ import annotations

import pytest

from tests.conftest import HAS_DALI

pytestmark = [pytest.mark.dali, pytest.mark.skipif(not HAS_DALI, reason="needs DALI")]

BATCH = 3
LIMIT = 7  # batches drawn per epoch at most (for sources that never end)


def _np():
    import numpy as np

    return np


class Numbers:
    """An iterable: each ``iter()`` starts again at 0 (``count`` batches)."""

    def __init__(self, count):
        self.count = count

    def __iter__(self):
        np = _np()
        return iter([[np.array([i, k], np.int32) for k in range(BATCH)] for i in range(self.count)])


class Countdown:
    """An iterator object (``__iter__`` returns itself): it ends once, then starts again, as the
    corpus' iterator classes do."""

    def __init__(self, count):
        self.count, self.i = count, 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.i >= self.count:
            self.i = 0
            raise StopIteration
        self.i += 1
        np = _np()
        return [np.full(2, self.i, np.int32) for _ in range(BATCH)]


class Passes(Countdown):
    """An iterator object whose ``__iter__`` starts a pass (DALI's documented ``ExternalInputIterator``
    shuffles there): its batches say which pass they belong to, so calling it twice shows."""

    passes = 0

    def __iter__(self):
        self.passes += 1
        self.i = 0
        return self

    def __next__(self):
        return [row + 10 * self.passes for row in super().__next__()]


def generator():
    np = _np()
    for i in range(3):
        yield [np.array([i, 7], np.int32)] * BATCH, [np.array([i], np.float32)] * BATCH


def by_iteration(i):
    if i == 3:
        raise StopIteration
    np = _np()
    return [np.array([i, k], np.int32) for k in range(BATCH)]


def by_batch_info(info):
    if info.iteration == 2:
        raise StopIteration
    np = _np()
    return [np.array([info.iteration, info.epoch_idx], np.int64) for _ in range(BATCH)]


def by_sample(info):
    if info.idx_in_epoch == 7:
        raise StopIteration
    np = _np()
    row = np.array([info.idx_in_epoch, info.idx_in_batch, info.iteration, info.epoch_idx], np.int64)
    return row, row * 10


class Calls:
    """A callable object without arguments, that ends after 4 batches."""

    def __init__(self):
        self.n = 0

    def __call__(self):
        self.n += 1
        if self.n % 5 == 0:
            raise StopIteration
        np = _np()
        return [np.full(3, self.n, np.int16) for _ in range(BATCH)]


def sample_rows():
    np = _np()
    return [np.array([i], np.int32) for i in range(5)]  # 5 samples: a rewind inside a batch


KINDS = {
    "iterable": (lambda: Numbers(3), {}),
    "iterable, cycle quiet": (lambda: Numbers(2), {"cycle": "quiet"}),
    "iterator object": (lambda: Countdown(2), {}),
    "iterator object, cycle True": (lambda: Countdown(2), {"cycle": True}),
    "iterator starting a pass in __iter__": (lambda: Passes(2), {}),
    "iterator starting a pass in __iter__, cycle": (lambda: Passes(2), {"cycle": "quiet"}),
    "generator function, two outputs": (lambda: generator, {"num_outputs": 2}),
    "generator function, cycle": (lambda: generator, {"num_outputs": 2, "cycle": True}),
    "generator object": (lambda: generator(), {"num_outputs": 2}),
    "callable, iteration number": (lambda: by_iteration, {}),
    "callable, BatchInfo": (lambda: by_batch_info, {"batch_info": True}),
    "callable, SampleInfo, two outputs": (lambda: by_sample, {"batch": False, "num_outputs": 2}),
    "callable object without arguments": (Calls, {}),
    "lambda": (lambda: lambda: [_np().ones(2, _np().int8)] * BATCH, {}),
    "samples of a list, cycle": (sample_rows, {"batch": False, "cycle": "quiet"}),
}


def _rows(batch) -> list:
    np = _np()
    if hasattr(batch, "at"):
        return [np.asarray(batch.at(i)).tolist() for i in range(len(batch))]
    return [np.asarray(sample).tolist() for sample in batch]


def _epochs(draw, reset, outputs: int) -> list:
    """Two epochs of batches (each output's samples), each ending with "end" where it stopped."""
    out = []
    for _ in range(2):
        for _ in range(LIMIT):
            try:
                batch = draw()
            except StopIteration:
                out.append("end")
                break
            out.append([_rows(b) for b in (batch if outputs > 1 else [batch])])
        reset()
    return out


def _dali(make, kwargs: dict):
    from nvidia.dali import fn, pipeline_def

    @pipeline_def(batch_size=BATCH, num_threads=1, device_id=None)
    def pipe():
        outputs = fn.external_source(source=make(), **kwargs)
        return tuple(outputs) if "num_outputs" in kwargs else outputs

    p = pipe()
    p.build()
    outputs = kwargs.get("num_outputs", 1)
    return _epochs(lambda: p.run() if outputs > 1 else p.run()[0], p.reset, outputs)


def _helper(make, kwargs: dict):
    from ndd_support import dali_external_source

    feed = dali_external_source(make(), batch_size=BATCH, **kwargs)
    return _epochs(lambda: next(feed), lambda: None, kwargs.get("num_outputs", 1))


@pytest.mark.parametrize("kind", KINDS)
def test_the_same_batches_and_epochs_as_dali(kind):
    make, kwargs = KINDS[kind]
    expected = _dali(make, kwargs)
    assert _helper(make, kwargs) == expected
    assert len([b for b in expected if b != "end"]) > 1


REFUSED = {
    "cycle over a callable": (lambda: by_iteration, {"cycle": True}, ValueError),
    "cycle=False over a callable": (lambda: by_iteration, {"cycle": False}, ValueError),
    "cycle over a generator object": (lambda: generator(), {"cycle": "quiet"}, TypeError),
    "two parameters": (lambda: lambda a, b: None, {}, TypeError),
    "keyword-only parameter": (lambda: lambda *, a: None, {}, TypeError),
    "neither iterable nor callable": (lambda: 5, {}, TypeError),
    "an invalid cycle": (lambda: [[1]], {"cycle": "often"}, ValueError),
}


@pytest.mark.parametrize("case", REFUSED)
def test_a_source_dali_refuses_raises_dalis_error(case):
    from ndd_support import dali_external_source
    from nvidia.dali import fn, pipeline_def

    make, kwargs, error = REFUSED[case]

    @pipeline_def(batch_size=BATCH, num_threads=1, device_id=None)
    def pipe():
        return fn.external_source(source=make(), **kwargs)

    with pytest.raises(error) as dali:
        pipe().build()
    with pytest.raises(error) as ours:
        dali_external_source(make(), **kwargs)
    if case != "an invalid cycle":  # DALI's words (their first sentence for a signature)
        assert str(dali.value).startswith(str(ours.value))
