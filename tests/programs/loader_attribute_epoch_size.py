# expect: converted
# data: jpeg
"""A dataset wrapper keeps its pipeline in `self.source` and sizes itself from the reader
(`self.source.epoch_size("Files")`): the attribute gets the epoch-aware shape like a name would,
`self.source_meta, self.source = decoded(...)`, and the size is read from `self.source_meta`."""

import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(num_threads=1, device_id=None)
def decoded(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=False, name="Files")
    images = fn.resize(fn.decoders.image(jpegs), resize_x=3, resize_y=3)
    return images, labels


class FolderDataset:
    def __init__(self, root, batch_size):
        self.batch_size = batch_size
        self.source = decoded(root, batch_size=batch_size)
        self.source.build()
        self.samples = self.source.epoch_size("Files")

    def __len__(self):
        return -(-self.samples // self.batch_size)

    def __iter__(self):
        for _ in range(len(self)):
            images, labels = self.source.run()
            yield int(images.as_array().sum()) % 991, labels.as_array().ravel().tolist()


data = FolderDataset(sys.argv[1], batch_size=3)
print("samples", data.samples, "batches", len(data))
for epoch in range(2):
    for checksum, labels in data:
        print(epoch, checksum, labels)
