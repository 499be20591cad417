# expect: blocked NDD901
# data: numpy
"""A `Pipeline` subclass that makes its window's start and size as graph constants in `__init__`
(`types.Constant(np.array(...), dtype=types.INT64)`) and slices with them in `define_graph`, the
size grown by graph arithmetic (`self.size + 1`, an arithmetic node). Given only to operators, each
would become its numpy array (graph_constants_made_in_init.py); an arithmetic operand has no such
form, and a detached constant node kept as a value in the generator would reach a dynamic-mode op
as a pipeline-mode `DataNode` and fail there (`TypeError: Unexpected element type`). The class is
kept, with a TODO at the arithmetic."""

import sys
from pathlib import Path

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class Window(Pipeline):
    def __init__(self, batch_size, files, rows):
        super().__init__(batch_size, num_threads=1, device_id=None)
        self.input = ops.readers.Numpy(files=files)
        self.start = types.Constant(np.array([1, 0]), dtype=types.INT64)
        self.size = types.Constant(np.array([rows, 4]), dtype=types.INT64)

    def define_graph(self):
        data = self.input()
        return fn.slice(data, self.start, self.size + 1, axes=[0, 1], out_of_bounds_policy="pad")


files = sorted(str(p) for p in Path(sys.argv[1]).glob("*.npy"))
pipe = Window(3, files, 5)
pipe.build()
for step in range(2):
    (window,) = pipe.run()
    print(step, [np.asarray(window.at(i)).round(3).tolist() for i in range(len(window))][0])
