"""A legacy ops-API Pipeline subclass: its graph is defined in build(), one op object is called
twice (two instances, two random states), and it hard-codes device_id positionally."""

import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class NoisePipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, seed):
        super().__init__(batch_size, num_threads, device_id, seed=seed)
        self.uniform = ops.random.Uniform(range=(0, 1), shape=[4])
        self.coin = ops.random.CoinFlip(probability=0.3)

    def define_graph(self):
        u = self.uniform()
        c = self.coin()
        u2 = self.uniform()
        return u.gpu(), c, u2


def noise_legacy(batch_size=3, device_id=0, seed=1):
    return NoisePipe(batch_size, 1, 0, seed)
