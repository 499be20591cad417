# expect: converted
# data: jpeg
"""A PyTorch iterator over one pipeline per shard, made by a list comprehension and built in a loop:
each batch holds one dict per pipeline, and the epochs end as DALI's iterator ends them (DROP)."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def sharded(root, shard_id, num_shards):
    jpegs, labels = fn.readers.file(file_root=root, shard_id=shard_id, num_shards=num_shards, name="Reader")
    return fn.resize(fn.decoders.image(jpegs), resize_x=4, resize_y=4), labels


pipes = [sharded(sys.argv[1], shard, 3) for shard in range(3)]
for pipe in pipes:
    pipe.build()
loader = DALIGenericIterator(pipes, ["images", "labels"], reader_name="Reader", last_batch_policy=LastBatchPolicy.DROP)
for epoch in range(3):
    for batch in loader:
        print(epoch, [(part["images"].shape[0], part["labels"].flatten().tolist()) for part in batch])
    loader.reset()
