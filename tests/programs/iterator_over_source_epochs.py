# expect: converted
# data: jpeg
"""A PyTorch iterator with neither `reader_name` nor `size=` over a pipeline fed by an external
source that raises `StopIteration` at the end of each pass (and rewinds itself first): each epoch
ends there, and the next starts from the same source object, as DALI draws it. The pipeline asks
`Pipeline.current()` for its batch size."""

import os
import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator


class JpegFiles:
    """The encoded images of a folder tree, `batch_size` at a time, the last batch smaller."""

    def __init__(self, root, batch_size):
        self.batch_size = batch_size
        self.files = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".jpg"))
        self.passes = 0

    def __iter__(self):
        self.i = 0
        return self

    def __next__(self):
        if self.i >= len(self.files):
            self.__iter__()
            self.passes += 1
            raise StopIteration
        names = self.files[self.i : self.i + self.batch_size]
        self.i += len(names)
        encoded = [np.fromfile(name, dtype=np.uint8) for name in names]
        ids = [np.array([self.passes * 100 + k], dtype=np.int32) for k in range(len(names))]
        return encoded, ids


@pipeline_def
def external_pipeline(root):
    pipe = Pipeline.current()
    files = JpegFiles(root, pipe.batch_size)
    jpegs, ids = fn.external_source(source=files, num_outputs=2)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    images = fn.resize(images, resize_x=6, resize_y=6)
    return images, ids


pipe = external_pipeline(sys.argv[1], batch_size=5, num_threads=1, device_id=None)
pipe.build()
loader = DALIGenericIterator(pipe, ["data", "ids"], auto_reset=True)
for epoch in range(3):
    for i, data in enumerate(loader):
        print(epoch, i, tuple(data[0]["data"].shape), int(data[0]["data"].sum()) % 1009, data[0]["ids"].flatten().tolist())
