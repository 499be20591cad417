# expect: blocked NDD411
# data: jpeg
"""A wrapper class that hands the DALI iterator it keeps to its caller (`loader.iterator()`): what
the caller asks of it is not followed, so the support module's iterator cannot stand in, and the
pipeline stays in pipeline mode."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def labels_only(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return labels


class Loader:
    def __init__(self, pipelines):
        self._it = DALIGenericIterator(pipelines, ["label"], reader_name="Reader")

    def iterator(self):
        return self._it


pipe = labels_only(sys.argv[1])
pipe.build()
it = Loader(pipe).iterator()
print(it._pipes[0].epoch_size("Reader"))
for data in it:
    print(data[0]["label"].view(-1).tolist())
