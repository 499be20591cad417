# expect: converted
# data: numpy
"""A family of `Pipeline` subclasses whose settings travel as `**kwargs`: the base's `__init__`
takes `batch_size, num_threads, device_id, **kwargs`, keeps the dict (`self.kwargs = kwargs`) and
makes its reader with a method (`self.input_x = self.make_reader(kwargs["root"])`); each subclass
passes its `**kwargs` up, one with an extra keyword. The program picks the class from a dict by
mode and calls it with `**pipe_kwargs`. Each subclass becomes a generator function keeping
`**kwargs` in its signature: the base's `kwargs` is the subclass's own where nothing changes it,
a fresh dict holding the extra keyword where the call adds one."""

import sys

import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class BasePipeline(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, **kwargs):
        super().__init__(batch_size, num_threads, device_id, seed=kwargs["seed"])
        self.kwargs = kwargs
        self.scale = kwargs["scale"]
        self.input_x = self.make_reader(kwargs["root"])
        self.to_float = ops.Cast(dtype=types.FLOAT)

    def make_reader(self, root):
        return ops.readers.Numpy(
            file_root=root,
            file_filter="*.npy",
            shard_id=self.kwargs["shard"],
            num_shards=self.kwargs["shards"],
            random_shuffle=self.kwargs["shuffle"],
            seed=self.kwargs["seed"],
        )

    def load(self):
        data = self.input_x(name="ReaderX")
        return self.to_float(data)


class TrainPipeline(BasePipeline):
    def __init__(self, batch_size, num_threads, device_id, **kwargs):
        super().__init__(batch_size, num_threads, device_id, **kwargs)
        self.offset = kwargs["offset"]

    def shift(self, data):
        return data + self.offset

    def define_graph(self):
        data = self.load()
        return self.shift(data) * self.scale


class EvalPipeline(BasePipeline):
    def __init__(self, batch_size, num_threads, device_id, **kwargs):
        super().__init__(batch_size, num_threads, device_id, scale=1.0, **kwargs)

    def define_graph(self):
        data = self.load()
        return data * self.scale


PIPELINES = {"train": TrainPipeline, "eval": EvalPipeline}


def fetch_pipeline(root, mode, batch_size, **kwargs):
    pipeline = PIPELINES[mode]
    pipe_kwargs = {"root": root, "shuffle": mode == "train", **kwargs}
    pipe = pipeline(batch_size, 1, None, **pipe_kwargs)
    pipe.build()
    return pipe


train = fetch_pipeline(sys.argv[1], "train", 2, seed=7, shard=0, shards=1, scale=2.0, offset=1.0)
evaluation = fetch_pipeline(sys.argv[1], "eval", 3, seed=5, shard=1, shards=2)
for step in range(4):
    (x,) = train.run()
    (y,) = evaluation.run()
    print(step, [float(np.asarray(x.at(i)).sum()) for i in range(2)], [np.asarray(y.at(i)).shape for i in range(3)])
