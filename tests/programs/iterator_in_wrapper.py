# expect: converted
# data: jpeg
"""A wrapper class keeps the DALI iterator in an attribute and indexes what `next()` gives: the
support module's iterator takes its place."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def train(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return labels


class Labels:
    def __init__(self, root):
        pipe = train(root)
        pipe.build()
        self.it = DALIGenericIterator(pipe, ["label"], reader_name="Reader")

    def next_labels(self):
        return next(self.it)[0]["label"]


print(Labels(sys.argv[1]).next_labels().flatten().tolist())
