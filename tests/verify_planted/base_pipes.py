"""Originals of the planted-mistake suite (numpy reader; random ops; a JPEG decoder)."""

from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=3, num_threads=1, device_id=0, seed=12)
def aug_pipe(data_dir):
    data = fn.readers.numpy(file_root=data_dir, random_shuffle=True, seed=3, name="Reader")
    x = fn.cast(data, dtype=types.FLOAT)
    scale = fn.random.uniform(range=(0.5, 1.5))
    noise = fn.random.normal(x, stddev=0.25)
    flip = fn.random.coin_flip(probability=0.5)
    fn.random.uniform(range=(5, 6))  # unused, but drawn from
    y = fn.transpose(x * scale + noise, perm=[1, 0])
    total = fn.reductions.sum(y, axes=[0])
    return y, total * fn.cast(flip, dtype=types.FLOAT), data


@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def shard_pipe(data_dir):
    data = fn.readers.numpy(
        file_root=data_dir, num_shards=2, shard_id=1, random_shuffle=True, pad_last_batch=True
    )
    return fn.cast(data, dtype=types.INT64) + 1


@pipeline_def(batch_size=3, num_threads=1, device_id=0)
def unseeded_pipe(data_dir):
    data = fn.readers.numpy(file_root=data_dir)
    u = fn.random.uniform(range=(0, 1))
    return fn.cast(data, dtype=types.FLOAT) * u


@pipeline_def(batch_size=2, num_threads=1, device_id=0, seed=4)
def image_pipe(data_dir):
    jpegs, labels = fn.readers.file(file_root=data_dir, seed=9)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    images = fn.resize(images, resize_x=12, resize_y=10)
    images = fn.crop_mirror_normalize(
        images, crop=(8, 8), mean=[128.0], std=[64.0], mirror=fn.random.coin_flip()
    )
    return images, labels


@pipeline_def(batch_size=2, num_threads=1, device_id=0, seed=6, enable_checkpointing=True)
def ckpt_pipe(data_dir):
    data = fn.readers.numpy(file_root=data_dir, random_shuffle=True, seed=5, name="Reader")
    noise = fn.random.uniform(range=(-1, 1))
    flip = fn.random.coin_flip()
    return fn.cast(data, dtype=types.FLOAT) + noise, flip
