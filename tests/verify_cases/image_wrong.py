"""Deliberately wrong migrations of image_pipes.py: each one a mistake verify must catch."""

import nvidia.dali.experimental.dynamic as ndd
from nvidia.dali import types


def _setup(num_threads, device_id, seed, data_dir):
    ndd.set_num_threads(num_threads)
    ctx = ndd.EvalContext(device_id=device_id)
    rng = ndd.random.RNG(seed=seed)
    reader = ndd.readers.File(
        file_root=data_dir,
        random_shuffle=True,
        name="Reader",
        seed=1153314634,  # dali_op_seed(42, 0): what DALI gives the first operator of a seed=42 pipeline
    )
    return ctx, rng, reader


def missing_batch_size(data_dir, crop=16, *, batch_size=4, num_threads=1, device_id=0, seed=42):
    """coin_flip without batch_size=: one flip broadcast to every sample."""
    ctx, rng, reader = _setup(num_threads, device_id, seed, data_dir)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size, ctx=ctx):
            with ctx:
                images = ndd.decoders.image(jpegs, device="gpu", output_type=types.RGB)
                images = ndd.random_resized_crop(images, size=crop, rng=rng)
                mirror = ndd.random.coin_flip(probability=0.5, rng=rng)
                images = ndd.crop_mirror_normalize(images, mirror=mirror, dtype=types.FLOAT)
            yield images, labels.gpu()


def swapped_order(data_dir, crop=16, *, batch_size=4, num_threads=1, device_id=0, seed=42):
    """The coin flip is drawn before the crop: the random calls change order."""
    ctx, rng, reader = _setup(num_threads, device_id, seed, data_dir)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size, ctx=ctx):
            with ctx:
                mirror = ndd.random.coin_flip(probability=0.5, batch_size=batch_size, rng=rng)
                images = ndd.decoders.image(jpegs, device="gpu", output_type=types.RGB)
                images = ndd.random_resized_crop(images, size=crop, rng=rng)
                images = ndd.crop_mirror_normalize(images, mirror=mirror, dtype=types.FLOAT)
            yield images, labels.gpu()


def changed_crop(data_dir, crop=16, *, batch_size=4, num_threads=1, device_id=0, seed=42):
    """The crop size changed in translation."""
    ctx, rng, reader = _setup(num_threads, device_id, seed, data_dir)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size, ctx=ctx):
            with ctx:
                images = ndd.decoders.image(jpegs, device="gpu", output_type=types.RGB)
                images = ndd.random_resized_crop(images, size=crop + 2, rng=rng)
                mirror = ndd.random.coin_flip(probability=0.5, batch_size=batch_size, rng=rng)
                images = ndd.crop_mirror_normalize(images, mirror=mirror, dtype=types.FLOAT)
            yield images, labels.gpu()


def dropped_mirror(data_dir, crop=16, *, batch_size=4, num_threads=1, device_id=0, seed=42):
    """mirror= was lost: the flip is still drawn (same states) but never applied."""
    ctx, rng, reader = _setup(num_threads, device_id, seed, data_dir)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size, ctx=ctx):
            with ctx:
                images = ndd.decoders.image(jpegs, device="gpu", output_type=types.RGB)
                images = ndd.random_resized_crop(images, size=crop, rng=rng)
                ndd.random.coin_flip(probability=0.5, batch_size=batch_size, rng=rng)
                images = ndd.crop_mirror_normalize(images, dtype=types.FLOAT)
            yield images, labels.gpu()


def swapped_uniforms(data_dir, *, batch_size=4, num_threads=1, device_id=0, seed=7):
    """color_pipe with its two uniform draws swapped: same kinds, so only outputs can tell."""
    ndd.set_num_threads(num_threads)
    ctx = ndd.EvalContext(device_id=device_id)
    rng = ndd.random.RNG(seed=seed)
    reader = ndd.readers.File(file_root=data_dir)
    while True:
        for jpegs, _ in reader.next_epoch(batch_size=batch_size, ctx=ctx):
            with ctx:
                images = ndd.decoders.image(jpegs, device="gpu")
                contrast = ndd.random.uniform(range=[0.8, 1.2], batch_size=batch_size, rng=rng)
                brightness = ndd.random.uniform(range=[0.5, 1.5], batch_size=batch_size, rng=rng)
                out = ndd.brightness_contrast(images, brightness=brightness, contrast=contrast)
            yield (out,)
