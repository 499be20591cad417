# expect: blocked NDD001
# data: numpy
"""A pipeline body that keeps its graph's outputs in a module list when the graph is built: the
list holds one DataNode per output in pipeline mode, but would grow by a batch each step in the
generator. It cannot run once before the loop, since it needs the graph's values."""

import sys

from nvidia.dali import fn, pipeline_def

GRAPH_OUTPUTS = []


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def arrays(root):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy")
    GRAPH_OUTPUTS.append(data)
    return data


pipe = arrays(sys.argv[1])
pipe.build()
for _ in range(3):
    (data,) = pipe.run()
print(len(GRAPH_OUTPUTS), data.at(0).shape)
