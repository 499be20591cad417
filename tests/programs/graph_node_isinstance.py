# expect: converted
# data: jpeg
"""Graph code that tests whether a value is a graph value: an assert in the pipeline body, and a
helper that takes either an op's output or a Python number (one branch per kind), also through a
tuple of classes, in a comprehension and a lambda; a message printed once, when the graph is built, about a Python parameter."""

import sys

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def
from nvidia.dali.data_node import DataNode


def brighten(images, amount):
    if isinstance(amount, DataNode):
        return images * fn.cast(amount, dtype=types.FLOAT)
    return images * float(amount)


def mirror(values, how):
    if isinstance(how, (DataNode, list)):
        return values
    return fn.flip(values, horizontal=int(how))


@pipeline_def(batch_size=3, num_threads=1)
def train(root, gain):
    if not isinstance(gain, DataNode):
        print("gain is a Python value:", gain)
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    images = fn.resize(images, resize_x=8, resize_y=6)
    assert isinstance(images, DataNode), type(images)
    assert not isinstance(gain, DataNode)
    scaled = brighten(images, gain)
    by_label = brighten(images, labels + 1)
    nodes = [v for v in (gain, images, 3) if isinstance(v, DataNode)]
    first_node = list(filter(lambda v: isinstance(v, DataNode), [gain, labels]))[0]
    return mirror(scaled, 1), mirror(by_label, [0, 1]), labels, fn.cast(first_node, dtype=types.INT32) + len(nodes)


pipe = train(sys.argv[1], 2, device_id=None)
pipe.build()
for step in range(3):
    scaled, by_label, labels, counted = pipe.run()
    print(step, [float(np.asarray(scaled.at(i))[0, 0, 0]) for i in range(3)])
    print("  by label", [float(np.asarray(by_label.at(i)).mean().round(3)) for i in range(3)], labels.as_array().ravel().tolist())
    print("  counted", counted.as_array().ravel().tolist())
