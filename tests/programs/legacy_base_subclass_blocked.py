# expect: blocked NDD401
# data: numpy
"""A `Pipeline` base class with two subclasses, one of which keeps a helper method that a
generator function has no place for (it returns from inside a loop: its body cannot stand in for
the call):
all or none, so neither subclass is rewritten, the base gets one TODO naming the subclass and why,
and the program runs as it did."""

import sys

import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class Loader(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir):
        super().__init__(batch_size, num_threads, device_id)
        self.files = ops.readers.Numpy(file_root=data_dir, file_filter="*.npy")
        self.to_float = ops.Cast(dtype=types.FLOAT)


class Plain(Loader):
    def define_graph(self):
        features = self.files()
        return self.to_float(features)


class Doubled(Loader):
    def twice(self, data, times=2):
        for scale in range(1, times + 1):
            if scale > 1:
                return data * scale
        return data

    def define_graph(self):
        features = self.files()
        return self.twice(self.to_float(features))


for pipe in (Plain(2, 1, None, sys.argv[1]), Doubled(2, 1, None, sys.argv[1])):
    pipe.build()
    (features,) = pipe.run()
    print(float(np.asarray(features.at(1)).sum()))
