# expect: converted
# data: none
"""An external source whose number of outputs is decided when the pipeline is built
(`num_outputs=len(names)`) and whose outputs stay one list: moved with a comprehension, returned
as a tuple; and one whose outputs are picked from the list by index. Its source (an iterable
class, then a callable) gives one tuple of batches per step."""

import numpy as np

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def

VARIABLES = ["temperature", "pressure", "wind"]


class Steps:
    def __init__(self, count):
        self.count = count

    def __iter__(self):
        for step in range(5):
            yield tuple([np.full((2, k + 1), step * 10 + k + i, dtype=np.float32) for i in range(2)]
                        for k in range(self.count))


def draw():
    draw.calls += 1
    return [np.arange(3, dtype=np.int32) + draw.calls, np.array([draw.calls, -draw.calls], dtype=np.int32)]


draw.calls = 0


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def fields(names):
    data = fn.external_source(Steps(len(names)), num_outputs=len(names), batch=True, dtype=None)
    data = [d * 2 + 1 for d in data]
    return tuple(data)


@pipeline_def(batch_size=1, num_threads=1, device_id=None)
def picked(count):
    parts = fn.external_source(source=lambda: [[a] for a in draw()], num_outputs=count, layout="X")
    return parts[0] + parts[-1][0:1], parts[1]


pipe = fields(VARIABLES)
pipe.build()
for step in range(3):
    out = pipe.run()
    temperature, pressure, wind = out
    print(step, len(out), temperature.as_array().tolist(), pressure.as_array().tolist(), wind.at(1).tolist())

second = picked(2)
second.build()
for step in range(2):
    total, rest = second.run()
    print(step, total.at(0).tolist(), total.layout(), rest.at(0).tolist())
