# expect: blocked NDD402
# data: jpeg
"""A legacy `ops.PythonFunction` sink called in the middle of `define_graph`, before a Python operator
whose output the pipeline returns. DALI calls the sink after that operator (it orders the operators
from the outputs); the migrated code would call them as written, so the class stays as it is, with a
TODO saying to move the sink's statement after it."""

import sys

import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline

events = []


def dump(image):
    events.append(("dump", int(image.sum())))


def brightness(image):
    events.append(("brightness", int(image.sum())))
    return np.array([image.mean()], dtype=np.float32)


class DebugPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, root):
        super().__init__(batch_size, num_threads, device_id, exec_async=False, exec_pipelined=False)
        self.input = ops.readers.File(file_root=root)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.dump = ops.PythonFunction(function=dump, num_outputs=0)
        self.brightness = ops.PythonFunction(function=brightness)

    def define_graph(self):
        jpegs, labels = self.input()
        images = self.decode(jpegs)
        self.dump(images)
        return self.brightness(images), labels


pipe = DebugPipe(2, 1, None, sys.argv[1])
pipe.build()
level, labels = pipe.run()
print([float(np.asarray(level.at(i))[0]) for i in range(2)])
print(events)  # brightness first: DALI's order, not the statements'
