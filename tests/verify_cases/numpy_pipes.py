"""Original pipelines over a numpy reader: deterministic, shuffled, padded, sharded, seeded."""

from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=3, num_threads=1, device_id=0)
def det_pipe(data_dir):
    data = fn.readers.numpy(file_root=data_dir, name="Reader")
    scaled = fn.cast(data * 2 + 1, dtype=types.FLOAT)
    return data, scaled


@pipeline_def(batch_size=3, num_threads=1, device_id=0, seed=11)
def epoch_pipe(data_dir, pad=False):
    data = fn.readers.numpy(file_root=data_dir, random_shuffle=True, pad_last_batch=pad)
    return data.gpu()


@pipeline_def(batch_size=2, num_threads=1, device_id=0, seed=5)
def shard_pipe(data_dir):
    data = fn.readers.numpy(file_root=data_dir, shard_id=1, num_shards=2, random_shuffle=True, stick_to_shard=False)
    return data


@pipeline_def(batch_size=3, num_threads=1, device_id=0, seed=5)
def padded_shard_pipe(data_dir):
    # 7 samples in 2 shards: shard 0 holds 3, padded to 4, so 2 batches of 3 per epoch, not 1.
    data = fn.readers.numpy(file_root=data_dir, shard_id=0, num_shards=2, pad_last_batch=True)
    return data


@pipeline_def(batch_size=3, num_threads=1, device_id=0)
def seeded_pipe(data_dir):
    data = fn.readers.numpy(file_root=data_dir, random_shuffle=True, seed=7)
    return data


@pipeline_def(batch_size=3, num_threads=1, device_id=0)
def raising_pipe(data_dir):
    data = fn.readers.numpy(file_root=data_dir)
    raise ValueError("boom while defining the graph")  # the line verify must point at
    return data


@pipeline_def(batch_size=2, num_threads=1, device_id=0, seed=3)
def jitter_pipe(data_dir):
    data = fn.readers.numpy(file_root=data_dir)
    images = fn.cast(data, dtype=types.UINT8)
    return fn.jitter(images.gpu())


@pipeline_def(batch_size=3, num_threads=1, device_id=0)
def run_error_pipe(data_dir):
    data = fn.readers.numpy(file_root=data_dir)
    return data, fn.reshape(data, shape=[100])  # fails in pipe.run(), not while defining


@pipeline_def(batch_size=3, num_threads=1, device_id=0)
def unseeded_shuffle_pipe(data_dir):
    data = fn.readers.numpy(file_root=data_dir, random_shuffle=True)
    return data
