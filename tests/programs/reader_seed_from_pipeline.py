# expect: converted
# data: jpeg
"""A shuffling reader without a seed of its own, in a pipeline seeded per rank (`seed=12 + rank`):
the pipeline gave the reader a seed derived from its own, so each rank reads its own order, the
same in every run. The migrated reader gets that very seed and prints the same labels."""

import sys

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def train(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, name="Reader")
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    images = fn.resize(images, resize_x=16, resize_y=12)
    return images, labels


for rank in range(3):
    pipe = train(sys.argv[1], seed=12 + rank)
    pipe.build()
    order = []
    for step in range(6):  # more than one epoch of 13 files
        images, labels = pipe.run()
        order += labels.as_array().ravel().tolist()
        order.append(int(images.at(0).sum()))  # which picture came first
    print(rank, images.at(0).shape, order)
