# expect: converted
# data: jpeg
"""A legacy `Pipeline` subclass that calls its reader in each branch of an `if` of `define_graph`,
on a value fixed when the pipeline is built (whether labels are wanted), unpacking its outputs
differently in each branch: the reader is created once, each branch unpacks what it yields."""

import sys

import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class LabelledPipe(Pipeline):
    def __init__(self, batch_size, data_dir, with_labels, size=16):
        super().__init__(batch_size, num_threads=1, device_id=None)
        self.input = ops.readers.File(file_root=data_dir)
        self.decode = ops.decoders.Image(output_type=types.RGB)
        self.resize = ops.Resize(resize_x=size, resize_y=size)
        self.with_labels = with_labels

    def define_graph(self):
        if self.with_labels:
            self.jpegs, self.labels = self.input(name="Reader")
        elif self.with_labels is None:
            [self.jpegs, _] = self.input(name="Reader")
        else:
            self.jpegs, _ = self.input(name="Reader")
        images = self.resize(self.decode(self.jpegs))
        if self.with_labels:
            return images, self.labels
        return (images,)


for wanted in (True, False, None):
    pipe = LabelledPipe(3, sys.argv[1], wanted)
    pipe.build()
    for step in range(3):
        out = pipe.run()
        print(wanted, step, len(out), [np.asarray(out[0].at(i)).shape for i in range(len(out[0]))])
        if wanted:
            print(out[1].as_array().ravel().tolist())
