# expect: blocked NDD008
# data: jpeg
"""A `Pipeline` subclass whose `__len__` asks the epoch size of a reader other than its own:
DALI raises there, and `len(pipe)` is left to pipeline mode."""

import math
import sys

from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
from nvidia.dali.plugin.pytorch import DALIClassificationIterator


class TrainPipe(Pipeline):
    def __init__(self, root, batch_size):
        super(TrainPipe, self).__init__(batch_size, 1, None, seed=7)
        self.input = ops.readers.File(file_root=root, random_shuffle=True)
        self.decode = ops.decoders.Image()
        self.res = ops.Resize(resize_x=8, resize_y=6)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        images = self.res(self.decode(jpegs))
        return [images, labels]

    def __len__(self):
        return self.epoch_size("Other")


def main(root):
    pipe = TrainPipe(root, 3)
    pipe.build()
    steps = math.ceil(len(pipe) / 3)
    loader = DALIClassificationIterator(pipe, size=len(pipe))
    print("samples", len(pipe), "steps", steps)
    for epoch in range(2):
        for i, data in enumerate(loader):
            print(epoch, i, tuple(data[0]["data"].shape), data[0]["label"].view(-1).tolist())
        loader.reset()


main(sys.argv[1])
