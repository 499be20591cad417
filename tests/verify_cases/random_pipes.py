"""Random ops only, no reader: the body runs in `while True:` after migration."""

from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=3, num_threads=1, device_id=0, seed=1)
def noise_pipe():
    u = fn.random.uniform(range=(0, 1), shape=[4])
    n = fn.random.normal(shape=[2], dtype=types.FLOAT)
    c = fn.random.coin_flip(probability=0.3)
    fn.random.uniform(range=(5, 6))  # unused: pruned from the graph, but created (and fed)
    return u, n, c
