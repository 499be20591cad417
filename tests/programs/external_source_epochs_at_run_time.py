# expect: converted
# data: none
"""A PyTorch iterator with neither `reader_name` nor `size=` over a pipeline whose `source=` is a
parameter given a callable taking `BatchInfo` by one call and an iterator object (from a base
class the migration does not read) by another: each epoch ends where the source raises
`StopIteration`; in the next, DALI calls the callable again from iteration 0 with the epoch's
index one more, and draws on from the same iterator object."""

import numpy as np
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


def stamps(info):
    if info.iteration == 2 + info.epoch_idx:  # one batch more each epoch
        raise StopIteration
    return [np.array([info.iteration, info.epoch_idx, k], np.int32) for k in range(2)]


class Counter:
    pass


class Rows(Counter):
    def __init__(self):
        self.i = 0

    def __iter__(self):
        return self

    def __next__(self):
        self.i += 1
        if self.i % 3 == 0:  # ends each pass, then goes on
            raise StopIteration
        return [np.array([self.i, 0, k], np.int32) for k in range(2)]


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def stamped(source):
    data = fn.external_source(source=source, batch_info=True)
    return data * 3


for name, source in (("callable", stamps), ("iterator", Rows())):
    pipe = stamped(source)
    pipe.build()
    loader = DALIGenericIterator(pipe, ["data"], auto_reset=True)
    for epoch in range(3):
        for i, batch in enumerate(loader):
            print(name, epoch, i, batch[0]["data"].tolist())
