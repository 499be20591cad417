# expect: blocked NDD008
# data: none
"""Two DALI iterators over one pipeline fed by an external source that ends each epoch, taken in
turn, one epoch each, the first left early: both iterators take batches from the one pipeline,
which has read the source ahead for both, so where each epoch starts depends on the other
iterator. One generator per epoch for each iterator would not share that read-ahead: the pipeline
stays in pipeline mode."""

import numpy as np
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


class Rows:
    """Five batches an epoch, then `StopIteration`; the next `next()` starts again."""

    def __init__(self):
        self.i = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.i == 5:
            self.i = 0
            raise StopIteration
        self.i += 1
        return [np.full((2,), 10 * self.i + k, dtype=np.int32) for k in range(2)]


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def rows():
    data = fn.external_source(source=Rows())
    return data + 0


pipe = rows()
pipe.build()
first = DALIGenericIterator(pipe, ["data"])
second = DALIGenericIterator(pipe, ["data"])
for epoch in range(4):
    loader = second if epoch % 2 else first
    for i, batch in enumerate(loader):
        print(epoch, i, batch[0]["data"][:, 0].tolist())
        if epoch == 0 and i == 1:
            break
    loader.reset()
