# expect: converted
# data: jpeg
"""The scheduled API: `schedule_run()` for each pipeline of a list, then `outputs()` of each, in
turn past the end of an epoch; and `schedule_run()` / `share_outputs()` / `release_outputs()` on
one pipeline, scheduled twice ahead. `outputs()` and `share_outputs()` give the batches in the
order they were scheduled, as `run()` does: each becomes `next(pipe)`, and the `schedule_run()`
and `release_outputs()` statements (and the loops made only of them) go."""

import sys

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali import fn, pipeline_def
from nvidia.dali.pipeline import Pipeline


class ShardLabels(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, shard_id, root):
        super().__init__(batch_size, num_threads, device_id)
        self.input = ops.readers.File(file_root=root, shard_id=shard_id, num_shards=2)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return labels


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def sizes(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=4)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    return fn.shapes(images), labels


pipes = [ShardLabels(2, 1, None, shard, sys.argv[1]) for shard in range(2)]
[pipe.build() for pipe in pipes]
for step in range(5):
    for pipe in pipes:
        pipe.schedule_run()
    for pipe in pipes:
        (labels,) = pipe.outputs()
        print(step, labels.as_array().ravel().tolist())

ahead = sizes(sys.argv[1])
ahead.build()
ahead.schedule_run()
ahead.schedule_run()
for _ in range(2):
    shapes, labels = ahead.share_outputs()
    print(shapes.as_array().tolist(), labels.as_array().ravel().tolist())
    ahead.release_outputs()
