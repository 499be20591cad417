# expect: converted
# data: numpy
"""The tuple of outputs is iterated in a comprehension: each item is an output, so `len(o)` in it
becomes `o.batch_size`."""

import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def two_outputs(root):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy")
    return data, data + 1


pipe = two_outputs(sys.argv[1])
pipe.build()
pipe_out = pipe.run()
print([len(o) for o in pipe_out])
