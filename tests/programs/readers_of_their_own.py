# expect: converted
# data: numpy
"""A legacy class with three reader objects that differ in their files (images, labels, and a
short list of metadata): pipeline mode runs each reader once per batch, and each wraps into its
next epoch on its own, whatever its file count (11, 11 and 4 files; one sharded, one padding its
last batch). The migrated generator walks the first reader's epochs and reads each other reader
as an endless stream of its own epochs, one batch per batch: the same samples, in the same order,
across several epochs of every reader. The pipeline is given its `device_id`: the generator
evaluates each batch in an `EvalContext` of its own, which every reader's epoch iterator holds."""

import sys
from pathlib import Path

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class Volumes(Pipeline):
    def __init__(self, batch_size, images, labels, extra, device_id):
        super().__init__(batch_size, num_threads=1, device_id=device_id, seed=9)
        self.input_x = ops.readers.Numpy(files=images, device="cpu", shuffle_after_epoch=True, seed=4)
        self.input_y = ops.readers.Numpy(
            files=labels, device="cpu", shuffle_after_epoch=True, seed=4, shard_id=1, num_shards=2
        )
        self.input_m = ops.readers.Numpy(files=extra, pad_last_batch=True)

    def define_graph(self):
        img = self.input_x(name="ReaderX")
        img = fn.pad(img, axes=(0,), shape=(20,))
        lbl = self.input_y(name="ReaderY")
        meta = self.input_m(name="ReaderM")
        return img, fn.pad(lbl, axes=(0,), shape=(20,)), meta


def sums(batch):
    return [round(float(np.asarray(batch.at(i)).sum()), 3) for i in range(len(batch))]


files = sorted(str(p) for p in Path(sys.argv[1]).glob("*.npy"))
pipe = Volumes(3, files, files[::-1], files[:4], None)
pipe.build()
for step in range(10):
    print(step, *(sums(out) for out in pipe.run()))
