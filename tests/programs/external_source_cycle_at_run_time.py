# expect: converted
# data: none
"""`cycle="quiet"` over a source picked from a table at run time: a list of batches in one
pipeline, a generator function in another. The source never ends: the program takes as many
batches as it wants, past the end of the data, where DALI started the source again."""

import numpy as np
from nvidia.dali import fn, pipeline_def


def shades():
    for level in (5, 6, 7):
        yield [np.full(3, level, np.int32), np.full(3, -level, np.int32)]


SOURCES = {
    "table": [[np.arange(3, dtype=np.int32) + 10 * i, np.zeros(3, np.int32)] for i in range(2)],
    "shades": shades,
}


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def looped(name):
    values = fn.external_source(source=SOURCES[name], cycle="quiet")
    return values + 1


for name in SOURCES:
    pipe = looped(name)
    pipe.build()
    for step in range(7):
        (values,) = pipe.run()
        print(name, step, values.as_array().tolist())
