# expect: blocked NDD008
# data: numpy
"""A graph helper run by two pipelines, one of which is serialized and so stays in pipeline mode:
the helper stays `fn.*` code for that one, so the other cannot call it on dynamic-mode batches."""

import sys

from nvidia.dali import fn, pipeline_def


def scale(data):
    return fn.cast(data, dtype=7) * 2  # types.INT64


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def trained(root):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy")
    return scale(data)


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def exported(root):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy")
    return scale(data)


saved = exported(sys.argv[1])
saved.build()
print(len(saved.serialize()) > 0)
pipe = trained(sys.argv[1])
pipe.build()
(data,) = pipe.run()
print([data.at(i).shape for i in range(len(data))])
