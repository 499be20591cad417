# expect: converted
# data: jpeg
"""The tutorial shape: a @pipeline_def, built with settings at the call site, run in a loop."""

import sys

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=3, num_threads=1)
def decode_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=7, name="Reader")
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    images = fn.resize(images, resize_x=32, resize_y=24)
    return images, labels


pipe = decode_pipe(sys.argv[1], device_id=None, prefetch_queue_depth=1)
pipe.build()
for step in range(4):
    images, labels = pipe.run()
    print(step, len(images), images.at(0).shape, labels.as_array().ravel().tolist())
