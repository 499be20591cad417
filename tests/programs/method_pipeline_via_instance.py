# expect: blocked NDD008
# data: jpeg
"""A builder class whose `@pipeline_def` method uses operators made in `__init__`; the program calls
the method through an instance (`builder.pipeline(...)`), builds the object and runs it."""

import sys

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


class SquareBuilder:
    def __init__(self, root, side):
        self.reader = ops.readers.File(file_root=root, random_shuffle=False)
        self.decode = ops.decoders.Image(output_type=types.RGB)
        self.resize = ops.Resize(resize_x=side, resize_y=side)
        self.to_int64 = ops.Cast(dtype=types.INT64)

    @pipeline_def
    def pipeline(self):
        jpegs, labels = self.reader(name="Reader")
        images = self.resize(self.decode(jpegs))
        return (images, self.to_int64(labels))


builder = SquareBuilder(sys.argv[1], 4)
pipe = builder.pipeline(batch_size=3, num_threads=1, device_id=None)
pipe.build()
for _ in range(3):
    images, labels = pipe.run()
    print(int(images.as_array().sum()) % 1009, labels.as_array().ravel().tolist())
