# expect: converted
# data: numpy
"""A family of `Pipeline` subclasses: the base class's `__init__` makes the patch's start and shape
as graph constants (`types.Constant(np.array(self.patch_size), dtype=types.INT64)`, and
`dtype=types.FLOAT` for the resize) and has the helpers that load and crop; a training and an
evaluation subclass define their graphs with them. Each flattened subclass becomes a generator
whose prologue makes the constants' arrays with `dali_constant`."""

import sys
from pathlib import Path

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class PatchPipeline(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, files, **kwargs):
        super().__init__(batch_size, num_threads, device_id)
        self.input = ops.readers.Numpy(files=files)
        self.patch_size = kwargs["patch_size"]
        self.origin = types.Constant(np.zeros(len(self.patch_size)), dtype=types.INT64)
        self.crop_shape = types.Constant(np.array(self.patch_size), dtype=types.INT64)
        self.zoom_shape = types.Constant(np.array(self.patch_size) * 1.5, dtype=types.FLOAT)

    def load(self):
        img = self.input()
        return fn.reshape(img, layout="HW")

    def crop(self, img):
        return fn.slice(img, self.origin, self.crop_shape, axis_names="HW", out_of_bounds_policy="pad")


class TrainPipeline(PatchPipeline):
    def define_graph(self):
        img = self.load()
        img = self.crop(img)
        image = fn.expand_dims(img, axes=[2], new_axis_names="C")
        return fn.resize(image, size=self.zoom_shape)


class EvalPipeline(PatchPipeline):
    def define_graph(self):
        img = self.load()
        return self.crop(img)


files = sorted(str(p) for p in Path(sys.argv[1]).glob("*.npy"))
for cls in (TrainPipeline, EvalPipeline):
    pipe = cls(3, 1, None, files, patch_size=[4, 3])
    pipe.build()
    for step in range(3):
        (out,) = pipe.run()
        samples = [np.asarray(out.at(i)) for i in range(len(out))]
        print(cls.__name__, step, [(s.shape, round(float(s.sum()), 3)) for s in samples])
