"""Faithful migrations of image_pipes.py."""

import nvidia.dali.experimental.dynamic as ndd
from nvidia.dali import types


def train_pipe(data_dir, crop=16, *, batch_size=4, num_threads=1, device_id=0, seed=42):
    ndd.set_num_threads(num_threads)
    ctx = ndd.EvalContext(device_id=device_id)
    rng = ndd.random.RNG(seed=seed)
    reader = ndd.readers.File(
        file_root=data_dir,
        random_shuffle=True,
        name="Reader",
        seed=1153314634,  # dali_op_seed(42, 0): what DALI gives the first operator of a seed=42 pipeline
    )
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size, ctx=ctx):
            with ctx:
                images = ndd.decoders.image(jpegs, device="gpu", output_type=types.RGB)
                images = ndd.random_resized_crop(images, size=crop, rng=rng)
                mirror = ndd.random.coin_flip(probability=0.5, batch_size=batch_size, rng=rng)
                images = ndd.crop_mirror_normalize(images, mirror=mirror, dtype=types.FLOAT)
            yield images, labels.gpu()


def color_pipe(data_dir, *, batch_size=4, num_threads=1, device_id=0, seed=7):
    ndd.set_num_threads(num_threads)
    ctx = ndd.EvalContext(device_id=device_id)
    rng = ndd.random.RNG(seed=seed)
    reader = ndd.readers.File(file_root=data_dir)
    while True:
        for jpegs, _ in reader.next_epoch(batch_size=batch_size, ctx=ctx):
            with ctx:
                images = ndd.decoders.image(jpegs, device="gpu")
                brightness = ndd.random.uniform(range=[0.5, 1.5], batch_size=batch_size, rng=rng)
                contrast = ndd.random.uniform(range=[0.8, 1.2], batch_size=batch_size, rng=rng)
                out = ndd.brightness_contrast(images, brightness=brightness, contrast=contrast)
            yield (out,)
