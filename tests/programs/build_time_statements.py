# expect: converted
# data: numpy
"""Plain Python in graph code that acts outside it runs once, when the pipeline is built: a print,
a counter on a `global`, an append to a module list, a count kept on a legacy pipeline's `self`
(which the graph then uses as a constant). The generator must run them once too, not per batch."""

import sys

import nvidia.dali.ops as ops
from nvidia.dali import fn, pipeline_def
from nvidia.dali.pipeline import Pipeline

BUILT = []
graphs = 0


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def arrays(root):
    global graphs
    print("defining the graph")
    data = fn.readers.numpy(file_root=root, file_filter="*.npy")
    graphs += 1
    BUILT.append("arrays")
    return data


class Scaled(Pipeline):
    def __init__(self, batch_size, root):
        super().__init__(batch_size, 1, None)
        self.read = ops.readers.Numpy(file_root=root, file_filter="*.npy")
        self.factor = 1

    def define_graph(self):
        self.factor += 1
        print("scaled graph")
        data = self.read()
        return data * self.factor


pipe = arrays(sys.argv[1])
pipe.build()
for _ in range(3):
    (data,) = pipe.run()
scaled = Scaled(2, sys.argv[1])
scaled.build()
for _ in range(3):
    (out,) = scaled.run()
print(graphs, BUILT, [float(out.at(i).sum()) for i in range(len(out))])
