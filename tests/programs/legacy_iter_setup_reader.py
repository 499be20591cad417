# expect: converted
# data: jpeg
"""A legacy class with a reader and external sources in one graph: `iter_setup` draws crop windows
from a module-level generator and feeds them; the fed batches are the anchor and shape inputs of
`ops.Slice`. The windows end before the reader's epoch does: the pipeline stops there."""

import sys

import numpy as np

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


def windows(steps, batch_size):
    for step in range(steps):
        anchors = [np.array([0.1 * (step % 3), 0.2], dtype=np.float32) for _ in range(batch_size)]
        shapes = [np.array([0.5, 0.4 + 0.1 * k], dtype=np.float32) for k in range(batch_size)]
        yield anchors, shapes


crop_windows = windows(5, 2)


class Crops(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, root):
        super().__init__(batch_size, num_threads, device_id)
        self.input = ops.readers.File(file_root=root)
        self.anchors_in = ops.ExternalSource()
        self.shapes_in = ops.ExternalSource()
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.slice = ops.Slice()

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        self.anchors = self.anchors_in()
        self.shapes = self.shapes_in()
        images = self.decode(jpegs)
        return self.slice(images, self.anchors, self.shapes), labels

    def iter_setup(self):
        anchors, shapes = next(crop_windows)
        self.feed_input(self.anchors, anchors)
        self.feed_input(self.shapes, shapes)


pipe = Crops(batch_size=2, num_threads=1, device_id=None, root=sys.argv[1])
pipe.build()
count = 0
try:
    while True:
        crops, labels = pipe.run()
        count += 1
        print(count, crops.at(0).shape, crops.at(1).shape, int(crops.at(1).sum()), labels.at(0).tolist())
except StopIteration:
    print("stopped after", count)
