# expect: converted
# data: jpeg
"""A legacy `Pipeline` subclass whose values on `self` have the names of other locals: `self.device`
beside a parameter `device` that means something else, `self.data` set in `define_graph` beside a
local `data`. Each such attribute becomes a local of its own (`self_device`), not the other one."""

import sys

import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class Pipe(Pipeline):
    def __init__(self, batch_size, data_dir, device):
        super().__init__(batch_size, num_threads=1, device_id=None)
        self.device = "cpu"
        self.size = device * 4
        self.input = ops.readers.File(file_root=data_dir)
        self.decode = ops.decoders.Image(device=self.device, output_type=types.RGB)
        self.resize = ops.Resize(device=self.device, resize_x=self.size, resize_y=self.size)

    def define_graph(self):
        jpegs, self.data = self.input()
        data = self.resize(self.decode(jpegs))
        return data, self.data


pipe = Pipe(2, sys.argv[1], 3)
pipe.build()
for step in range(3):
    images, labels = pipe.run()
    print(step, np.asarray(images.at(0)).shape, labels.as_array().ravel().tolist())
