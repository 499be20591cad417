# expect: converted
# data: jpeg
"""A PyTorch iterator given `size=` from the reader's epoch size and `reader_name=None` written out
(DALI's default: no reader named), as some ImageNet loaders do: DALI cuts each epoch after `size`
samples; the migrated iterator does the same, over three epochs that do not line up with the
reader's (the size is not a multiple of the batch)."""

import sys

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIClassificationIterator


class TrainPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir):
        super().__init__(batch_size, num_threads, device_id, seed=3)
        self.input = ops.readers.File(file_root=data_dir, random_shuffle=True)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.res = ops.Resize(device="cpu", resize_x=8, resize_y=8)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        images = self.res(self.decode(jpegs))
        return images, labels


pipe = TrainPipe(batch_size=4, num_threads=1, device_id=None, data_dir=sys.argv[1])
pipe.build()
loader = DALIClassificationIterator(pipe, size=pipe.epoch_size("Reader") - 3, reader_name=None)
for epoch in range(3):
    for step, data in enumerate(loader):
        print(epoch, step, data[0]["label"].flatten().tolist(), tuple(data[0]["data"].shape))
    loader.reset()
