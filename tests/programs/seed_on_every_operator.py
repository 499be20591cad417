# expect: converted
# data: numpy
"""The nnUNet-derived loaders' habit: `seed=self.kwargs["seed"]` on every operator of the graph, the
random ones and the others (`fn.reshape`, `fn.transpose`, an input set of `fn.slice`). Pipeline mode
takes `seed` on every operator and it changes nothing where nothing is drawn; dynamic mode rejects it
there (`TypeError`), so it is dropped; a random operator draws from an RNG of that seed."""

import sys

import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class GenericPipeline(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, **kwargs):
        super().__init__(batch_size=batch_size, num_threads=num_threads, device_id=device_id)
        self.kwargs = kwargs
        self.input = ops.readers.Numpy(file_root=kwargs["root"], seed=kwargs["seed"], random_shuffle=True)

    def define_graph(self):
        data = self.input(name="Reader")
        data = fn.cast(data, dtype=types.FLOAT, seed=self.kwargs["seed"])
        data = fn.reshape(data, layout="HW", seed=self.kwargs["seed"])
        first, second = fn.slice([data, data * 2], 0, 2, axes=[0], seed=self.kwargs["seed"])
        scale = fn.random.uniform(range=[1.0, 1.0001], seed=self.kwargs["seed"]) > 0  # drawn; always True
        return first * fn.cast(scale, dtype=types.FLOAT), fn.transpose(second, perm=[1, 0], seed=self.kwargs["seed"])


pipe = GenericPipeline(2, 1, None, root=sys.argv[1], seed=5)
pipe.build()
for step in range(3):
    first, second = pipe.run()
    print(step, [first.at(i).shape for i in range(2)], [second.at(i).shape for i in range(2)])
    print("  ", [round(float(first.at(i).sum()), 3) for i in range(2)], [round(float(second.at(i).sum()), 3) for i in range(2)])
