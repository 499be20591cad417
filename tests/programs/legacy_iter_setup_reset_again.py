# expect: converted
# data: none
"""`pipe.reset()` of a legacy pipeline fed by `iter_setup`, after its `StopIteration`: the next
`run()` calls `iter_setup` again on the same object. Everything the class holds comes from its
creation call, whose arguments are a name bound once and literals: the reset becomes that call
again, a new generator over the same `Chunks` object, which goes on where it stopped."""

import numpy as np

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class Chunks:
    """Yields `rounds` batches of growing ramps, then stops; the next round starts at a new offset."""

    def __init__(self, rounds, width):
        self.rounds, self.width = rounds, width
        self.offset = 0
        self.left = rounds

    def __iter__(self):
        return self

    def __next__(self):
        if self.left == 0:
            self.left = self.rounds
            self.offset += 100
            raise StopIteration
        self.left -= 1
        start = self.offset + self.left
        return [np.arange(start, start + self.width + k, dtype=np.int32) for k in range(2)]


class Ramp(Pipeline):
    def __init__(self, chunks, scale, batch_size, device_id):
        super().__init__(batch_size=batch_size, num_threads=1, device_id=device_id)
        self.feed = ops.ExternalSource(dtype=types.INT32)
        self.chunks = chunks
        self.scale = scale

    def define_graph(self):
        self.ramps = self.feed()
        return self.ramps * self.scale, self.ramps + 1

    def iter_setup(self):
        self.feed_input(self.ramps, next(self.chunks))


chunks = Chunks(3, 4)
pipe = Ramp(chunks, 2, 2, None)
pipe.build()
for epoch in range(3):
    steps = 0
    while True:
        try:
            scaled, shifted = pipe.run()
        except StopIteration:
            break
        steps += 1
        print(epoch, steps, [scaled.at(i).tolist() for i in range(len(scaled))], shifted.at(1).tolist())
    pipe.reset()
print("rounds left", chunks.left, "offset", chunks.offset)
