# expect: blocked NDD402
# data: none
"""The data of an `ops.ExternalSource` is fed from outside the class (`pipe.feed_input` before each
`run()`): no `iter_setup` says where a batch comes from, so the class stays as it is."""

import numpy as np

import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class Scaled(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super().__init__(batch_size, num_threads, device_id, prefetch_queue_depth=1)
        self.source = ops.ExternalSource()

    def define_graph(self):
        self.values = self.source()
        return self.values * 3


pipe = Scaled(2, 1, None)
pipe.build()
for step in range(3):
    pipe.feed_input(pipe.values, [np.full((2,), step + k, dtype=np.int32) for k in range(2)])
    (out,) = pipe.run()
    print(out.at(0).tolist(), out.at(1).tolist())
