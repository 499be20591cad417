# expect: converted
# data: jpeg
"""The graph is built by helpers of the module: one returns two outputs, which the pipeline function
returns as they are; another returns one."""

import sys

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


def decode(jpegs):
    return fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)


def preprocess(jpegs, labels):
    images = fn.resize(decode(jpegs), resize_x=20, resize_y=12)
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, mean=[128.0] * 3, std=[64.0] * 3)
    return images, labels + 10


@pipeline_def(batch_size=3, num_threads=1)
def train(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=11)
    return preprocess(jpegs, labels)


@pipeline_def(batch_size=2, num_threads=1)
def thumbnails(root):
    jpegs, _ = fn.readers.file(file_root=root)
    return decode(jpegs)


pipe = train(sys.argv[1], device_id=None)
pipe.build()
for step in range(4):
    outputs = pipe.run()
    images, labels = outputs
    print(step, len(outputs), images.at(0).shape, float(images.at(1).mean().round(4)), labels.as_array().ravel().tolist())

small = thumbnails(sys.argv[1], device_id=None)
small.build()
for step in range(3):
    outputs = small.run()
    print(step, len(outputs), [outputs[0].at(i).shape for i in range(len(outputs[0]))])
