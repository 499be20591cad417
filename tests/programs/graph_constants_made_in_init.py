# expect: converted
# data: numpy
"""A `Pipeline` subclass in the shape of 3D-segmentation loaders: the patch size comes in through
`**kwargs` as a list, and `__init__` makes it into graph constants of two dtypes
(`types.Constant(np.array(self.patch_size), dtype=types.INT64)`, and `* 1.5` with `dtype=types.FLOAT`),
with a start and a window (`np.zeros`, float data made INT64; a list of floats), that a graph helper
gives `fn.slice` on an input set (image and label) as positional inputs, and `fn.resize(size=...)` and
`fn.crop(crop=...)` as arguments. Each becomes `dali_constant(value, dtype=...)`, the constant node's
data as a numpy array, in the generator's prologue."""

import sys
from pathlib import Path

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class SegmentationLoader(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, files, **kwargs):
        super().__init__(batch_size, num_threads, device_id)
        self.input = ops.readers.Numpy(files=files)
        self.patch_size = kwargs["patch_size"]
        self.start = types.Constant(np.zeros(len(self.patch_size)), dtype=types.INT64)
        self.crop_shape = types.Constant(np.array(self.patch_size), dtype=types.INT64)
        self.zoom_shape = types.Constant(np.array(self.patch_size) * 1.5, dtype=types.FLOAT)
        self.window = types.Constant([2.6, 3.5], dtype=types.FLOAT)

    def crop_patch(self, img, label):
        img, label = fn.slice([img, label], self.start, self.crop_shape, axis_names="HW", out_of_bounds_policy="pad")
        return img, label

    def define_graph(self):
        img = self.input()
        img = fn.reshape(img, layout="HW")
        label = fn.cast(img > 0, dtype=types.UINT8)
        img, label = self.crop_patch(img, label)
        image = fn.expand_dims(img, axes=[2], new_axis_names="C")
        resized = fn.resize(image, interp_type=types.INTERP_LINEAR, size=self.zoom_shape)
        window = fn.crop(image, crop=self.window, crop_pos_x=0.5, crop_pos_y=0.5)
        return img, label, resized, window


files = sorted(str(p) for p in Path(sys.argv[1]).glob("*.npy"))
pipe = SegmentationLoader(4, 1, None, files, patch_size=[5, 4])
pipe.build()
for step in range(3):
    img, label, resized, window = pipe.run()
    for out in (img, label, resized, window):
        samples = [np.asarray(out.at(i)) for i in range(len(out))]
        print(step, [(s.shape, str(s.dtype), round(float(s.sum()), 3)) for s in samples])
