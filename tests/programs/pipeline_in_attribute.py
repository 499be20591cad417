# expect: converted
# data: numpy
"""A loader class keeps its pipeline in an attribute and runs it from a method: set once in
`__init__` and read only by the class's methods, `self.pipeline` is followed like a name (the
epoch size from `self.pipeline_meta`)."""

import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def features(root):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy", name="Reader")
    return data * 2


class Loader:
    def __init__(self, root):
        self.pipeline = features(root)
        self.pipeline.build()
        self.size = self.pipeline.epoch_size("Reader")

    def batch(self):
        (data,) = self.pipeline.run()
        return data.at(0)


loader = Loader(sys.argv[1])
print(loader.size, loader.batch().shape)
