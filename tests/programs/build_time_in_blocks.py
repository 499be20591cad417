# expect: converted
# data: numpy
"""Build-time Python inside blocks of the graph code: an `if verbose:` that logs, a `for` that
records the settings, a `with` around a print. Pipeline mode runs each block once, when the graph
is built; the generator must run each once too (moved before the loop as a whole), while the
graph's own branching on a build-time flag stays where it is."""

import contextlib
import sys

import nvidia.dali.ops as ops
from nvidia.dali import fn, pipeline_def
from nvidia.dali.pipeline import Pipeline

EVENTS = []


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def arrays(root, verbose, scales):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy")
    if verbose:
        EVENTS.append("arrays: graph defined")
        print("arrays: verbose")
    for name in ("scale", "shift"):
        EVENTS.append(name)
    with contextlib.suppress(KeyError):
        print("arrays: scales", scales["a"])
    if scales["a"] > 1:
        data = data * scales["a"]
    return data


class Shifted(Pipeline):
    def __init__(self, batch_size, root, verbose):
        super().__init__(batch_size, 1, None)
        self.read = ops.readers.Numpy(file_root=root, file_filter="*.npy")
        self.verbose = verbose

    def define_graph(self):
        if self.verbose:
            print("shifted: graph defined")
            EVENTS.append("shifted")
        data = self.read()
        return data + 1


pipe = arrays(sys.argv[1], True, {"a": 2})
pipe.build()
for _ in range(3):
    (data,) = pipe.run()
shifted = Shifted(2, sys.argv[1], True)
shifted.build()
for _ in range(3):
    (out,) = shifted.run()
print(EVENTS, [float(data.at(i).sum()) for i in range(len(data))], [float(out.at(i).sum()) for i in range(len(out))])
