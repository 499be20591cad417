"""A training loop that leaves an epoch early (`break` after some batches, then `reset()` or the next
`for`) gets, after the migration, the batches DALI's iterator gave it: DALI ignores a `reset()` before
the epoch's end, so the next pass goes on with the epoch's remaining batches; and over an external
source that ends each epoch, what the pipeline had already drawn ahead (its `prefetch_queue_depth`)
decides whether the reset took effect. Each case runs the original with DALI and the migration, in
processes of their own, and compares every batch of six epochs that stop at different batches."""

from __future__ import annotations

import pytest

from tests.conftest import HAS_DALI, migrate_text

# the batch after which each of the six epochs stops (None: the epoch runs to its end)
STOPS = [0, None, 1, 2, 3, None]

READER = """\
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy

STOPS = {stops}


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=7, name="Reader"{reader})
    return fn.resize(fn.decoders.image(jpegs), size=[8, 8]), labels


pipe = train_pipe(ROOT)
pipe.build()
loader = DALIGenericIterator(pipe, ["data", "label"], {how})
for epoch, stop in enumerate(STOPS):
    for i, data in enumerate(loader):
        SEEN.append((epoch, data[0]["label"].numpy().ravel().tolist()))
        if i == stop:
            break
    loader.reset()
"""

READER_CASES = [
    ('reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL', ""),
    ('reader_name="Reader", last_batch_policy=LastBatchPolicy.FILL', ""),
    ('reader_name="Reader", last_batch_policy=LastBatchPolicy.DROP', ""),
    (
        'reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL',
        ", num_shards=2, shard_id=0, pad_last_batch=True",
    ),
    ('reader_name="Reader", last_batch_policy=LastBatchPolicy.DROP', ", num_shards=2, shard_id=1"),
    ("size=10, last_batch_policy=LastBatchPolicy.DROP", ""),
    ("size=10, last_batch_policy=LastBatchPolicy.FILL", ""),
]


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("how, reader", READER_CASES)
def test_an_epoch_left_early_goes_on_as_in_dali(how, reader, programs):
    pytest.importorskip("torch")
    from fixtures.datasets import make_jpeg

    root = str(programs.dataset(make_jpeg))
    original = READER.format(stops=STOPS, reader=reader, how=how)
    migrated, _ = migrate_text(original)
    assert "TODO" not in migrated and "dali_iterator_" in migrated, migrated
    expected, got = programs.seen_by_both(original, migrated, root)
    assert got == expected


SOURCE = """\
import numpy as np
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


class Batches:
    \"\"\"Five batches an epoch, then `StopIteration`; the next `next()` starts again.\"\"\"

    def __init__(self):
        self.i = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.i == 5:
            self.i = 0
            raise StopIteration
        self.i += 1
        return [np.full((2,), 10 * self.i + k, dtype=np.int32) for k in range(2)]


@pipeline_def(batch_size=2, num_threads=1, device_id=None{settings})
def fed():
    data = fn.external_source(source=Batches())
    return data + 0


pipe = fed({call})
pipe.build()
loader = DALIGenericIterator(pipe, ["data"]{keep})
for epoch, stop in enumerate({stops}):
    for i, data in enumerate(loader):
        SEEN.append((epoch, data[0]["data"][:, 0].tolist()))
        if i == stop:
            break
    loader.reset()
{uses}"""

# pipeline settings, the call's arguments; the stops cover every batch of a five-batch epoch
SOURCE_CASES = [
    ("", "", ""),
    ("", "prefetch_queue_depth=1", ""),
    (", prefetch_queue_depth=3", "", ""),
    (", exec_pipelined=False, exec_async=False", "", ""),
    ("", "", ", size=10"),  # the count and the source end together
    ("", "", ", size=6, last_batch_policy=LastBatchPolicy.PARTIAL"),  # the count ends first
    ("", "", ", size=14, last_batch_policy=LastBatchPolicy.DROP"),  # the source ends first
]
SOURCE_STOPS = [1, 2, 3, 4, None, 0, 3, None]


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("settings, call, sized", SOURCE_CASES)
@pytest.mark.parametrize("interface", [False, True], ids=["epochs", "iterator-kept"])
def test_an_epoch_left_early_over_a_source_that_ends_goes_on_as_in_dali(settings, call, sized, interface, programs):
    """DALI drew the source ``prefetch_queue_depth`` batches ahead (1 without the pipelined
    executor): a `reset()` after a `break` starts a new pass only when the source's end was drawn
    already, after the batches computed ahead; otherwise the epoch goes on. The same with the
    iterator's interface kept (`len(loader)` read)."""
    pytest.importorskip("torch")
    uses = "SEEN.append(len(loader))\n" if interface else ""
    original = SOURCE.format(settings=settings, call=call, keep=sized, stops=SOURCE_STOPS, uses=uses)
    migrated, _ = migrate_text(original)
    assert "TODO" not in migrated and "return batches\n" in migrated, migrated
    if not interface:
        assert f"dali_iterator_{'sized' if sized else 'source'}_epochs" in migrated, migrated
    expected, got = programs.seen_by_both(original, migrated, ".")
    assert got == expected
