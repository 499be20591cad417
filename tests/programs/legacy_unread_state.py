# expect: converted
# data: jpeg
"""A family of `Pipeline` subclasses written as older training scripts are: the base takes the
batch size the subclass computes, `__init__` keeps state nothing reads again (`self.iter`, a copy
of a parameter, an operator object built from a local and never called), and a helper method
returns two values of which the graph uses one."""

import sys

import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class Base(Pipeline):
    def __init__(self, batch_size, num_threads=1):
        super(Base, self).__init__(batch_size, num_threads, None, seed=5)


class Fed(Base):
    def __init__(self, batch):
        super(Fed, self).__init__(len(batch))
        self.batch = batch
        self.iter = 0
        self.source = ops.ExternalSource()
        self.cast = ops.Cast(dtype=types.FLOAT)

    def define_graph(self):
        self.data = self.source()
        return self.data

    def iter_setup(self):
        self.feed_input(self.data, self.batch)


class Files(Pipeline):
    def __init__(self, batch_size, root):
        super(Files, self).__init__(batch_size, 1, None, seed=7)
        dali_device = "cpu"
        self.batch_size_ = batch_size
        self.input = ops.readers.File(file_root=root, random_shuffle=True)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.flip = ops.Flip(device=dali_device)
        self.resize = ops.Resize(resize_x=16, resize_y=16)

    def load(self):
        jpegs, labels = self.input()
        return self.resize(self.decode(jpegs)), labels

    def define_graph(self):
        images, labels = self.load()
        return images


fed = Fed([np.full((2, 3), i, dtype=np.int32) for i in range(3)])
fed.build()
for step in range(2):
    (data,) = fed.run()
    print(step, data.as_array().sum(axis=(1, 2)).tolist())

files = Files(2, sys.argv[1])
files.build()
for step in range(3):
    (images,) = files.run()
    print(step, [images.at(i).shape for i in range(2)], float(images.as_array().mean().round(3)))
