# expect: converted
# data: jpeg
"""`@pipeline_def` functions used as values: a tuple of them iterated, each called to make one
pipeline by a plain name; and a dict from a label to a function, iterated by `.items()`. Each call
through the loop variable makes a pipeline that is followed like `pipe = p(...)`; `__name__` of
the migrated function is the same."""

import sys

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali.pipeline import pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def labels_only(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return labels


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def small_images(root, width=5):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=3)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.GRAY)
    return fn.resize(images, resize_x=width, resize_y=4), labels


for make in (labels_only, small_images):
    pipe = make(sys.argv[1])
    pipe.build()
    for step in range(3):
        out = pipe.run()
        print(make.__name__, step, len(out), out[-1].as_array().ravel().tolist())

by_label = {"labels": labels_only, "images": small_images}
for label, make in by_label.items():
    pipe = make(sys.argv[1], batch_size=3)
    pipe.build()
    first = pipe.run()
    print(label, make.__name__, first[0].as_array().shape)
