# expect: converted
# data: numpy
"""A `Pipeline` base class holding the settings and the shared operators, and two subclasses: one
reads numpy files with its own reader, the other draws generated data and overrides `define_graph`.
Each subclass becomes a generator function of its own (the base's `__init__` inlined where
`super().__init__` was, its parameters bound to the arguments); the base, used only as a base,
disappears."""

import sys

import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class Scaled(Pipeline):
    """The settings and the operators both pipelines share."""

    def __init__(self, batch_size, num_threads, device_id, base_seed, factor=2.0):
        super(Scaled, self).__init__(batch_size, num_threads, device_id, seed=base_seed)
        self.to_float = ops.Cast(dtype=types.FLOAT)
        self.scale = factor

    def define_graph(self):
        features = self.files()
        return self.to_float(features) * self.scale


class FromFiles(Scaled):
    def __init__(self, batch_size, num_threads, device_id, data_dir):
        super(FromFiles, self).__init__(batch_size, num_threads, device_id, 11)
        self.files = ops.readers.Numpy(file_root=data_dir, file_filter="*.npy")


class Generated(Scaled):
    def __init__(self, batch_size, num_threads, device_id, rows):
        super().__init__(batch_size, num_threads, device_id, base_seed=5, factor=0.5)
        self.ones = ops.random.CoinFlip(probability=1.0, shape=[rows])

    def define_graph(self):
        return self.to_float(self.ones()) * self.scale


files = FromFiles(3, 1, None, sys.argv[1])
files.build()
for _ in range(2):
    (features,) = files.run()
    print([np.asarray(features.at(i)).shape for i in range(3)], float(np.asarray(features.at(0)).sum()))

made = Generated(2, 1, None, rows=4)
made.build()
(ones,) = made.run()
print(np.asarray(ones.at(1)).tolist())
