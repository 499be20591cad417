# expect: converted
# data: jpeg
"""A legacy `Pipeline` subclass that keeps its batch size, threads and seed in attributes before
calling `super().__init__(self.bs, self.threads, None, seed=self.seed_value)`: the settings are
read from the locals those attributes become."""

import sys

import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class HybridPipe(Pipeline):
    def __init__(self, split, root, train_bs, val_bs, seed):
        self.bs = train_bs if split == "train" else val_bs
        self.threads = 1
        self.seed_value = seed
        self.data_dir = root
        super(HybridPipe, self).__init__(self.bs, self.threads, None, seed=self.seed_value)
        self.input = ops.readers.File(file_root=self.data_dir, random_shuffle=True)
        self.decode = ops.decoders.Image(device="cpu")
        self.res = ops.Resize(resize_x=8, resize_y=8)
        self.coin = ops.random.CoinFlip(probability=0.5)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return [self.res(self.decode(jpegs)), labels, self.coin()]


pipe = HybridPipe("val", sys.argv[1], 4, 3, 11)
pipe.build()
for step in range(4):
    images, labels, coins = pipe.run()
    print(step, images.as_array().shape, labels.as_array().ravel().tolist())
