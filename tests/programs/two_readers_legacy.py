# expect: converted
# data: jpeg
"""A legacy class calls its one reader object twice in `define_graph`: pipeline mode makes two
reader instances, which read the same shard, batch for batch, and start the next shard together
(no `stick_to_shard`: each epoch moves on to the other half of the files, 6 then 7 of them). The
migrated loop must run both epoch iterators to their ends (`zip(..., strict=True)`): a plain `zip`
leaves the second reader's shard behind, and its shorter epoch cuts the first one's short. One
side is decoded, the other only measured: the labels of both sides, the encoded sizes and the
picture sums must match across epochs."""

import sys

import numpy as np

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class TwoViews(Pipeline):
    def __init__(self, root, batch_size, num_threads):
        super().__init__(batch_size, num_threads, None)
        self.input = ops.readers.File(file_root=root, shard_id=0, num_shards=2)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.resize = ops.Resize(resize_x=12, resize_y=10)

    def define_graph(self):
        jpegs1, labels1 = self.input()
        images = self.resize(self.decode(jpegs1))
        jpegs2, labels2 = self.input()
        return images, labels1, jpegs2, labels2


pipe = TwoViews(sys.argv[1], 3, 1)
pipe.build()
for step in range(9):  # three epochs: 2, 3 and 2 batches
    images, labels1, jpegs2, labels2 = pipe.run()
    first = labels1.as_array().ravel().tolist()
    second = labels2.as_array().ravel().tolist()
    sizes = [int(jpegs2.at(i).shape[0]) for i in range(len(jpegs2))]
    print(step, first, second, sizes, int(np.asarray(images.at(0)).sum()))
