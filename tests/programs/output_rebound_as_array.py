# expect: converted
# data: jpeg
"""Each output is rebound, in the loop body, to its own numpy array (`frames = frames.as_cpu().as_array()`):
the name holds an output up to that line and an array after it, also after the loop, so the later
reads (`frames[k]`, `.shape`, `frames[0][0]`) are numpy reads and stay as they are."""

import sys

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline

STEPS = 3


class Thumbs(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, root):
        super(Thumbs, self).__init__(batch_size, num_threads, device_id, seed=5)
        self.files = ops.readers.File(file_root=root, random_shuffle=False)
        self.decode = ops.decoders.Image(output_type=types.RGB)
        self.shrink = ops.Resize(resize_x=5, resize_y=4)

    def define_graph(self):
        jpegs, classes = self.files(name="Files")
        return self.shrink(self.decode(jpegs)), classes


thumbs = Thumbs(batch_size=2, num_threads=1, device_id=None, root=sys.argv[1])
thumbs.build()
for step in range(STEPS):
    frames, classes = thumbs.run()
    print("step", step, "images in batch:", len(frames))
    frames = frames.as_cpu().as_array()
    classes = classes.as_array()
    print("frames", frames.shape, frames.dtype, "classes", classes.ravel().tolist())
    for k in range(frames.shape[0]):
        print(k, int(frames[k].sum()) % 997, classes[k][0])

corner = frames[0][0]
print("last corner", corner.tolist())
