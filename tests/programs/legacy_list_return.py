# expect: converted
# data: jpeg
"""A legacy `define_graph` builds a list of outputs and returns it concatenated with another."""

import sys

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class Casts(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, root):
        super().__init__(batch_size, num_threads, device_id)
        self.input = ops.readers.File(file_root=root)
        self.to_float = ops.Cast(dtype=types.FLOAT)
        self.to_int = ops.Cast(dtype=types.INT32)

    def define_graph(self):
        data, labels = self.input(name="Reader")
        outputs = [None, None]
        outputs[0] = self.to_float(data)
        outputs[1] = self.to_int(data)
        return [labels] + outputs


pipe = Casts(batch_size=2, num_threads=1, device_id=None, root=sys.argv[1])
pipe.build()
for _ in range(2):
    out = pipe.run()
    print(len(out), out[0].at(0).tolist(), out[1].at(1).dtype, out[2].at(1).sum())
