"""Migration of legacy_pipes.py: the op objects become calls, in define_graph's order."""

import nvidia.dali.experimental.dynamic as ndd


def noise_legacy(*, batch_size=3, seed=1):
    ndd.set_num_threads(1)
    rng = ndd.random.RNG(seed=seed)
    while True:
        u = ndd.random.uniform(range=(0, 1), shape=[4], batch_size=batch_size, rng=rng)
        c = ndd.random.coin_flip(probability=0.3, batch_size=batch_size, rng=rng)
        u2 = ndd.random.uniform(range=(0, 1), shape=[4], batch_size=batch_size, rng=rng)
        yield u.gpu(), c, u2
