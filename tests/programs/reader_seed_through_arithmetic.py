# expect: converted
# data: jpeg
"""A shuffling reader without a seed of its own in a pipeline seeded per rank, whose first output is
normalized with arithmetic on numbers (`(images - 128.0) / 64.0`, a comparison): DALI writes numbers
into the arithmetic operator instead of adding operators for them, so the reader is still the first
operator of the graph and gets the first seed the pipeline derives. The migrated reader gets that very
seed: the same labels, in the same order, per rank."""

import sys

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def normalized(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, name="Reader")
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    images = fn.resize(images, resize_x=16, resize_y=12)
    images = -(images - 128.0) / 64.0
    return images < 0.5, labels


for rank in range(2):
    pipe = normalized(sys.argv[1], seed=7 + rank)
    pipe.build()
    order = []
    for _ in range(6):  # more than one epoch of 13 files
        bright, labels = pipe.run()
        order += labels.as_array().ravel().tolist()
        order.append(int(bright.at(0).sum()))  # which picture came first
    print(rank, bright.at(0).shape, order)
