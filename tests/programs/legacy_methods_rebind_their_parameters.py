# expect: converted
# data: jpeg
"""A `Pipeline` subclass whose graph methods rebind their parameters (`images = fn.resize(images)`),
called as `images, labels = self.crop(images, labels)` and as `mirror = self.flipped(images)`. The
first call's targets are its arguments: the method's body works on the caller's names themselves
(no `images_2 = images` copies). The second keeps the caller's `images` as they were: the flip goes
to the method's own name."""

import sys

import numpy as np
from nvidia.dali import fn, ops
from nvidia.dali.pipeline import Pipeline


class Crops(Pipeline):
    def __init__(self, root):
        super().__init__(batch_size=2, num_threads=1, device_id=None, seed=3)
        self.input = ops.readers.File(file_root=root, random_shuffle=True, seed=5)
        self.decode = ops.decoders.Image()

    def crop(self, images, labels):
        images = fn.resize(images, resize_x=12, resize_y=10)
        labels = labels + 1
        return images, labels

    def flipped(self, images):
        images = fn.flip(images, horizontal=1)
        return images

    def define_graph(self):
        jpegs, labels = self.input()
        images = self.decode(jpegs)
        images, labels = self.crop(images, labels)
        mirror = self.flipped(images)
        return images, mirror, labels


pipe = Crops(sys.argv[1])
pipe.build()
for step in range(3):
    images, mirror, labels = pipe.run()
    first, flipped = np.asarray(images.at(0)), np.asarray(mirror.at(0))
    print(step, first.shape, first[0, :3, 0].tolist(), flipped[0, -3:, 0].tolist(), labels.as_array().ravel().tolist())
