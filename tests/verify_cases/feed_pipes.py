"""A legacy Pipeline subclass fed in `iter_setup`: two `ops.ExternalSource` outputs get the batches
of an iterator made in `__init__`, which raises StopIteration after `steps` batches, so `pipe.run()`
does too. No reader: the feed is the whole epoch. `feed_ndd.py` is its migration, written by
`ndd-migrate migrate` (tests/test_verify_iter_setup.py checks that it still is)."""

import numpy as np

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


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


class FeedPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, steps=3):
        super().__init__(batch_size, num_threads, device_id)
        self.values_in = ops.ExternalSource()
        self.scales_in = ops.ExternalSource(dtype=types.FLOAT)
        self.cast = ops.Cast(dtype=types.FLOAT)
        self.iterator = iter(Counter(steps, batch_size))

    def define_graph(self):
        self.values = self.values_in()
        self.scales = self.scales_in()
        return self.cast(self.values) * self.scales, self.values

    def iter_setup(self):
        values, scales = next(self.iterator)
        self.feed_input(self.values, values, layout="HW")
        self.feed_input(self.scales, scales)
