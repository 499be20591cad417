# expect: converted
# data: jpeg
"""The DALI iterator is handed to a wrapper class of the module that keeps it, iterates it once per
epoch in `__iter__` and calls `reset()` on it at the end: one epoch's generator has no `reset()`,
and is empty the second time, so the iterator becomes the support module's, which has DALI's
interface. A plain loader of the same name elsewhere is not the iterator."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIClassificationIterator


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def train(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return fn.resize(fn.decoders.image(jpegs), resize_x=8, resize_y=8), labels


class EpochWrapper:
    def __init__(self, loader, scale):
        self.loader = loader
        self.scale = scale

    @staticmethod
    def labels(loader, scale):
        for data in loader:
            yield (data[0]["label"].flatten() * scale).tolist()
        loader.reset()

    def __iter__(self):
        return EpochWrapper.labels(self.loader, self.scale)


def dali_loader(root):
    pipe = train(root)
    pipe.build()
    train_loader = DALIClassificationIterator(pipe, reader_name="Reader")
    return EpochWrapper(train_loader, 10)


def plain_loader():
    train_loader = [[{"label": [1, 2]}]]
    return train_loader


wrapper = dali_loader(sys.argv[1])
for epoch in range(2):
    print(epoch, list(wrapper))
print(plain_loader())
