# expect: converted
# data: jpeg
"""The external-source tutorial's shape: a function builds `pipe = Pipeline(...)` with `with pipe:`
around an external source whose `source=` is its parameter, and the callers pass an instance of an
iterator class of the module (`__iter__` and `__next__`): the source's kind is read at the calls."""

import os
import sys

import numpy as np
from nvidia.dali import fn, types
from nvidia.dali.pipeline import Pipeline


class ExternalInputIterator(object):
    def __init__(self, batch_size, root):
        self.batch_size = batch_size
        self.files = sorted(
            os.path.join(folder, name) for folder, _, names in os.walk(root) for name in names if name.endswith(".jpg")
        )

    def __iter__(self):
        self.i = 0
        self.n = len(self.files)
        return self

    def __next__(self):
        if self.i >= self.n:
            raise StopIteration
        batch, labels = [], []
        for _ in range(self.batch_size):
            path = self.files[self.i % self.n]
            batch.append(np.fromfile(path, dtype=np.uint8))
            labels.append(np.array([len(os.path.basename(path))], dtype=np.uint8))
            self.i += 1
        return batch, labels


def ExternalSourcePipeline(batch_size, num_threads, device_id, external_data):
    pipe = Pipeline(batch_size, num_threads, device_id)
    with pipe:
        jpegs, labels = fn.external_source(source=external_data, num_outputs=2, dtype=types.UINT8)
        images = fn.decoders.image(jpegs, device="cpu")
        images = fn.resize(images, resize_x=16, resize_y=16)
        output = fn.cast(images, dtype=types.UINT8)
        pipe.set_outputs(output, labels)
    return pipe


eii = ExternalInputIterator(4, sys.argv[1])
pipe = ExternalSourcePipeline(batch_size=4, num_threads=2, device_id=None, external_data=eii)
pipe.build()
for step in range(3):
    images, labels = pipe.run()
    print(step, images.as_array().shape, int(images.as_array().sum()), labels.as_array().ravel().tolist())
