# expect: converted
# data: jpeg
"""Helpers that build part of the graph with random ops (`def augment(images): ... fn.random.uniform()`),
one calling the other, called from the pipeline function: converted with it. The random ops get the
batch size and the pipeline's RNG, which the helpers take as keyword parameters."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types


def flip(images):
    return fn.flip(images, horizontal=fn.random.coin_flip(probability=0.5))


def augment(jpegs, size):
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    images = fn.resize(images, resize_shorter=fn.random.uniform(range=(size, size + 8)))
    images = flip(images)
    return fn.crop_mirror_normalize(
        images,
        crop=(size, size),
        crop_pos_x=fn.random.uniform(range=(0.0, 1.0)),
        dtype=types.FLOAT,
    )


@pipeline_def(batch_size=3, num_threads=1, device_id=None, seed=21)
def train_pipe(root, size=16):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=4)
    return augment(jpegs, size), labels


pipe = train_pipe(sys.argv[1])
pipe.build()
for step in range(3):
    images, labels = pipe.run()
    print(step, np.asarray(images.at(0)).shape, labels.as_array().ravel().tolist())
