# expect: converted
# data: numpy
"""The outputs of `pipe.run()` put in a list, read back by index and by iteration: a test that
moves every output to the CPU when it ran on the GPU (`out.as_cpu() if device == "gpu" else out`
for each of a list of them), then compares them pairwise in a function of the module. A list of
outputs is read like the tuple `run()` gave: each item read back is an output, followed on (the
`.as_cpu()` in the comprehension, `.at(i)` and `len()` in the checking function)."""

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
            check_batch(outs[0], outs[2], batch_size, scale=2)
            for out in (out1, out3):
                print(step, len(out), float(np.sum(out.at(batch_size - 1))))


if __name__ == "__main__":
    import sys

    main(sys.argv[1])
