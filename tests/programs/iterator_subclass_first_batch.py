# expect: converted
# data: jpeg
"""A data-loader class deriving from DALI's iterator with parameters of its own: it gives the base
`pipelines=`, `size=` and `output_map=` by name, takes the batch ready at its creation itself
(`self._first_batch`), gives `[images, labels]`, and counts its steps from `self._size`. Its base
becomes the support module's iterator, which keeps that state as DALI's did."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def cifar_like(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.resize(fn.decoders.image(jpegs), resize_x=5, resize_y=5)
    return fn.crop_mirror_normalize(images, mean=[0.0], std=[255.0]), labels


class Loader(DALIGenericIterator):
    def __init__(self, pipeline, size, batch_size, output_map=["data", "label"], auto_reset=True, squeeze=False):
        self.batch_size = batch_size
        self.squeeze = squeeze
        super().__init__(pipelines=pipeline, size=size, auto_reset=auto_reset, output_map=output_map)
        self._size = size

    def __next__(self):
        if self._first_batch is not None:
            batch = self._first_batch
            self._first_batch = None
            return batch
        data = super().__next__()[0]
        labels = data[self.output_map[1]]
        return [data[self.output_map[0]], labels.squeeze(-1) if self.squeeze else labels]

    def __len__(self):
        return -(-self._size // self.batch_size)


pipe = cifar_like(sys.argv[1])
pipe.build()
loader = Loader(pipe, 10, 4, squeeze=True)
print("steps", len(loader))
for epoch in range(3):
    for i, batch in enumerate(loader):
        if isinstance(batch, list) and isinstance(batch[0], dict):  # the first batch, as DALI gave it
            batch = [batch[0]["data"], batch[0]["label"]]
        print(epoch, i, tuple(batch[0].shape), batch[1].flatten().tolist())
