# expect: converted
# data: jpeg
"""A graph helper that collects coin flips in a dict and adds one more under an `if` on a value
fixed when the pipeline is built (`if self.vertical: flips.update({...})`), then passes the dict
to `fn.flip(images, **flips)`. The dict is made anew each time the body runs, so updating it acts
on nothing outside the function: in the generator it is built, updated and read once per batch.
Random draws differ between the modes by design; shapes, pixel sums and labels do not."""

import sys

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class Flipping(Pipeline):
    def __init__(self, batch_size, root, vertical):
        super().__init__(batch_size, num_threads=1, device_id=None, seed=12)
        self.vertical = vertical
        self.input = ops.readers.File(file_root=root, random_shuffle=True, seed=4)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)

    def flips(self, images):
        flips = {"horizontal": fn.random.coin_flip(probability=0.5)}
        if self.vertical:
            flips.update({"vertical": fn.random.coin_flip(probability=0.5)})
        return fn.flip(images, **flips)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        images = self.flips(self.decode(jpegs))
        return images, labels


def show(name, pipe):
    pipe.build()
    for step in range(3):
        images, labels = pipe.run()
        sums = [int(np.asarray(images.at(i)).sum()) for i in range(len(images))]
        print(name, step, np.asarray(images.at(0)).shape, sums, labels.as_array().ravel().tolist())


show("horizontal", Flipping(3, sys.argv[1], False))
show("both", Flipping(3, sys.argv[1], True))
