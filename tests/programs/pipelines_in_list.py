# expect: converted
# data: jpeg
"""One pipeline per shard, each given its `device_id` at the call, kept in a list and advanced in
turn past their epochs' ends: each gets an `EvalContext` of its own, and their CPU readers read in
the shared default context (DALI's readers keep the context they read in entered between batches)."""

import sys

import nvidia.dali.fn as fn
from nvidia.dali.pipeline import pipeline_def


@pipeline_def
def shard_pipe(root, shard_id, num_shards):
    jpegs, labels = fn.readers.file(file_root=root, shard_id=shard_id, num_shards=num_shards, name="Reader")
    return labels


pipes = [shard_pipe(sys.argv[1], i, 2, batch_size=2, num_threads=1, device_id=None) for i in range(2)]
for p in pipes:
    p.build()
for step in range(6):  # past the end of each shard's first epoch (13 samples, 2 shards, batches of 2)
    print([p.run()[0].as_array().ravel().tolist() for p in pipes])
