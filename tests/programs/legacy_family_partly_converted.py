# expect: marked NDD401
# prints: the same
# data: numpy
"""A `Pipeline` base class with two subclasses, one of which has a method a generator function has
no place for (`__len__`). The other one converts: it becomes a generator function of its own with
the base's operators, while the one left stays a subclass of the base, which stays too, with one
TODO naming that subclass and why. Both run as before."""

import sys

import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class Loader(Pipeline):
    def __init__(self, batch_size, data_dir):
        super().__init__(batch_size=batch_size, num_threads=1, device_id=None)
        self.files = ops.readers.Numpy(file_root=data_dir, file_filter="*.npy")
        self.to_float = ops.Cast(dtype=types.FLOAT)

    def define_graph(self):
        features = self.files()
        return self.to_float(features)


class Plain(Loader):
    pass


class Counted(Loader):
    def __len__(self):
        return 4


plain = Plain(2, sys.argv[1])
plain.build()
for _ in range(2):
    (features,) = plain.run()
    print("plain", [float(np.asarray(features.at(i)).sum()) for i in range(len(features))])

counted = Counted(3, sys.argv[1])
counted.build()
(counts,) = counted.run()
print("counted", len(counted), float(np.asarray(counts.at(2)).sum()))
