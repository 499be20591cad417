# expect: blocked NDD401
# data: numpy
"""DALI's PyTorch iterator cutting epochs at the end of the second of two reader objects
(`reader_name="ReaderY"`): the migrated generator walks the first reader's epochs and gives its
metadata, so the class stays in pipeline mode, with one TODO at the second reader."""

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
    pipe, ["image", "label"], reader_name="ReaderY", auto_reset=True, last_batch_policy=LastBatchPolicy.PARTIAL
)
print(len(loader))
for epoch in range(3):
    for step, batch in enumerate(loader):
        image, label = batch[0]["image"], batch[0]["label"]
        print(epoch, step, image.sum(dim=1).tolist(), label.sum(dim=1).tolist())
