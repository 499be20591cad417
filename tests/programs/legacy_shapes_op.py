# expect: converted
# data: numpy
"""A legacy `ops.Shapes` object, with the deprecated `type=` spelling, whose result crops every
sample to half its rows through `ops.Slice`'s argument inputs, and one with its defaults."""

import sys

import numpy as np

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class HalfRows(Pipeline):
    def __init__(self, root, batch_size=4):
        super().__init__(batch_size=batch_size, num_threads=1, device_id=None, seed=5)
        self.reader = ops.readers.Numpy(file_root=root, random_shuffle=True, seed=11)
        self.sizes = ops.Shapes(type=types.INT32)
        self.lengths = ops.Shapes()
        self.crop = ops.Slice(axes=[0, 1])

    def define_graph(self):
        data = self.reader()
        sizes = self.sizes(data)
        start = sizes * 0
        half = sizes // 2
        return self.crop(data, start, half), sizes, self.lengths(data)


pipe = HalfRows(sys.argv[1])
pipe.build()
for step in range(3):
    cropped, sizes, lengths = pipe.run()
    for i in range(len(cropped)):
        print(step, i, cropped.at(i).shape, round(float(np.sum(cropped.at(i))), 4), sizes.at(i).tolist(),
              sizes.at(i).dtype, lengths.at(i).tolist(), lengths.at(i).dtype)
