# expect: converted
# data: jpeg
"""The ResNet-50 example's lineage: `Pipeline` subclasses with their parameters one per line, a
DALI iterator made in a factory with the older `fill_last_batch=False`, wrapped by a class whose
generator `__iter__` resets it after each epoch, and returned with a step count from the reader's
epoch size. The iterator's uses are DALI's (`reset()`, kept for later epochs, returned), so it
becomes the support module's iterator of the same name."""

import sys

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIClassificationIterator


class HybridTrainPipe(Pipeline):
    def __init__(
        self,
        batch_size,
        num_threads,
        device_id,
        data_dir,
        crop,
    ):
        super(HybridTrainPipe, self).__init__(batch_size, num_threads, device_id, seed=12)
        self.input = ops.readers.File(file_root=data_dir, shard_id=0, num_shards=1, random_shuffle=True)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.res = ops.Resize(resize_x=crop, resize_y=crop)

    def define_graph(self):
        self.jpegs, self.labels = self.input(name="Reader")
        images = self.res(self.decode(self.jpegs))
        return [images, self.labels]


class Wrapper(object):
    def gen_wrapper(loader):
        for data in loader:
            yield data[0]["data"].shape[0], data[0]["label"].flatten().tolist()
        loader.reset()

    def __init__(self, loader):
        self.loader = loader

    def __iter__(self):
        return Wrapper.gen_wrapper(self.loader)


def get_loader(data_dir, batch_size):
    pipe = HybridTrainPipe(
        batch_size=batch_size,
        num_threads=1,
        device_id=None,
        data_dir=data_dir,
        crop=8,
    )
    pipe.build()
    train_loader = DALIClassificationIterator(pipe, reader_name="Reader", fill_last_batch=False)
    return Wrapper(train_loader), int(pipe.epoch_size("Reader") / batch_size), train_loader._size


loader, steps, samples = get_loader(sys.argv[1], 4)
print("steps", steps, "samples", samples)
for epoch in range(3):
    for size, labels in loader:
        print(epoch, size, labels)
