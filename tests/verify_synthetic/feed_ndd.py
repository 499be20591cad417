"""feed_pipes.py migrated by hand, each source parameter drawn as the kind it is given (`migrate`
would draw through `dali_external_source`): one as an iterable, one calls it; and one wrong."""

import nvidia.dali.experimental.dynamic as ndd
from nvidia.dali import types


def per_sample(source, *, batch_size=4, num_threads=1, device_id=0, seed=3):
    ndd.set_num_threads(num_threads)
    rng = ndd.random.RNG(seed=seed)
    samples = iter(source)
    while True:
        images = ndd.as_batch([next(samples) for _ in range(batch_size)], layout="HWC", dtype=types.UINT8)
        flipped = ndd.flip(images, horizontal=ndd.random.coin_flip(batch_size=batch_size, rng=rng))
        yield (ndd.resize(flipped, resize_x=16, resize_y=16).evaluate(),)


def per_sample_skips_one(source, *, batch_size=4, num_threads=1, device_id=0, seed=3):
    """Wrong on purpose: the first sample is drawn and dropped."""
    ndd.set_num_threads(num_threads)
    rng = ndd.random.RNG(seed=seed)
    samples = iter(source)
    next(samples)
    while True:
        images = ndd.as_batch([next(samples) for _ in range(batch_size)], layout="HWC", dtype=types.UINT8)
        flipped = ndd.flip(images, horizontal=ndd.random.coin_flip(batch_size=batch_size, rng=rng))
        yield (ndd.resize(flipped, resize_x=16, resize_y=16).evaluate(),)


def batched(source, *, batch_size=3, num_threads=1, device_id=0):
    ndd.set_num_threads(num_threads)
    iteration = 0
    while True:
        feats, labels = source(iteration)
        iteration += 1
        feats = ndd.as_batch(feats, layout="TF", dtype=types.FLOAT)
        labels = ndd.as_batch(labels, dtype=types.INT32)
        yield (feats * 2).evaluate(), labels.evaluate()


def shaped(source, *, batch_size=2, num_threads=1, device_id=0):
    ndd.set_num_threads(num_threads)
    for batch in source:
        data = ndd.as_batch(batch, dtype=types.FLOAT)
        yield (ndd.reductions.sum(data, axes=[0, 2]).evaluate(),)
