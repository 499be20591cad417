# expect: converted
# data: jpeg
"""One pipeline per shard made in a comprehension through the pipeline function's name, each asked
for its reader's epoch size: the first by index, the last by a computed index, every one in a
generator and in a list comprehension over the list. The creation becomes
`pipes_meta, pipes = zip(*[...])`; each read becomes the paired metadata's `"epoch_size"`, which is
the whole data set's size for every shard, as in pipeline mode."""

import math
import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def shard_pipe(root, shard, shards):
    jpegs, labels = fn.readers.file(file_root=root, shard_id=shard, num_shards=shards, name="Reader")
    return labels


SHARDS = 3
pipes = [shard_pipe(sys.argv[1], n, SHARDS) for n in range(SHARDS)]
for pipe in pipes:
    pipe.build()

total = pipes[0].epoch_size("Reader")
assert all(pipe.epoch_size("Reader") == total for pipe in pipes)
print("sizes", total, pipes[SHARDS - 1].epoch_size('Reader'), [pipe.epoch_size('Reader') for pipe in pipes])
steps = math.ceil(total / SHARDS / 3)
for step in range(steps + 1):
    for pipe in pipes:
        (labels,) = pipe.run()
        print(step, labels.as_array().ravel().tolist())
