# expect: blocked NDD008
# data: numpy
"""A helper that takes a pipeline output at one call and a plain list at another."""

import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def arrays(root):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy")
    return data


def count(items):
    return len(items)


pipe = arrays(sys.argv[1])
pipe.build()
(data,) = pipe.run()
print(count(data), count([1, 2, 3]))
