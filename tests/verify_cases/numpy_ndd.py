"""Migrations of numpy_pipes.py, in the shape docs/target-shape.md prescribes."""

import time

import nvidia.dali.experimental.dynamic as ndd
from nvidia.dali import types


def det_pipe(data_dir, *, batch_size=3, num_threads=1, device_id=0):
    ndd.set_num_threads(num_threads)
    ctx = ndd.EvalContext(device_id=device_id)
    reader = ndd.readers.Numpy(file_root=data_dir, name="Reader")
    while True:
        for (data,) in reader.next_epoch(batch_size=batch_size, ctx=ctx):
            with ctx:
                scaled = ndd.cast(data * 2 + 1, dtype=types.FLOAT)
            yield data, scaled


def epoch_pipe(data_dir, pad=False, *, batch_size=3, num_threads=1, device_id=0, seed=11):
    ndd.set_num_threads(num_threads)
    ctx = ndd.EvalContext(device_id=device_id)
    reader = ndd.readers.Numpy(
        file_root=data_dir,
        random_shuffle=True,
        pad_last_batch=pad,
        seed=1163822806,  # dali_op_seed(11, 0): what DALI gives the first operator of a seed=11 pipeline
    )
    while True:
        for (data,) in reader.next_epoch(batch_size=batch_size, ctx=ctx):
            yield (data.gpu(),)


def epoch_pipe_ignores_pad(data_dir, pad=False, *, batch_size=3, num_threads=1, device_id=0, seed=11):
    """Wrong on purpose: pad_last_batch was dropped in translation."""
    ndd.set_num_threads(num_threads)
    ctx = ndd.EvalContext(device_id=device_id)
    reader = ndd.readers.Numpy(file_root=data_dir, random_shuffle=True, seed=1163822806)  # dali_op_seed(11, 0)
    while True:
        for (data,) in reader.next_epoch(batch_size=batch_size, ctx=ctx):
            yield (data.gpu(),)


def shard_pipe(data_dir, *, batch_size=2, num_threads=1, device_id=0, seed=5):
    ndd.set_num_threads(num_threads)
    ctx = ndd.EvalContext(device_id=device_id)
    reader = ndd.readers.Numpy(
        file_root=data_dir,
        shard_id=1,
        num_shards=2,
        random_shuffle=True,
        stick_to_shard=False,
        seed=1580067329,  # dali_op_seed(5, 0)
    )
    while True:
        for (data,) in reader.next_epoch(batch_size=batch_size, ctx=ctx):
            yield (data,)


def padded_shard_pipe(data_dir, *, batch_size=3, num_threads=1, device_id=0, seed=5):
    ndd.set_num_threads(num_threads)
    ctx = ndd.EvalContext(device_id=device_id)
    reader = ndd.readers.Numpy(file_root=data_dir, shard_id=0, num_shards=2, pad_last_batch=True)
    while True:
        for (data,) in reader.next_epoch(batch_size=batch_size, ctx=ctx):
            yield (data,)


def seeded_pipe(data_dir, *, batch_size=3, num_threads=1, device_id=0):
    """Wrong on purpose: the migration dropped the reader's seed=7."""
    ndd.set_num_threads(num_threads)
    ctx = ndd.EvalContext(device_id=device_id)
    reader = ndd.readers.Numpy(file_root=data_dir, random_shuffle=True)
    while True:
        for (data,) in reader.next_epoch(batch_size=batch_size, ctx=ctx):
            yield (data,)


def raising_gen(data_dir, *, batch_size=3, num_threads=1, device_id=0):
    ndd.set_num_threads(num_threads)
    reader = ndd.readers.Numpy(file_root=data_dir)
    while True:
        for (data,) in reader.next_epoch(batch_size=batch_size):
            if data.batch_size:
                raise RuntimeError("boom inside the migrated loop")  # verify must point here
            yield (data,)


def hanging_gen(data_dir, *, batch_size=3, num_threads=1, device_id=0):
    reader = ndd.readers.Numpy(file_root=data_dir)
    while True:
        for (data,) in reader.next_epoch(batch_size=batch_size):
            time.sleep(3600)  # a hang verify must time out on
            yield (data,)


def jitter_pipe(data_dir, *, batch_size=2, num_threads=1, device_id=0, seed=3):
    ndd.set_num_threads(num_threads)
    ctx = ndd.EvalContext(device_id=device_id)
    rng = ndd.random.RNG(seed=seed)
    reader = ndd.readers.Numpy(file_root=data_dir)
    while True:
        for (data,) in reader.next_epoch(batch_size=batch_size, ctx=ctx):
            with ctx:
                images = ndd.cast(data, dtype=types.UINT8)
                out = ndd.jitter(images.gpu(), rng=rng)
            yield (out,)


def not_a_generator(data_dir, *, batch_size=3, num_threads=1, device_id=0):
    return [1, 2, 3]


def slice_error_gen(data_dir, *, batch_size=3, num_threads=1, device_id=0):
    reader = ndd.readers.Numpy(file_root=data_dir)
    while True:
        for (data,) in reader.next_epoch(batch_size=batch_size):
            out = ndd.slice(data, start=[0, 0], shape=[10, 10], out_of_bounds_policy="error")
            yield (out,)  # the line above is where DALI's error comes from


def epoch_pipe_reordered(data_dir, pad=False, *, batch_size=3, num_threads=1, device_id=0, seed=11):
    """Changes the sample order: the reader shuffles with the pipeline's seed, not the one DALI derived."""
    ndd.set_num_threads(num_threads)
    ctx = ndd.EvalContext(device_id=device_id)
    reader = ndd.readers.Numpy(file_root=data_dir, random_shuffle=True, pad_last_batch=pad, seed=seed)
    while True:
        for (data,) in reader.next_epoch(batch_size=batch_size, ctx=ctx):
            yield (data.gpu(),)
