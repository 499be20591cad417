# expect: blocked NDD415
# data: numpy
"""A checkpointing pipeline's call site gets `<pipe>_checkpoint` beside it (`pipe_checkpoint =
ndd.checkpoint.Checkpoint()`); here `pipe_checkpoint` is the program's own name (a file path),
printed at the end. Binding the checkpoint there would change what the program prints, so the
pipeline stays in pipeline mode and the finding says to rename it."""

import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None, enable_checkpointing=True)
def numbers(root):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy", random_shuffle=True, seed=1, name="Reader")
    return data


pipe_checkpoint = "saved.ckpt"
pipe = numbers(sys.argv[1])
pipe.build()
for _ in range(3):
    (out,) = pipe.run()
    print([out.at(i).shape for i in range(len(out))])
state = pipe.checkpoint()
print(type(state).__name__, pipe_checkpoint)
