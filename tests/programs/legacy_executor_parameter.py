# expect: converted
# data: numpy
"""A legacy pipeline that passes a constructor parameter named like an executor setting on."""

import sys

import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class Arrays(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, root, prefetch_queue_depth):
        super().__init__(batch_size, num_threads, device_id, prefetch_queue_depth=prefetch_queue_depth)
        self.input = ops.readers.Numpy(file_root=root, file_filter="*.npy")

    def define_graph(self):
        data = self.input(name="Reader")
        return data


pipe = Arrays(batch_size=2, num_threads=1, device_id=None, root=sys.argv[1], prefetch_queue_depth=2)
pipe.build()
for _ in range(3):
    (data,) = pipe.run()
    print(data.at(0).shape, data.as_tensor().shape() if data.is_dense_tensor() else "ragged")
