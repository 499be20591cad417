# expect: converted
# data: jpeg
"""One pipeline per shard in a list comprehension, built by a comprehension, then run in turn past
the end of an epoch, by item and by index."""

import sys

import nvidia.dali.fn as fn
from nvidia.dali.pipeline import pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def shard_labels(root, shard_id, num_shards):
    jpegs, labels = fn.readers.file(file_root=root, shard_id=shard_id, num_shards=num_shards)
    return labels


pipes = [shard_labels(sys.argv[1], shard, 2) for shard in range(2)]
[pipe.build() for pipe in pipes]
for step in range(9):
    print(step, [pipe.run()[0].as_array().ravel().tolist() for pipe in pipes])
first = pipes[0]
print(len(pipes), first.run()[0].as_array().ravel().tolist())
