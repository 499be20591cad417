# expect: blocked NDD008
# data: jpeg
"""DALI's iterator class read through its module (`dali_torch.DALIGenericIterator`) and compared
with the iterator's type: the support module's class, which would stand in for it, is another
class. The pipeline stays as it is."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin import pytorch as dali_torch


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def labelled(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return fn.resize(fn.decoders.image(jpegs), resize_x=2, resize_y=2), labels


def labels_of(batch, loader):
    if isinstance(loader, dali_torch.DALIGenericIterator):
        return batch[0]["label"].view(-1).tolist()
    return batch


def main(root):
    pipe = labelled(root)
    pipe.build()
    loader = dali_torch.DALIClassificationIterator(pipe, reader_name="Reader", auto_reset=True)
    for epoch in range(2):
        for batch in loader:
            print(epoch, labels_of(batch, loader))


if __name__ == "__main__":
    main(sys.argv[1])
