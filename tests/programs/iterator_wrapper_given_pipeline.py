# expect: converted
# data: jpeg
"""A user class wrapping DALI's iterator, given the pipeline by its caller (the shape of DALI's
PyTorch demo wrappers): `__init__` makes `DALIClassificationIterator(pipelines=pipelines,
size=size)` and keeps it; the class reads its size and batch size, takes batches with `next()` and
its caller resets it. The iterator it makes becomes the support module's, over the migrated
pipeline; the class and its callers keep their code."""

import math
import sys

try:
    from nvidia.dali.plugin.pytorch import DALIClassificationIterator
    from nvidia.dali.pipeline import Pipeline
    import nvidia.dali.ops as ops
    import nvidia.dali.types as types
except ImportError:
    raise ImportError("Please install DALI")


class TrainPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir, crop):
        super(TrainPipe, self).__init__(batch_size, num_threads, device_id, seed=12)
        self.input = ops.readers.File(file_root=data_dir, random_shuffle=True, name="Reader")
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.res = ops.Resize(resize_x=crop, resize_y=crop)

    def define_graph(self):
        jpegs, labels = self.input()
        images = self.res(self.decode(jpegs))
        return [images, labels]


class TorchLikeLoader:
    """DALI's iterator with the interface of torchvision's loader."""

    def __init__(self, pipelines, size, **kwargs):
        self._dali_iterator = DALIClassificationIterator(pipelines=pipelines, size=size)

    def __iter__(self):
        return self

    def __len__(self):
        return int(math.ceil(self._dali_iterator._size / self._dali_iterator.batch_size))

    def __next__(self):
        data = next(self._dali_iterator)
        return data[0]["data"], data[0]["label"].squeeze(-1).long()


def main(data_dir):
    pipe = TrainPipe(batch_size=4, num_threads=1, device_id=None, data_dir=data_dir, crop=16)
    pipe.build()
    loader = TorchLikeLoader(pipelines=pipe, size=pipe.epoch_size("Reader"), fp16=False)
    print("steps per epoch", len(loader))
    for epoch in range(2):
        for images, labels in loader:
            print(epoch, tuple(images.shape), labels.tolist())
        loader._dali_iterator.reset()


main(sys.argv[1])
