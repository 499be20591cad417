# expect: converted
# data: jpeg
"""The DeepLearningExamples shape: a legacy `Pipeline` subclass that builds the seed it passes to
`super().__init__` in a local dict (`kwargs = dict()`, `if deterministic: kwargs["seed"] = ...`,
`**kwargs`): the generator's RNG takes `seed=kwargs.get("seed")` (a random seed when not set)."""

import sys
import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class Pipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir, deterministic=False):
        kwargs = dict()
        if deterministic:
            kwargs["seed"] = 7
        super().__init__(batch_size, num_threads, device_id, **kwargs)
        self.input = ops.readers.File(file_root=data_dir)
        self.decode = ops.decoders.Image(output_type=types.RGB)
        self.crop = ops.RandomResizedCrop(size=8)

    def define_graph(self):
        jpegs, labels = self.input()
        return self.crop(self.decode(jpegs)), labels


pipe = Pipe(2, 1, None, sys.argv[1], deterministic=True)
pipe.build()
for _ in range(2):
    images, labels = pipe.run()
    print(np.asarray(images.at(0)).shape, labels.as_array().ravel().tolist())
