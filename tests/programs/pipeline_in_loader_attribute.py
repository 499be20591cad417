# expect: converted
# data: jpeg
"""A loader class keeps its pipeline in `self.pipeline`, set once in `__init__` and used only by its
own methods (build there, `run()` in `__iter__` and in a helper, the batch count in `__len__`):
the attribute is followed like a plain name, so `self.pipeline.run()` becomes `next(self.pipeline)`."""

import sys

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class SquarePipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, root, side):
        super(SquarePipe, self).__init__(batch_size, num_threads, device_id, seed=3)
        self.files = ops.readers.File(file_root=root, random_shuffle=False)
        self.decode = ops.decoders.Image(output_type=types.RGB)
        self.square = ops.Resize(resize_x=side, resize_y=side)

    def define_graph(self):
        jpegs, labels = self.files(name="Files")
        return self.square(self.decode(jpegs)), labels


class SquareLoader:
    """Gives `steps` batches of (images as numpy, labels as a list) per pass."""

    def __init__(self, root, batch_size, steps):
        self.steps = steps
        self.pipeline = SquarePipe(batch_size=batch_size, num_threads=1, device_id=None, root=root, side=6)
        self.pipeline.build()

    def __len__(self):
        return self.steps

    def _one(self):
        images, labels = self.pipeline.run()
        return images.as_array(), [int(labels.at(k)[0]) for k in range(len(labels))]

    def __iter__(self):
        for _ in range(len(self)):
            yield self._one()


loader = SquareLoader(sys.argv[1], batch_size=3, steps=2)
print("batches per pass:", len(loader))
for epoch in range(2):
    for images, labels in loader:
        print(epoch, images.shape, int(images.sum()) % 1009, labels)
