# expect: converted
# data: jpeg
"""Two shuffling readers that differ only in their `seed=` literals: each reads its own order in
both modes, and their epochs have one length, so the migrated generator walks them together."""

import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=5, num_threads=1, device_id=None, seed=11)
def shuffled(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=1)
    other, other_labels = fn.readers.file(file_root=root, random_shuffle=True, seed=2)
    return labels, other_labels, other


pipe = shuffled(sys.argv[1])
pipe.build()
for step in range(7):
    labels, other_labels, other = pipe.run()
    print(step, labels.as_array().ravel().tolist(), other_labels.as_array().ravel().tolist(), len(other))
