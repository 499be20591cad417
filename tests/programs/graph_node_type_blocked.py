# expect: blocked NDD110
# data: jpeg
"""A graph helper that compares the type of its input with the graph-node class (`type(x) is`):
only an `isinstance` test is rewritten, so the pipeline stays in pipeline mode."""

import sys

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def
from nvidia.dali.pipeline import DataNode


def offset(images, shift):
    if type(shift) is DataNode:
        return images + shift
    return images + int(shift)


@pipeline_def(batch_size=2, num_threads=1)
def train(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    images = fn.resize(images, resize_x=6, resize_y=4)
    return offset(images, 1), offset(images, labels), labels


pipe = train(sys.argv[1], device_id=None)
pipe.build()
for step in range(2):
    plus_one, plus_label, labels = pipe.run()
    print(step, [int(np.asarray(plus_one.at(i)).sum()) for i in range(2)], [int(np.asarray(plus_label.at(i)).sum()) for i in range(2)])
