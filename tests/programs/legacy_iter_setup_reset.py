# expect: blocked NDD008
# data: none
"""`pipe.reset()` after the `StopIteration` of `iter_setup` starts the pipeline's next epoch; a
generator that has ended cannot start again, and calling the class again would compute its argument
`Counting(2)` again (a fresh iterator, where the pipeline kept the first): the class stays as it is."""

import numpy as np

import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class Counting:
    def __init__(self, steps):
        self.steps = steps

    def __iter__(self):
        return self

    def __next__(self):
        if self.steps == 0:
            self.steps = 2
            raise StopIteration
        self.steps -= 1
        return [np.array([self.steps], dtype=np.int64)]


class Fed(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, counting):
        super().__init__(batch_size, num_threads, device_id)
        self.source = ops.ExternalSource()
        self.counting = counting

    def define_graph(self):
        self.values = self.source()
        return self.values

    def iter_setup(self):
        self.feed_input(self.values, next(self.counting))


pipe = Fed(1, 1, None, Counting(2))
pipe.build()
for epoch in range(2):
    while True:
        try:
            (out,) = pipe.run()
        except StopIteration:
            break
        print(epoch, out.at(0).tolist())
    pipe.reset()
