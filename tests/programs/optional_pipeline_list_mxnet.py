# expect: blocked NDD411
# data: jpeg
"""Training pipelines always, validation pipelines only when asked for (`[...] if flag else None`):
both lists go to MXNet's iterator, so both classes stay in pipeline mode, each with one finding."""

import sys

from nvidia.dali import ops
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.mxnet import DALIClassificationIterator


class Train(Pipeline):
    def __init__(self, root, shard):
        super().__init__(batch_size=2, num_threads=1, device_id=None)
        self.files = ops.readers.File(file_root=root, name="Reader", shard_id=shard, num_shards=2,
                                      random_shuffle=True, seed=5)

    def define_graph(self):
        jpegs, labels = self.files()
        return jpegs, labels


class Check(Pipeline):
    def __init__(self, root, shard):
        super().__init__(batch_size=2, num_threads=1, device_id=None)
        self.files = ops.readers.File(file_root=root, name="Reader", shard_id=shard, num_shards=2)

    def define_graph(self):
        jpegs, labels = self.files()
        return jpegs, labels


def loaders(root, validate):
    train = [Train(root, shard) for shard in range(2)]
    check = [Check(root, shard) for shard in range(2)] if validate else None
    train[0].build()
    train_loader = DALIClassificationIterator(train, reader_name="Reader")
    check_loader = DALIClassificationIterator(check, reader_name="Reader") if validate else None
    return train_loader, check_loader


if __name__ == "__main__":
    print(loaders(sys.argv[1], validate=True))
