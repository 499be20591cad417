# expect: blocked NDD008
# data: jpeg
"""Pipelines appended to a list one by one: the list is built by calls the migration does not
follow, so the pipeline stays as it is."""

import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def shard(root, index):
    jpegs, labels = fn.readers.file(file_root=root, shard_id=index, num_shards=2)
    return labels


pipes = []
for index in range(2):
    pipes.append(shard(sys.argv[1], index))
for p in pipes:
    p.build()
    print(p.run()[0].as_array().ravel().tolist())
