# expect: converted
# data: numpy
"""A `Pipeline` base class whose graph helper returns early from an `if` on a value fixed when the
pipeline is built (`if self.paired: ...; return data, other` then `return data`), called by each
subclass for one output or two, and once as `return self.load()`. Inlined, the helper's `if`
keeps its branches, and the call's own statement takes the place of each `return`: each subclass
runs the branch its settings pick, as pipeline mode did while it built the graph."""

import sys
from pathlib import Path

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class Loading(Pipeline):
    def __init__(self, batch_size, files, paired, scale=1):
        super().__init__(batch_size, num_threads=1, device_id=None, seed=11)
        self.paired = paired
        self.scale = scale
        self.input_x = ops.readers.Numpy(files=files, random_shuffle=True, seed=7, pad_last_batch=True)

    def load(self):
        data = self.input_x(name="ReaderX")
        data = fn.pad(data, fill_value=-1, axes=(0,), shape=(20,)) + 0.5
        if self.paired:
            other = fn.reshape(data, layout="HW") * -1
            if self.scale != 1:
                # the scaled pair
                return data * self.scale, other
            return data, other
        return data


class Train(Loading):
    def define_graph(self):
        data, other = self.load()
        return data, other + 100


class Test(Loading):
    def define_graph(self):
        data = self.load()
        return (data,)


class Eval(Loading):
    def define_graph(self):
        return self.load()


def show(name, pipe):
    pipe.build()
    for step in range(4):
        outs = pipe.run()
        print(name, step, [float(np.asarray(out.as_tensor()).sum()) for out in outs])


files = sorted(str(p) for p in Path(sys.argv[1]).glob("*.npy"))
show("train", Train(4, files, True))
show("train scaled", Train(4, files, True, scale=3))
show("test", Test(4, files, False))
show("eval", Eval(4, files, True, scale=2))
