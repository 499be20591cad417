# expect: blocked NDD004
# data: numpy
"""Pipeline settings arrive through a mapping: only run time knows what it carries."""

import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2)
def arrays(root):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy")
    return data


settings = {"num_threads": 1, "device_id": None, "prefetch_queue_depth": 1}
pipe = arrays(sys.argv[1], **settings)
pipe.build()
print(pipe.run()[0].at(0).shape)
