# expect: converted
# data: numpy
"""A helper that crops either an op's output or a numpy array, choosing by `isinstance(x,
DataNode)`: `x[1:3, 2:5]` on the DataNode (slicing inside every sample, `x.slice[...]` in dynamic
mode) and `x[..., 1:3, 2:5]` on the array (numpy indexing, as it is); called with the array
before the pipeline is built and with DataNodes in the graph."""

import sys

import numpy as np

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def
from nvidia.dali.data_node import DataNode

ROWS = (1, 3)


def crop(x, first=2, last=5):
    if isinstance(x, DataNode):
        # DALI does not support an ellipsis here
        return x[ROWS[0]:ROWS[1], first:last]
    else:
        return x[..., ROWS[0]:ROWS[1], first:last]


grid = crop(np.arange(48, dtype=np.float32).reshape(2, 4, 6))


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def cropped(root):
    data = fn.readers.numpy(file_root=root, random_shuffle=True, seed=9)
    return crop(data), crop(data * 2, 0, 1)


print(grid.shape, grid.ravel().tolist())
pipe = cropped(sys.argv[1])
pipe.build()
for step in range(3):
    a, b = pipe.run()
    for i in range(len(a)):
        print(step, i, a.at(i).shape, a.at(i).ravel().round(4).tolist(), b.at(i).ravel().round(4).tolist())
