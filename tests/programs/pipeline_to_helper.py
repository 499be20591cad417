# expect: converted
# data: numpy
"""The pipeline object is handed to a helper that runs it and reads the outputs."""

import sys
from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def p(root):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy")
    return data, data * 2


def samples(pipe):
    out = pipe.run()
    print(out[1].at(0).shape, len(out[0]))


pipe = p(sys.argv[1])
pipe.build()
samples(pipe)
