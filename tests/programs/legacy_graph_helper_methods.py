# expect: converted
# data: jpeg
"""A `Pipeline` base class whose graph steps live in helper methods: `load()` reads and decodes,
`finish(images, labels)` resizes and returns the outputs. Each subclass calls them from its
`define_graph`, one of them twice. A generator function has no methods: each call statement becomes
the helper's statements (its parameters bound to the call's arguments, its `return` the call's own
statement), and the helpers leave with the base class. A lone class with a helper of its own is
inlined the same way."""

import sys

import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class Loading(Pipeline):
    def __init__(self, batch_size, data_dir):
        super().__init__(batch_size=batch_size, num_threads=1, device_id=None, seed=3)
        self.files = ops.readers.File(file_root=data_dir)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.resize = ops.Resize(resize_x=24, resize_y=16)

    def load(self):
        """Reads and decodes one batch."""
        jpegs, labels = self.files()
        # the decoder gives HWC images
        decoded = self.decode(jpegs)
        return decoded, labels

    def finish(self, images, labels, scale=1):
        resized = self.resize(images)
        return resized * scale, labels

    def define_graph(self):
        pass


class Plain(Loading):
    def define_graph(self):
        images, labels = self.load()
        return self.finish(images, labels)


class Flipped(Loading):
    def __init__(self, batch_size, data_dir):
        super().__init__(batch_size, data_dir)
        self.flip = ops.Flip(horizontal=1)

    def define_graph(self):
        images, labels = self.load()
        flipped = self.flip(images)
        out, labels = self.finish(flipped, labels, scale=2)
        return out, labels


class Cropped(Pipeline):
    """No base class: its helper is inlined all the same."""

    def __init__(self, batch_size, data_dir):
        super().__init__(batch_size=batch_size, num_threads=1, device_id=None)
        self.files = ops.readers.File(file_root=data_dir)
        self.decode = ops.decoders.Image(device="cpu")
        self.crop = ops.Crop(crop=(8, 8))

    def cropped(self, data):
        return self.crop(self.decode(data))

    def define_graph(self):
        jpegs, labels = self.files()
        return self.cropped(jpegs), labels


def summary(images, labels):
    shapes = [np.asarray(images.at(i)).shape for i in range(len(images))]
    return shapes, [int(np.asarray(labels.at(i))[0]) for i in range(len(labels))], int(np.asarray(images.at(0)).sum())


def show(name, pipe):
    pipe.build()
    for _ in range(2):
        images, labels = pipe.run()
        print(name, summary(images, labels))


show("plain", Plain(2, sys.argv[1]))
show("flipped", Flipped(2, sys.argv[1]))
show("cropped", Cropped(3, sys.argv[1]))
