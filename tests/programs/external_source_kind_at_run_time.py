# expect: converted
# data: none
"""A pipeline function whose `source=` is its parameter, and callers that pass different kinds of
source: an instance of an iterator class (`__iter__`/`__next__`, from a base class the migration
cannot read), a callable taking the iteration number, a generator function and a list. The code
does not show which kind arrives; DALI decided at run time, one call after the other, and each
pipeline is run to its `StopIteration`."""

import numpy as np
from nvidia.dali import fn, pipeline_def


class Reader:
    """A base whose methods the migration does not read (defined elsewhere in a real project)."""

    def __init__(self, count):
        self.count = count


class Frames(Reader):
    def __iter__(self):
        self.i = 0
        return self

    def __next__(self):
        if self.i >= self.count:
            raise StopIteration
        self.i += 1
        return [np.full((2, 2), self.i * 10 + k, np.uint8) for k in range(3)]


def by_iteration(iteration):
    if iteration == 2:
        raise StopIteration
    return [np.full((2, 2), 100 + iteration + k, np.uint8) for k in range(3)]


def frames():
    for i in range(4):
        yield [np.full((2, 2), 200 + i, np.uint8)] * 3


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def brighten(source):
    data = fn.external_source(source=source, layout="HW")
    return data * 2, fn.reductions.sum(data)


def show(name, source):
    pipe = brighten(source)
    pipe.build()
    step = 0
    while True:
        try:
            doubled, sums = pipe.run()
        except StopIteration:
            print(name, "end after", step)
            return
        print(name, step, doubled.layout(), [doubled.at(i).tolist() for i in range(3)], sums.as_array().tolist())
        step += 1


show("iterator", Frames(3))
show("callable", by_iteration)
show("generator", frames)
show("list", [[np.ones((2, 2), np.uint8)] * 3] * 2)
