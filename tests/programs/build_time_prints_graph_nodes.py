# expect: converted
# data: numpy
"""Debug prints in graph code of the graph's own values: pipeline mode ran them once, when it built
the graph, and they printed the nodes (`DataNode(name=..., source=...)`), not data. Dynamic mode has
no nodes to print: the prints are dropped (with a note), and the batches stay the same. They print
to stderr here, since the nodes' text has no counterpart to compare; the data goes to stdout."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.pipeline import Pipeline


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def arrays(root):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy")
    print(data, file=sys.stderr)
    scaled = data * 2
    print("scaled", type(scaled), file=sys.stderr)
    return scaled


def hand_built(root):
    pipe = Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        data = fn.readers.numpy(file_root=root, file_filter="*.npy")
        print("read", data, file=sys.stderr)
        pipe.set_outputs(data + 1)
    return pipe


pipe = arrays(sys.argv[1])
pipe.build()
other = hand_built(sys.argv[1])
other.build()
for _ in range(3):
    (data,) = pipe.run()
    (more,) = other.run()
    print([float(data.at(i).sum()) for i in range(len(data))], [float(more.at(i).sum()) for i in range(len(more))])
