# expect: converted
# data: jpeg
"""A pipeline function defined inside the function that iterates it with a PyTorch iterator."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


def labels_per_epoch(root):
    @pipeline_def(batch_size=4, num_threads=1, device_id=None)
    def train():
        jpegs, labels = fn.readers.file(file_root=root, name="Reader")
        return labels

    pipe = train()
    pipe.build()
    loader = DALIGenericIterator(pipe, ["label"], reader_name="Reader")
    for epoch in range(2):
        for batch in loader:
            print(epoch, batch[0]["label"].flatten().tolist())
        loader.reset()


labels_per_epoch(sys.argv[1])
