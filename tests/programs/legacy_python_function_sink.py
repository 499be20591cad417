# expect: converted
# data: jpeg
"""A legacy `Pipeline` subclass with an `ops.PythonFunction` sink (`num_outputs=0`) called as a statement
of `define_graph`, and a three-output `ops.PythonFunction` whose `batch_processing=` is a parameter of
`__init__` (the function given by the caller), built both ways."""

import sys

import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline

saved = []


def save(image, label):
    saved.append((int(image.sum()), int(label[0])))


def stats_per_sample(image):
    return image.min(keepdims=True), image.max(keepdims=True), np.array([image.mean()], dtype=np.float32)


def stats_per_batch(images):
    return ([x.min(keepdims=True) for x in images], [x.max(keepdims=True) for x in images],
            [np.array([len(images)], dtype=np.float32) for _ in images])


class StatsPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, root, function, batch_processing=False):
        super().__init__(batch_size, num_threads, device_id, exec_async=False, exec_pipelined=False)
        self.input = ops.readers.File(file_root=root)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.GRAY)
        self.resize = ops.Resize(resize_x=10, resize_y=10)
        self.stats = ops.PythonFunction(function=function, num_outputs=3, batch_processing=batch_processing)
        self.sink = ops.PythonFunction(function=save, num_outputs=0)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        images = self.resize(self.decode(jpegs))
        low, high, third = self.stats(images)
        self.sink(images, labels)  # saved at every run, after the stats
        return low, high, third


for function, batch in ((stats_per_sample, False), (stats_per_batch, True)):
    pipe = StatsPipe(3, 1, None, sys.argv[1], function, batch_processing=batch)
    pipe.build()
    for step in range(2):
        low, high, third = pipe.run()
        print(function.__name__, step, [np.asarray(low.at(i)).tolist() for i in range(3)],
              [np.asarray(high.at(i)).tolist() for i in range(3)], [np.asarray(third.at(i)).tolist() for i in range(3)])
        print("  saved", saved)
        saved.clear()
