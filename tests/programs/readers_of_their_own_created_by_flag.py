# expect: converted
# data: numpy
"""A family of legacy classes passing its settings through `**kwargs`, whose base makes its readers
with a helper method (the label reader only when label files are given, else `None`), and whose
evaluation class makes two more readers only under a flag (`if self.invert_resampled_y:` in
`__init__`, with arguments that exist only then) and reads them only under the same flag in
`define_graph`. Pipeline mode puts them in the graph only where the flag is set, and runs each once
per batch, into its next epoch on its own (4 and 5 files beside 11 images and 8 labels). The
migrated generator creates them, and their streams, under the same `if`, and draws from them where
the calls stood: with the flag and without it, the same samples in the same order over several
epochs."""

import sys
from pathlib import Path

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class GenericPipeline(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, **kwargs):
        super().__init__(batch_size, num_threads, device_id, seed=kwargs["seed"])
        self.input_x = self.get_reader(kwargs["imgs"])
        self.input_y = self.get_reader(kwargs["lbls"]) if kwargs["lbls"] is not None else None

    def get_reader(self, data):
        return ops.readers.Numpy(files=data, shuffle_after_epoch=True, seed=3)

    def load_data(self):
        img = self.input_x(name="ReaderX")
        img = fn.pad(img, axes=(0,), shape=(20,))
        if self.input_y is not None:
            lbl = self.input_y(name="ReaderY")
            return img, fn.pad(lbl, axes=(0,), shape=(20,))
        return img, img * 0


class EvalPipeline(GenericPipeline):
    def __init__(self, batch_size, num_threads, device_id, **kwargs):
        super().__init__(batch_size, num_threads, device_id, **kwargs)
        self.invert_resampled_y = kwargs["invert_resampled_y"]
        if self.invert_resampled_y:
            self.input_meta = self.get_reader(kwargs["meta"])
            self.input_orig_y = self.get_reader(kwargs["orig_lbl"])

    def define_graph(self):
        img, lbl = self.load_data()
        if self.invert_resampled_y:
            meta = self.input_meta(name="ReaderM")
            orig_lbl = self.input_orig_y(name="ReaderO")
            return img, lbl, meta, orig_lbl
        return img, lbl * 2


def sums(batch):
    return [round(float(np.asarray(batch.at(i)).sum()), 3) for i in range(len(batch))]


def show(name, pipe):
    pipe.build()
    for step in range(10):
        print(name, step, *(sums(out) for out in pipe.run()))


files = sorted(str(p) for p in Path(sys.argv[1]).glob("*.npy"))
show(
    "inverted",
    EvalPipeline(
        3,
        1,
        None,
        seed=7,
        imgs=files,
        lbls=files[::-1][:8],
        invert_resampled_y=True,
        meta=files[:4],
        orig_lbl=files[2:7],
    ),
)
show("plain", EvalPipeline(3, 1, None, seed=7, imgs=files, lbls=None, invert_resampled_y=False))
