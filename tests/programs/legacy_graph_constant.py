# expect: blocked NDD901
# data: none
"""A legacy class whose `define_graph` returns a graph constant (`types.Constant`) beside a random
op's output: left as written, with one finding (dynamic mode rejects `types.Constant`)."""

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class NoiseAndLabel(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super().__init__(batch_size, num_threads, device_id, seed=3)
        self.noise = ops.random.Uniform(range=[0, 1], shape=[2])

    def define_graph(self):
        return self.noise(), types.Constant(5)


pipe = NoiseAndLabel(2, 1, None)
pipe.build()
noise, label = pipe.run()
print(noise.as_array().shape, label.as_array().ravel().tolist())
