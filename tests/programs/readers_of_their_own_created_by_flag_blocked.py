# expect: blocked NDD401
# data: numpy
"""A legacy class that makes a metadata reader under one flag (`if self.invert_resampled_y:` in
`__init__`) and reads it under another (`if self.with_meta:` in `define_graph`). The caller sets both
together, so pipeline mode runs; but nothing in the class says the reader exists wherever it is
called: the pipeline stays in pipeline mode, with the reason."""

import sys
from pathlib import Path

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class EvalPipeline(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, **kwargs):
        super().__init__(batch_size, num_threads, device_id, seed=7)
        self.input_x = ops.readers.Numpy(files=kwargs["imgs"], shuffle_after_epoch=True, seed=3)
        self.invert_resampled_y = kwargs["invert_resampled_y"]
        self.with_meta = kwargs.get("meta") is not None
        if self.invert_resampled_y:
            self.input_meta = ops.readers.Numpy(files=kwargs["meta"], pad_last_batch=True)

    def define_graph(self):
        img = self.input_x(name="ReaderX")
        img = fn.pad(img, axes=(0,), shape=(20,))
        if self.with_meta:
            meta = self.input_meta(name="ReaderM")
            return img, meta
        return img, img * 2


def sums(batch):
    return [round(float(np.asarray(batch.at(i)).sum()), 3) for i in range(len(batch))]


def show(name, pipe):
    pipe.build()
    for step in range(6):
        print(name, step, *(sums(out) for out in pipe.run()))


files = sorted(str(p) for p in Path(sys.argv[1]).glob("*.npy"))
show("inverted", EvalPipeline(3, 1, None, imgs=files, invert_resampled_y=True, meta=files[:4]))
show("plain", EvalPipeline(3, 1, None, imgs=files, invert_resampled_y=False))
