# expect: converted
# data: numpy
"""A read-speed loop in a command's function: the pipeline function is defined in it, the number of
steps per epoch comes from the reader's epoch size (the dict by reader name that `epoch_size()`
gives, and by name), sharded by hand, the loop calls `run()` that many times and `reset()` after
each epoch (a reader never ends: it does nothing)."""

import math
import sys

from nvidia.dali import fn, pipeline_def

WORLD = 2


def read_data(root, epochs=3, bs=4):
    @pipeline_def(batch_size=bs, num_threads=1, device_id=None)
    def get_pipeline():
        data = fn.readers.numpy(file_root=root, file_filter="*.npy", name="Reader", pad_last_batch=True)
        return data

    pl = get_pipeline()
    pl.build()
    shard_size = math.ceil(pl.epoch_size()["Reader"] / WORLD)
    steps = math.ceil(shard_size / bs)
    print("epoch", pl.epoch_size("Reader"), "shard", shard_size, "steps", steps)
    for epoch in range(epochs):
        sums = []
        for _ in range(steps):
            (data,) = pl.run()
            sums.append([round(float(data.at(i).sum()), 3) for i in range(len(data))])
        print(epoch, sums)
        pl.reset()


read_data(sys.argv[1])
