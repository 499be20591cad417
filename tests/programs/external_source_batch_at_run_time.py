# expect: converted
# data: none
"""A factory builds a graph by hand around a callable source whose batch mode is a parameter
(`batch=per_batch`): the same source object serves per-batch and per-sample reads; `parallel=` and
`py_num_workers=` tune how DALI calls it."""

import numpy as np
from nvidia.dali import fn
from nvidia.dali.pipeline import Pipeline


class Ticks:
    """Per batch: called with the iteration number, gives a list; per sample: with `SampleInfo`."""

    def __init__(self, batches, batch_size, per_batch):
        self.batches = batches
        self.batch_size = batch_size
        self.per_batch = per_batch

    def __call__(self, info):
        if self.per_batch:
            if info >= self.batches:
                raise StopIteration
            return [np.array([info, k], dtype=np.int16) for k in range(self.batch_size)]
        if info.iteration >= self.batches:
            raise StopIteration
        return np.array([info.idx_in_epoch, info.idx_in_batch], dtype=np.int16)


def ticks_pipeline(batch_size, per_batch, workers):
    pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None, py_num_workers=workers)
    with pipe:
        ticks = fn.external_source(Ticks(2, batch_size, per_batch), parallel=False, batch=per_batch)
        pipe.set_outputs(ticks * 3)
    return pipe


for mode in (True, False):
    pipe = ticks_pipeline(3, mode, 2)
    pipe.build()
    for step in range(2):
        (ticks,) = pipe.run()
        print(mode, step, [ticks.at(i).tolist() for i in range(3)])
    try:
        pipe.run()
    except StopIteration:
        print(mode, "end")
