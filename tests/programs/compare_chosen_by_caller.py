# expect: converted
# data: jpeg
"""Two pipelines built by a runner that is given the function comparing their outputs: each caller
picks one of two comparisons of the module (per sample, or the batch as lists). The runner's
`compare` parameter holds only those functions, so the pipelines are followed into both."""

import sys

import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline

BATCH = 3


class Decoded(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, root):
        super(Decoded, self).__init__(batch_size, num_threads, device_id, seed=3)
        self.files = ops.readers.File(file_root=root)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)

    def define_graph(self):
        jpegs, labels = self.files()
        return self.decode(jpegs), labels


class Halved(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, root):
        super(Halved, self).__init__(batch_size, num_threads, device_id, seed=3)
        self.files = ops.readers.File(file_root=root)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.resize = ops.Resize(resize_x=16, resize_y=16)

    def define_graph(self):
        jpegs, labels = self.files()
        images = self.decode(jpegs)
        return images, self.resize(images)


def per_sample(name, pipe, other):
    for step in range(2):
        images, labels = pipe.run()
        same, small = other.run()
        for i in range(BATCH):
            assert np.array_equal(np.asarray(images.at(i)), np.asarray(same.at(i)))
            print(name, step, i, np.asarray(small.at(i)).shape, int(np.asarray(labels.at(i))[0]))


def as_lists(name, pipe, other):
    images, labels = pipe.run()
    same, small = other.run()
    sizes = [np.asarray(images.at(i)).shape for i in range(BATCH)]
    means = [round(float(np.asarray(small.at(i)).mean()), 3) for i in range(BATCH)]
    print(name, sizes, means, len(same))


def run_both(name, compare, root):
    pipe = Decoded(BATCH, 1, None, root)
    other = Halved(BATCH, 1, None, root)
    pipe.build()
    other.build()
    compare(name, pipe, other)


def test_per_sample(root):
    run_both("per-sample", per_sample, root)


def test_lists(root):
    run_both("lists", compare=as_lists, root=root)


test_per_sample(sys.argv[1])
test_lists(sys.argv[1])
