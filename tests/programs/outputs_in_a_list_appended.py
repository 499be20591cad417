# expect: blocked NDD008
# data: numpy
"""The outputs of `pipe.run()` put in a list that then gets a numpy array appended: the list no
longer holds outputs only, and what reads it back (`len(out)` of each item) would read an array
in one mode and a batch in the other. The class stays as it is (NDD008 names the `append`)."""

import numpy as np

import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class Arrays(Pipeline):
    def __init__(self, batch_size, root, device="cpu"):
        super().__init__(batch_size, 1, None)
        self.device = device
        self.read = ops.readers.Numpy(file_root=root, file_filter="*.npy")

    def define_graph(self):
        data = self.read()
        data = data if self.device == "cpu" else data.gpu()
        return data, data + 0, data * 2


def check_batch(left, right, batch_size, scale=1):
    assert len(left) == len(right) == batch_size
    for i in range(batch_size):
        assert np.array_equal(left.at(i) * scale, right.at(i)), i
    print("same", batch_size, scale, left.at(0).shape)


def main(root):
    batch_size = 3
    for device in ["cpu"]:
        pipe = Arrays(batch_size=batch_size, root=root, device=device)
        pipe.build()
        for step in range(4):
            out1, out2, out3 = pipe.run()
            outs = [out.as_cpu() if device == "gpu" else out for out in [out1, out2, out3]]
            check_batch(outs[0], outs[1], batch_size)
            outs.append(np.zeros((batch_size, 2)))
            for out in outs:
                print(step, len(out))


if __name__ == "__main__":
    import sys

    main(sys.argv[1])
