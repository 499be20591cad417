# expect: converted
# data: none
"""A legacy class whose `iter_setup` feeds two `ops.ExternalSource` outputs from an iterator it keeps:
the run loop ends at the `StopIteration` the iterator raises; a counter of `__init__` is advanced in
`iter_setup`, which reads the pipeline's `batch_size`; the data arrives as a list of arrays and as
one dense array, with a layout."""

import numpy as np

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class Frames:
    def __init__(self, steps, batch_size):
        self.steps = steps
        self.batch_size = batch_size

    def __iter__(self):
        self.step = 0
        return self

    def __next__(self):
        if self.step == self.steps:
            raise StopIteration
        self.step += 1
        frames = [np.full((3, 5, 2), 10 * self.step + k, dtype=np.uint8) for k in range(self.batch_size)]
        weights = np.arange(self.batch_size * 2, dtype=np.float32).reshape(self.batch_size, 2) * self.step
        return frames, weights


class Weighted(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, clips):
        super().__init__(batch_size, num_threads, device_id)
        self.frames_in = ops.ExternalSource()
        self.weights_in = ops.ExternalSource(dtype=types.FLOAT)
        self.flip = ops.Flip(horizontal=1)
        self.to_float = ops.Cast(dtype=types.FLOAT)
        self.iterator = iter(clips)
        self.fed = 0

    def define_graph(self):
        self.frames = self.frames_in()
        self.weights = self.weights_in()
        flipped = self.flip(self.frames)
        return self.to_float(flipped) * 2, self.weights

    def iter_setup(self):
        frames, weights = next(self.iterator)
        frames = frames[: self.batch_size]
        self.fed += 1
        self.feed_input(self.frames, frames, layout="HWC")
        self.feed_input(self.weights, weights)


pipe = Weighted(3, 1, None, Frames(4, 3))
pipe.build()
step = 0
while True:
    try:
        images, weights = pipe.run()
    except StopIteration:
        break
    step += 1
    print(step, len(images), images.at(2)[0, :, 0].tolist(), images.layout(), weights.at(1).tolist())
print("batches:", step)
