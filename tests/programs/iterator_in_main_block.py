# expect: converted
# data: jpeg
"""A pipeline and its PyTorch iterator in the script's `if __name__ == "__main__":` block."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator

if __name__ == "__main__":

    @pipeline_def(batch_size=4, num_threads=1, device_id=None)
    def train(root):
        jpegs, labels = fn.readers.file(file_root=root, name="Reader")
        return labels

    pipe = train(sys.argv[1])
    pipe.build()
    loader = DALIGenericIterator(pipe, ["label"], reader_name="Reader")
    for batch in loader:
        print(batch[0]["label"].flatten().tolist())
