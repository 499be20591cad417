# expect: blocked NDD415
# data: jpeg
"""Checkpointing declared in the decorator, but the checkpoint is taken in a lambda: NDD415 cannot
collect the state at the moment the lambda runs, so the pipeline stays, with one finding at it."""

import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=4, num_threads=1, device_id=None, enable_checkpointing=True)
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return labels


pipe = train_pipe(sys.argv[1])
pipe.build()
save = lambda: pipe.checkpoint()  # noqa: E731
for step in range(3):
    (labels,) = pipe.run()
    print(step, labels.as_array().ravel().tolist(), len(save()))
