# expect: blocked NDD411
# data: jpeg
"""A benchmark that picks its framework on the command line: functions hand out MXNet's or
PyTorch's iterator class, and one function builds the iterator from the class it is given. The
class may be MXNet's, which has no dynamic-mode form, so the pipelines stay in pipeline mode."""

import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def sharded(root, shard):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader", shard_id=shard, num_shards=2)
    return fn.decoders.image(jpegs), labels


def mxnet_loader():
    from nvidia.dali.plugin.mxnet import DALIClassificationIterator as Loader
    return Loader


def torch_loader():
    from nvidia.dali.plugin.pytorch import DALIClassificationIterator as Loader
    return Loader


def time_loader(loader_class, root):
    shards = [sharded(root, shard) for shard in range(2)]
    for shard in shards:
        shard.build()
    count = 0
    for batch in loader_class(shards, reader_name="Reader"):
        count += 1
    print(loader_class.__module__, count)


LOADERS = {"mxnet": mxnet_loader, "pytorch": torch_loader}
if __name__ == "__main__":
    time_loader(LOADERS[sys.argv[2] if len(sys.argv) > 2 else "pytorch"](), sys.argv[1])
