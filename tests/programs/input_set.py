# expect: blocked NDD101
# data: numpy
"""An operator called on an input set (a list of inputs): dynamic-mode operators take no list."""

import sys

from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def pairs(root):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy")
    a, b = fn.cast([data, data * 2], dtype=types.FLOAT)
    return a, b


pipe = pairs(sys.argv[1])
pipe.build()
a, b = pipe.run()
print(a.at(0).dtype, b.at(0).sum() >= 0)
