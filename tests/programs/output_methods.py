# expect: converted
# data: numpy
"""Outputs indexed out of the tuple, then given TensorList methods, and counted."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def two_outputs(root):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy", name="Reader")
    return data, data * 2


pipe = two_outputs(sys.argv[1])
pipe.build()
for step in range(3):
    results = pipe.run()
    first = results[0]
    print(step, len(results), len(first), first.at(0).dtype, np.asarray(results[1].at(2)).sum())
    print(results[0].at(1).mean(), results[1].as_cpu().at(0).shape, first.shape())
