# expect: converted
# data: numpy
"""A `Pipeline` family whose base makes its readers with a helper method, the second one only when
label files are given (`self.input_y = self.get_reader(label_files) if label_files is not None else
None`), and whose graph helper returns early when it has labels. Pipeline mode puts the label
reader in the graph only where it exists, and runs it once per batch, into its next epoch on its
own (7 label files beside 11 images). The migrated generator creates it under the same condition
and reads it as an endless stream where the helper's branch stood: the same samples in the same
order, with and without labels."""

import sys
from pathlib import Path

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class Base(Pipeline):
    def __init__(self, batch_size, files, label_files):
        super().__init__(batch_size, num_threads=1, device_id=None, seed=5)
        self.input_x = self.get_reader(files)
        self.input_y = self.get_reader(label_files) if label_files is not None else None

    def get_reader(self, data):
        return ops.readers.Numpy(files=data, shuffle_after_epoch=True, seed=3)

    def load(self):
        data = self.input_x(name="ReaderX")
        data = fn.pad(data, axes=(0,), shape=(20,))
        if self.input_y is not None:
            labels = self.input_y(name="ReaderY")
            labels = fn.pad(labels, axes=(0,), shape=(20,))
            return data, labels
        return data


class Train(Base):
    def define_graph(self):
        data, labels = self.load()
        return data * 2, labels


class Test(Base):
    def define_graph(self):
        data = self.load()
        return (data,)


def show(name, pipe):
    pipe.build()
    for step in range(8):
        print(name, step, [float(np.asarray(out.as_tensor()).sum()) for out in pipe.run()])


files = sorted(str(p) for p in Path(sys.argv[1]).glob("*.npy"))
show("train", Train(3, files, files[::-1][:7]))
show("test", Test(3, files, None))
