# expect: blocked NDD008
# data: jpeg
"""A runner given the function that reads its pipeline: one caller passes a function of the module,
another a lambda. What the runner's `compare` parameter holds is not known, so the pipeline is not
followed into the call `compare(pipe)` and stays in pipeline mode."""

import sys

import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class Decoded(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, root):
        super(Decoded, self).__init__(batch_size, num_threads, device_id, seed=3)
        self.files = ops.readers.File(file_root=root)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)

    def define_graph(self):
        jpegs, labels = self.files()
        return self.decode(jpegs), labels


def shapes(pipe):
    images, labels = pipe.run()
    print([np.asarray(images.at(i)).shape for i in range(2)])


def run(compare, root):
    pipe = Decoded(2, 1, None, root)
    pipe.build()
    compare(pipe)


run(shapes, sys.argv[1])
run(lambda pipe: print(len(pipe.run())), sys.argv[1])
