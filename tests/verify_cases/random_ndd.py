"""Migration of random_pipes.py. device_id was 0 everywhere, so it is omitted (target shape)."""

import nvidia.dali.experimental.dynamic as ndd
from nvidia.dali import types


def noise_pipe(*, batch_size=3, num_threads=1, seed=1):
    ndd.set_num_threads(num_threads)
    rng = ndd.random.RNG(seed=seed)
    while True:
        u = ndd.random.uniform(range=(0, 1), shape=[4], batch_size=batch_size, rng=rng)
        n = ndd.random.normal(shape=[2], dtype=types.FLOAT, batch_size=batch_size, rng=rng)
        c = ndd.random.coin_flip(probability=0.3, batch_size=batch_size, rng=rng)
        ndd.random.uniform(range=(5, 6), batch_size=batch_size, rng=rng)  # kept: keeps the order
        yield u, n, c


def noise_pipe_dropped_unused(*, batch_size=3, num_threads=1, seed=1):
    """Wrong: the unused draw was removed, so the pipeline has one random op more."""
    ndd.set_num_threads(num_threads)
    rng = ndd.random.RNG(seed=seed)
    while True:
        u = ndd.random.uniform(range=(0, 1), shape=[4], batch_size=batch_size, rng=rng)
        n = ndd.random.normal(shape=[2], dtype=types.FLOAT, batch_size=batch_size, rng=rng)
        c = ndd.random.coin_flip(probability=0.3, batch_size=batch_size, rng=rng)
        yield u, n, c
