# expect: converted
# data: jpeg
"""A legacy `Pipeline` subclass that creates an operator or `None` in the branches of an `if` of
`__init__` (either order) and tests it in `define_graph` (`if self.cast:`, `self.flip is not None`):
the arguments or `None` are chosen once, the test reads them."""

import sys
import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class Pipe(Pipeline):
    def __init__(self, batch_size, data_dir, as_float, flip):
        super().__init__(batch_size, num_threads=1, device_id=None)
        self.input = ops.readers.File(file_root=data_dir)
        self.decode = ops.decoders.Image(output_type=types.RGB)
        self.resize = ops.Resize(resize_x=8, resize_y=8)
        if as_float:
            self.cast = ops.Cast(dtype=types.FLOAT)
        else:
            self.cast = None
        if not flip:
            self.flip = None
        else:
            self.flip = ops.Flip(horizontal=1)

    def define_graph(self):
        jpegs, labels = self.input()
        images = self.resize(self.decode(jpegs))
        if self.cast:
            images = self.cast(images)
        if self.flip is not None:
            images = self.flip(images)
        return images, labels


for as_float, flip in ((True, False), (False, True)):
    pipe = Pipe(2, sys.argv[1], as_float, flip)
    pipe.build()
    for _ in range(2):
        images, labels = pipe.run()
        print(as_float, flip, np.asarray(images.at(0)).dtype, float(np.asarray(images.at(0)).sum()), labels.as_array().ravel().tolist())
