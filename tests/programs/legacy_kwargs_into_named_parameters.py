# expect: converted
# data: numpy
"""A `Pipeline` base class with named parameters, and subclasses that take only `**kwargs` and pass
them all up (`super().__init__(**kwargs)`), reading their own settings out of the dict. The base's
graph step is a helper method whose local names are also names of the subclass's `define_graph`.
Each subclass becomes a generator function `def Shuffled(**kwargs)`: the base's parameters are read
out of `kwargs` (`batch_size = kwargs["batch_size"]`, a default where the dict may lack it), the
helper's locals renamed where they meet the caller's. One class's pipeline is run, the other's
feeds DALI's `DALIGenericIterator` by its reader's name."""

import sys

import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator


class Common(Pipeline):
    def __init__(self, data_dir, batch_size, num_threads, device_id, seed, shard=0, scale=2.0, shards=1):
        super().__init__(batch_size, num_threads, device_id, seed=seed + 10)
        self.to_float = ops.Cast(dtype=types.FLOAT)
        self.pad = ops.Pad(fill_value=0)
        self.scale = scale
        self.shards = shards

    def finish(self, samples, labels):
        data = self.pad(self.to_float(samples))
        scaled = data * self.scale
        return scaled, labels


class Shuffled(Common):
    def __init__(self, **kwargs):
        super(Shuffled, self).__init__(**kwargs)
        self.input = ops.readers.Numpy(
            file_root=kwargs["data_dir"],
            file_filter="*.npy",
            random_shuffle=True,
            seed=kwargs["seed"],
            shard_id=kwargs.get("shard", 0),
            num_shards=self.shards,
            pad_last_batch=True,
        )
        self.label = ops.random.CoinFlip(probability=1.0)

    def define_graph(self):
        data = self.input(name="Reader")
        scaled = self.label()
        return self.finish(data, scaled)


class Ordered(Common):
    def __init__(self, **kwargs):
        super(Ordered, self).__init__(**kwargs)
        self.input = ops.readers.Numpy(file_root=kwargs["data_dir"], file_filter="*.npy")

    def define_graph(self):
        data = self.input(name="Reader")
        images, labels = self.finish(data, data)
        return images, labels


root = sys.argv[1]
ordered = Ordered(data_dir=root, batch_size=2, num_threads=1, device_id=None, seed=3, scale=0.5)
ordered.build()
for step in range(3):
    images, labels = ordered.run()
    print(step, [float(np.asarray(images.at(i)).sum()) for i in range(2)])

fed = Shuffled(data_dir=root, batch_size=3, num_threads=1, device_id=None, seed=5, shard=1, shards=2)
fed.build()
loader = DALIGenericIterator(fed, ["images", "labels"], reader_name="Reader", auto_reset=True)
for epoch in range(2):
    for batch in loader:
        print(epoch, batch[0]["images"].sum(dim=(1, 2)).tolist())
