# expect: converted
# data: jpeg
"""Training and validation pipelines, each given `device_id` at its call (so each migrated generator
has an `EvalContext` of its own), run in turn, an epoch of each per round: the validation loop stops
exactly at its epoch's end while the training pipeline goes on into its next epoch."""

import sys

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1)
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=3, name="Train")
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    return fn.resize(images, resize_x=16, resize_y=16), labels


@pipeline_def(batch_size=3, num_threads=1)
def val_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Val")
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.GRAY)
    return fn.resize(images, resize_x=8, resize_y=8), labels


local_rank = None  # what a launcher would give
train = train_pipe(sys.argv[1], device_id=local_rank)
train.build()
val = val_pipe(sys.argv[1], device_id=local_rank)
val.build()
for epoch in range(3):
    for step in range(3):
        images, labels = train.run()
        print("train", epoch, step, images.at(0).shape, labels.as_array().ravel().tolist())
    for step in range(5):  # 13 samples: an epoch of 5 batches of 3
        images, labels = val.run()
        print("val", epoch, step, images.at(0).shape, labels.as_array().ravel().tolist())
