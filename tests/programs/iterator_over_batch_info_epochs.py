# expect: converted
# data: none
"""A per-batch callable that takes DALI's `BatchInfo` (`batch_info=True`) feeds a pipeline and ends
each epoch with `StopIteration`; a PyTorch iterator without `reader_name` or `size=` reads three
epochs from it: DALI calls the source from iteration 0 in each, with the epoch index one higher."""

import numpy as np
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


class Batches:
    def __init__(self, batch_size, steps):
        self.batch_size = batch_size
        self.steps = steps

    def __call__(self, info):
        if info.iteration >= self.steps:
            raise StopIteration
        base = 100 * info.epoch_idx + 10 * info.iteration
        return [np.array([base + k], dtype=np.int32) for k in range(self.batch_size)]


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def counted():
    x = fn.external_source(source=Batches(2, 3), batch=True, batch_info=True)
    return x + 1


pipe = counted()
pipe.build()
loader = DALIGenericIterator([pipe], ["x"], auto_reset=True)
for epoch in range(3):
    print(epoch, [data[0]["x"].flatten().tolist() for data in loader])
