# expect: converted
# data: numpy
"""Graph constants of numpy arrays given as operator inputs: `types.Constant(np.array(...,
dtype=np.float32))` as the anchor and shape of `fn.slice` (one row and one column of each sample's
shape, as image pipelines read the height and width), a uint8 constant joined to a cast input by
`fn.cat`, and the same in a legacy class with `ops.Slice`. Dynamic mode takes the arrays themselves,
broadcast to every sample."""

import sys

import numpy as np

import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali import pipeline_def
from nvidia.dali.pipeline import Pipeline


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def rows_and_columns(root):
    data = fn.readers.numpy(file_root=root, random_shuffle=True, seed=4)
    sizes = fn.shapes(data, dtype=types.INT32)
    rows = fn.slice(sizes, types.Constant(np.array([0], dtype=np.float32)),
                    types.Constant(np.array([1], dtype=np.float32)), axes=[0], normalized_anchor=False,
                    normalized_shape=False)
    small = fn.cast(data[0:1, 0:2] * 10, dtype=types.UINT8)
    tagged = fn.cat(small, types.Constant(np.array([[7, 9]], dtype=np.uint8)), axis=0)
    return rows * 2 + 1, tagged


class Columns(Pipeline):
    def __init__(self, root, batch_size=4):
        super().__init__(batch_size=batch_size, num_threads=1, device_id=None)
        self.reader = ops.readers.Numpy(file_root=root)
        self.shapes = ops.Shapes(type=types.INT32)
        self.extract = ops.Slice(normalized_anchor=False, normalized_shape=False, axes=[0])
        self.cast = ops.Cast(dtype=types.FLOAT)

    def define_graph(self):
        data = self.reader()
        shapes = self.shapes(data)
        w = self.extract(shapes, types.Constant(np.array([1], dtype=np.float32)), types.Constant(np.array([1], dtype=np.float32)))
        crop = self.cast(w * w / (w + 32))
        return crop, data


pipe = rows_and_columns(sys.argv[1])
pipe.build()
for step in range(3):
    rows, tagged = pipe.run()
    for i in range(len(rows)):
        print(step, i, rows.at(i).tolist(), rows.at(i).dtype, tagged.at(i).tolist(), tagged.at(i).dtype)

legacy = Columns(sys.argv[1])
legacy.build()
for step in range(2):
    crop, data = legacy.run()
    for i in range(len(crop)):
        print(step, i, crop.at(i).tolist(), crop.at(i).dtype, data.at(i).shape)
