# expect: blocked NDD904
# data: none
"""A legacy class that would be blocked by `ops.Shapes` and a graph constant, fed to TensorFlow's
`DALIDataset`: it is kept in pipeline mode for TensorFlow, and that is its one finding."""

import nvidia.dali.plugin.tf as dali_tf
from nvidia.dali import ops, types
from nvidia.dali.pipeline import Pipeline


class Noise(Pipeline):
    def __init__(self):
        super().__init__(batch_size=2, num_threads=1, device_id=None)
        self.draw = ops.random.Uniform(range=[0.0, 1.0], shape=[4], seed=9)
        self.extent = ops.Shapes(dtype=types.INT32)

    def define_graph(self):
        noise = self.draw()
        return self.extent(noise), noise * types.Constant(3.0)


def dataset():
    return dali_tf.DALIDataset(pipeline=Noise(), batch_size=2, output_dtypes=None, device_id=None)


if __name__ == "__main__":
    print(dataset())
