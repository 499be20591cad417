# expect: converted
# data: none
"""A PyTorch iterator with neither `reader_name` nor `size=` over a pipeline fed by a per-sample
callable: it ends each epoch by raising `StopIteration` and shuffles its order by the epoch index
DALI gives it (`SampleInfo.epoch_idx`), in place, so each epoch's order builds on the last. DALI
calls it again from iteration 0 in each epoch, with the epoch's index one higher."""

import numpy as np
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


class ShuffledRows:
    def __init__(self, rows, batch_size):
        self.data = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
        self.order = np.arange(rows)
        self.batches = rows // batch_size
        self.last_epoch = None

    def __call__(self, info):
        if info.iteration >= self.batches:
            raise StopIteration
        if info.epoch_idx != self.last_epoch:
            np.random.default_rng(seed=info.epoch_idx).shuffle(self.order)
            self.last_epoch = info.epoch_idx
        row = self.order[info.idx_in_epoch]
        return self.data[row], np.array([info.epoch_idx, info.iteration, row], dtype=np.int64)


@pipeline_def
def rows_pipeline(rows):
    values, where = fn.external_source(ShuffledRows(rows, 4), num_outputs=2, batch=False)
    return values * 2, where


pipe = rows_pipeline(20, batch_size=4, num_threads=1, device_id=None)
pipe.build()
loader = DALIGenericIterator(pipe, ["values", "where"], auto_reset=True)
for epoch in range(4):
    for data in loader:
        print(epoch, data[0]["values"].sum().item(), data[0]["where"].tolist())
        if epoch == 1:
            break  # the next pass goes on with this epoch: DALI ignores the reset in its middle
