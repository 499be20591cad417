# expect: converted
# data: jpeg
"""A legacy `Pipeline` subclass that asserts what its Python operators give: one output is a graph
value, two outputs are a list of graph values. The graph-node class comes from a compatibility
import (older DALI named it `ops._EdgeReference`; DALI 2.4.0 has only `DataNode`)."""

import sys

import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline

try:
    from nvidia.dali.ops import _EdgeReference
except ImportError:
    from nvidia.dali.pipeline import DataNode as _EdgeReference


def invert(image):
    return 255 - image


def split_rows(image):
    half = image.shape[0] // 2
    return image[:half], image[half:]


class PythonOperatorPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, root):
        super().__init__(batch_size, num_threads, device_id, exec_async=False, exec_pipelined=False)
        self.input = ops.readers.File(file_root=root)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.resize = ops.Resize(resize_x=10, resize_y=8)
        self.invert = ops.PythonFunction(function=invert)
        self.split = ops.PythonFunction(function=split_rows, num_outputs=2)

    def define_graph(self):
        jpegs, labels = self.input()
        images = self.resize(self.decode(jpegs))
        processed = self.invert(images)
        assert isinstance(processed, _EdgeReference)
        top, bottom = self.split(images)
        assert isinstance(top, _EdgeReference)
        assert isinstance(bottom, _EdgeReference)
        halves = self.split(processed)
        assert not isinstance(halves, _EdgeReference) and isinstance(halves, (list, tuple))
        return processed, top, bottom, labels


pipe = PythonOperatorPipe(2, 1, None, sys.argv[1])
pipe.build()
for step in range(3):
    processed, top, bottom, labels = pipe.run()
    print(step, [int(np.asarray(processed.at(i)).sum()) for i in range(2)])
    print("  halves", [np.asarray(top.at(i)).shape for i in range(2)], [int(np.asarray(bottom.at(i)).sum()) for i in range(2)])
    print("  labels", labels.as_array().ravel().tolist())
