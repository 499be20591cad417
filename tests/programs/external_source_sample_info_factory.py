# expect: converted
# data: none
"""A graph built by hand (`pipe = Pipeline(...)`, `with pipe:`) around `source=` a call of a factory
that returns a closure taking `SampleInfo`: per sample (`batch=False`), three outputs, until the
closure raises `StopIteration` in the middle of a batch, which ends the pipeline's batches."""

import numpy as np
from nvidia.dali import fn, types
from nvidia.dali.pipeline import Pipeline


def make_callback(rows, scale):
    table = np.arange(rows * 2, dtype=np.float32).reshape(rows, 2) * scale

    def callback(sample_info):
        if sample_info.idx_in_epoch >= rows:
            raise StopIteration
        row = table[sample_info.idx_in_epoch]
        where = np.array([sample_info.idx_in_batch, sample_info.iteration, sample_info.epoch_idx], np.int32)
        return row, row * 2, where

    return callback


def create_pipeline(rows, batch_size):
    pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None)
    with pipe:
        x, y, z = fn.external_source(source=make_callback(rows, 0.5), num_outputs=3, batch=False)
        x = fn.cast(x, dtype=types.FLOAT16)
        pipe.set_outputs(x, y, z)
    return pipe


pipe = create_pipeline(7, 2)
pipe.build()
try:
    while True:
        x, y, z = pipe.run()
        print(x.as_array().tolist(), y.as_array().tolist(), z.as_array().tolist())
except StopIteration:
    print("end")
