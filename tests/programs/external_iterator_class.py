# expect: converted
# data: none
"""The external source is an instance of an iterator class of the module (`class Tiles(object)` with
`__iter__` and `__next__`), made in the pipeline from the batch size: the class says the source is
iterable, so the generator draws from it with a `for` loop, and ends where `run()` raised
`StopIteration`."""

import numpy as np

from nvidia.dali import fn, pipeline_def


class Tiles(object):
    def __init__(self, batch, count):
        self.batch = batch
        self.count = count

    def __iter__(self):
        self.done = 0
        return self

    def __next__(self):
        if self.done >= self.count:
            raise StopIteration
        self.done += 1
        tiles = [np.full((2, 2), self.done * 10 + k, dtype=np.int16) for k in range(self.batch)]
        marks = [np.array([self.done], dtype=np.int32) for _ in range(self.batch)]
        return tiles, marks


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def tiled():
    source = Tiles(2, 3)
    tiles, marks = fn.external_source(source=source, num_outputs=2)
    return tiles * 2, marks


pipe = tiled()
pipe.build()
step = 0
while True:
    try:
        tiles, marks = pipe.run()
    except StopIteration:
        print("ended after", step)
        break
    print(step, tiles.as_array().ravel().tolist(), marks.as_array().ravel().tolist())
    step += 1
