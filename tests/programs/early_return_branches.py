# expect: converted
# data: jpeg
"""A pipeline function that returns early for evaluation and at the end for training: every
`return` ends an `if` branch or the function, and gives the same number of outputs."""

import sys

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=3, num_threads=1)
def images_pipe(root, training, size=16):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=5)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    if not training:
        # evaluation: a plain resize
        return fn.resize(images, resize_x=size, resize_y=size), labels

    images = fn.resize(images, resize_x=size * 2, resize_y=size)
    if size > 16:
        return fn.flip(images, horizontal=1), labels * 2
    images = fn.crop(images, crop=(size, size))
    return images, labels + 100


for training, size in ((False, 16), (True, 16), (True, 20)):
    pipe = images_pipe(sys.argv[1], training, size=size, device_id=None)
    pipe.build()
    for step in range(3):
        images, labels = pipe.run()
        print(training, size, step, images.at(0).shape, int(images.at(1).sum()), labels.as_array().ravel().tolist())
