# expect: converted
# data: jpeg
"""A legacy class that creates a file reader or a Caffe LMDB reader in the branches of an `if` of
`__init__`, both giving (images, labels): the Caffe reader's number of outputs depends on its
arguments (`image_available`, `label_available`, two by default). Run with the file reader; the
Caffe branch is the same generator with the other reader."""

import sys

import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class Loader(Pipeline):
    def __init__(self, batch_size, data_dir, kind="files"):
        super().__init__(batch_size, num_threads=1, device_id=None)
        if kind == "lmdb":
            self.input = ops.readers.Caffe(path=data_dir, shard_id=0, num_shards=1)
        else:
            self.input = ops.readers.File(file_root=data_dir, shard_id=0, num_shards=1)
        self.decode = ops.decoders.Image(output_type=types.RGB)
        self.resize = ops.Resize(resize_x=12, resize_y=10)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        images = self.resize(self.decode(jpegs))
        return images, labels


pipe = Loader(4, sys.argv[1])
pipe.build()
for step in range(3):
    images, labels = pipe.run()
    print(step, [float(np.asarray(images.at(i)).mean().round(3)) for i in range(len(images))],
          labels.as_array().ravel().tolist())
