# expect: converted
# data: none
"""A legacy pipeline fed by `iter_setup` whose output attribute `self.data` has the name of a local
of `define_graph` (`data = ...`): the attribute becomes a local of its own name, and the batch fed
must be bound to that name."""

import numpy as np
from nvidia.dali import ops
from nvidia.dali.pipeline import Pipeline


class Steps:
    def __init__(self, batch):
        self.batch = batch
        self.step = 0

    def next(self):
        self.step += 1
        return [np.full((2,), self.step * 10 + k, dtype=np.int32) for k in range(self.batch)]


class Doubled(Pipeline):
    def __init__(self, batch_size, steps):
        super().__init__(batch_size, 1, None)
        self.steps = steps
        self.inputs = ops.ExternalSource()

    def define_graph(self):
        self.data = self.inputs()
        data = self.data * 2
        return self.data, data

    def iter_setup(self):
        self.feed_input(self.data, self.steps.next())


pipe = Doubled(2, Steps(2))
pipe.build()
for _ in range(3):
    given, doubled = pipe.run()
    print(given.as_array().ravel().tolist(), doubled.as_array().ravel().tolist())
