"""Correct migrations of base_pipes.py; mutations.py plants one mistake at a time."""

import nvidia.dali.experimental.dynamic as ndd
from nvidia.dali import types


def aug_pipe(data_dir, *, batch_size=3, num_threads=1, device_id=0, seed=12):
    ndd.set_num_threads(num_threads)
    ctx = ndd.EvalContext(device_id=device_id)
    rng = ndd.random.RNG(seed=seed)
    reader = ndd.readers.Numpy(file_root=data_dir, random_shuffle=True, seed=3, name="Reader")
    while True:
        for (data,) in reader.next_epoch(batch_size=batch_size, ctx=ctx):
            with ctx:
                x = ndd.cast(data, dtype=types.FLOAT)
                scale = ndd.random.uniform(range=(0.5, 1.5), batch_size=batch_size, rng=rng)
                noise = ndd.random.normal(x, stddev=0.25, rng=rng)
                flip = ndd.random.coin_flip(probability=0.5, batch_size=batch_size, rng=rng)
                ndd.random.uniform(range=(5, 6), batch_size=batch_size, rng=rng)
                y = ndd.transpose(x * scale + noise, perm=[1, 0])
                total = ndd.reductions.sum(y, axes=[0])
                out = total * ndd.cast(flip, dtype=types.FLOAT)
            yield y, out, data


def shard_pipe(data_dir, *, batch_size=2, num_threads=1, device_id=0):
    ndd.set_num_threads(num_threads)
    ctx = ndd.EvalContext(device_id=device_id)
    reader = ndd.readers.Numpy(
        file_root=data_dir, num_shards=2, shard_id=1, random_shuffle=True, pad_last_batch=True
    )
    while True:
        for (data,) in reader.next_epoch(batch_size=batch_size, ctx=ctx):
            with ctx:
                out = ndd.cast(data, dtype=types.INT64) + 1
            yield (out,)


def unseeded_pipe(data_dir, *, batch_size=3, num_threads=1, device_id=0):
    ndd.set_num_threads(num_threads)
    ctx = ndd.EvalContext(device_id=device_id)
    reader = ndd.readers.Numpy(file_root=data_dir)
    while True:
        for (data,) in reader.next_epoch(batch_size=batch_size, ctx=ctx):
            with ctx:
                u = ndd.random.uniform(range=(0, 1), batch_size=batch_size)
                out = ndd.cast(data, dtype=types.FLOAT) * u
            yield (out,)


def image_pipe(data_dir, *, batch_size=2, num_threads=1, device_id=0, seed=4):
    ndd.set_num_threads(num_threads)
    ctx = ndd.EvalContext(device_id=device_id)
    rng = ndd.random.RNG(seed=seed)
    reader = ndd.readers.File(file_root=data_dir, seed=9)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size, ctx=ctx):
            with ctx:
                images = ndd.decoders.image(jpegs, device="cpu", output_type=types.RGB)
                images = ndd.resize(images, resize_x=12, resize_y=10)
                mirror = ndd.random.coin_flip(batch_size=batch_size, rng=rng)
                images = ndd.crop_mirror_normalize(
                    images, crop=(8, 8), mean=[128.0], std=[64.0], mirror=mirror
                )
            yield images, labels


def ckpt_pipe(data_dir, *, batch_size=2, num_threads=1, device_id=0, seed=6, checkpoint=None):
    ndd.set_num_threads(num_threads)
    ctx = ndd.EvalContext(device_id=device_id)
    rng = ndd.random.RNG(seed=seed)
    reader = ndd.readers.Numpy(file_root=data_dir, random_shuffle=True, seed=5, name="Reader")
    if checkpoint is not None:
        checkpoint.register(reader, "Reader")
        checkpoint.register(rng, "rng")
    while True:
        for (data,) in reader.next_epoch(batch_size=batch_size, ctx=ctx):
            with ctx:
                noise = ndd.random.uniform(range=(-1, 1), batch_size=batch_size, rng=rng)
                flip = ndd.random.coin_flip(batch_size=batch_size, rng=rng)
                out = ndd.cast(data, dtype=types.FLOAT) + noise
            yield out.evaluate(), flip.evaluate()


def read_ahead(batches):
    """Batches one ahead of the consumer, as a prefetching loop reads them (the planted case
    ckpt-read-ahead): the same batches in the same order, but a checkpoint collected between two
    steps holds the reader one batch further on."""
    ahead = None
    for batch in batches:
        if ahead is not None:
            yield ahead
        ahead = batch
    if ahead is not None:
        yield ahead


def main(data_dir):
    """A consumer: verify does not run it, and says so."""
    for step, (y, out, data) in enumerate(aug_pipe(data_dir)):
        if step == 10:
            break
