# expect: converted
# data: numpy
"""A family of legacy classes whose base makes three reader objects (images, labels, a short
metadata list) and whose graph helper reads the labels only when the pipeline was built to
(`if self.with_labels:`, returning early), and whose evaluation class reads the metadata only
under a flag of its own. Pipeline mode puts a reader in the graph only where the traced branch
calls it, and then runs it once per batch, into its next epoch on its own. The migrated generator
reads each such reader as an endless stream where the branch stood: with and without each flag,
the same samples in the same order across several epochs."""

import sys
from pathlib import Path

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class Base(Pipeline):
    def __init__(self, batch_size, images, labels, extra, with_labels, with_extra):
        super().__init__(batch_size, num_threads=1, device_id=None, seed=9)
        self.with_labels = with_labels
        self.with_extra = with_extra
        self.input_x = ops.readers.Numpy(files=images, device="cpu", shuffle_after_epoch=True, seed=4)
        self.input_y = ops.readers.Numpy(files=labels, device="cpu", shuffle_after_epoch=True, seed=4)
        self.input_m = ops.readers.Numpy(files=extra, pad_last_batch=True)

    def load(self):
        img = self.input_x(name="ReaderX")
        img = fn.pad(img, axes=(0,), shape=(20,))
        if self.with_labels:
            lbl = self.input_y(name="ReaderY")
            return img, fn.pad(lbl, axes=(0,), shape=(20,))
        return img, img * 0


class Eval(Base):
    def define_graph(self):
        img, lbl = self.load()
        if self.with_extra:
            meta = self.input_m(name="ReaderM")
            return img, lbl, meta
        return img, lbl


def sums(batch):
    return [round(float(np.asarray(batch.at(i)).sum()), 3) for i in range(len(batch))]


files = sorted(str(p) for p in Path(sys.argv[1]).glob("*.npy"))
for with_labels, with_extra in ((True, True), (True, False), (False, True), (False, False)):
    pipe = Eval(3, files, files[::-1][:8], files[:4], with_labels, with_extra)
    pipe.build()
    for step in range(9):
        print(with_labels, with_extra, step, *(sums(out) for out in pipe.run()))
