"""A legacy Pipeline subclass fed in `iter_setup`: two `ops.ExternalSource` outputs get the batches
of an iterator made in `__init__`, which raises StopIteration after `steps` batches, so `pipe.run()`
does too. No reader: the feed is the whole epoch. `feed_ndd.py` is its migration, written by
`ndd-migrate migrate` (tests/test_verify_iter_setup.py checks that it still is)."""

import numpy as np

import nvidia.dali.experimental.dynamic as ndd
import nvidia.dali.types as types

from ndd_support import prefetching


class Counter:
    """`steps` batches of small arrays, a different value in every sample and step."""

    def __init__(self, steps, batch_size):
        self.steps = steps
        self.batch_size = batch_size
        self.step = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.step == self.steps:
            raise StopIteration
        self.step += 1
        values = [np.full((2, 3), 10 * self.step + k, dtype=np.int32) for k in range(self.batch_size)]
        scales = np.arange(self.batch_size, dtype=np.float32).reshape(self.batch_size, 1) + self.step
        return values, scales


@prefetching
def FeedPipe(batch_size, num_threads, device_id, steps=3):
    ndd.set_num_threads(num_threads)
    ctx = ndd.EvalContext(device_id=device_id)
    iterator = iter(Counter(steps, batch_size))

    def iter_setup():
        values, scales = next(iterator)
        fed_values = ndd.batch(values, layout="HW")
        fed_scales = ndd.batch(scales, dtype=types.FLOAT)
        return fed_values, fed_scales

    while True:
        with ctx:
            try:
                values, scales = iter_setup()
            except StopIteration:
                return
            outputs = (ndd.cast(values, dtype=types.FLOAT) * scales).evaluate(), values.evaluate()
        yield outputs
