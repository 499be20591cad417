# expect: blocked NDD008
# data: none
"""`pipe.reset()` of a legacy pipeline fed by `iter_setup`, whose creation argument `steps` is bound
again after the creation, before the reset: the pipeline keeps the first iterator and its next
`run()` reads it again, while the creation call made again at the reset would read the new one.
The class stays as it is (NDD008 names the argument)."""

import numpy as np

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class Steps:
    """`count` batches of one ramp each, then `StopIteration`, after which it counts from 0 again."""

    def __init__(self, count, start):
        self.count, self.start = count, start

    def __iter__(self):
        self.i = 0
        return self

    def __next__(self):
        if self.i < self.count:
            self.i += 1
            return [np.arange(self.start, self.start + self.i, dtype=np.float32)]
        self.i = 0
        raise StopIteration


class Fed(Pipeline):
    def __init__(self, steps, num_threads, device_id):
        super().__init__(1, num_threads, device_id)
        self.source = ops.ExternalSource(dtype=types.FLOAT)
        self.steps = steps

    def define_graph(self):
        self.ramp = self.source()
        return self.ramp * 2

    def iter_setup(self):
        self.feed_input(self.ramp, next(self.steps))


steps = iter(Steps(3, 0))
drained = 0
while True:
    try:
        next(steps)
        drained += 1
    except StopIteration:
        break
print("drained", drained)

steps = iter(Steps(4, 10))
pipe = Fed(steps, 1, None)
pipe.build()
for round_ in range(2):
    count = 0
    while True:
        try:
            (doubled,) = pipe.run()
        except StopIteration:
            break
        count += 1
        print(round_, count, doubled.at(0).tolist())
    spare = steps
    steps = iter(Steps(2, 50))  # the next run's iterator; the pipeline goes on with its own
    pipe.reset()
print("left at", spare.i, steps.i)
