# expect: converted
# data: numpy
"""DALI's PyTorch iterator over a legacy class with two reader objects (images, and labels of
another file count), its epochs cut at the first reader's end by `reader_name`: the migrated
generator walks that reader's epochs, gives its metadata to the iterator, and reads the second
reader as a stream of its own epochs. Both shuffle after each epoch, in an order no seed changes
(the pipeline has none; the readers' `seed=` is a parameter), the same in both modes. Three
epochs, with the last batch partial, print the same samples in the same order."""

import sys
from pathlib import Path

import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


class Volumes(Pipeline):
    def __init__(self, batch_size, images, labels, seed):
        super().__init__(batch_size, num_threads=1, device_id=None)
        self.input_x = ops.readers.Numpy(files=images, shuffle_after_epoch=True, seed=seed, pad_last_batch=True)
        self.input_y = ops.readers.Numpy(files=labels, shuffle_after_epoch=True, seed=seed)

    def define_graph(self):
        img = self.input_x(name="ReaderX")
        lbl = self.input_y(name="ReaderY")
        return fn.pad(img, axes=(0,), shape=(20,)), fn.pad(lbl, axes=(0,), shape=(20,))


files = sorted(str(p) for p in Path(sys.argv[1]).glob("*.npy"))
pipe = Volumes(3, files, files[:7], 7)
loader = DALIGenericIterator(
    pipe, ["image", "label"], reader_name="ReaderX", auto_reset=True, last_batch_policy=LastBatchPolicy.PARTIAL
)
print(len(loader))
for epoch in range(3):
    for step, batch in enumerate(loader):
        image, label = batch[0]["image"], batch[0]["label"]
        print(epoch, step, image.sum(dim=1).tolist(), label.sum(dim=1).tolist())
