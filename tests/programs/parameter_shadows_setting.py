# expect: blocked NDD004
# data: jpeg
"""A `@pipeline_def` function with a parameter named like a pipeline setting (`batch_size`): DALI
gives the call's `batch_size=5` to the function only, and the pipeline reads batches of the
decorator's 3. Migrated with one `batch_size` for both, the reader read batches of 5 (other labels,
other counts) while `migrate` exited 0."""

import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def offset_labels(root, batch_size=3):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=False)
    return labels + batch_size


pipe = offset_labels(sys.argv[1], batch_size=5)
pipe.build()
for step in range(4):
    (labels,) = pipe.run()
    print(step, labels.as_array().ravel().tolist())
