# expect: blocked NDD108
# data: jpeg
"""A helper that indexes its argument, called both on Python values (at import) and on a DataNode
in the pipeline: in the graph `first(shapes)` is the height of every image (per-sample indexing),
at import it is a list's first element. No single rewrite of `values[0]` is right for both."""

import sys

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


def first(values):
    return values[0]


SIZES = [24, 32]
HEIGHT = first(SIZES)


@pipeline_def(batch_size=2, num_threads=1)
def shapes_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, seed=1)
    images = fn.decoders.image(jpegs, device="cpu")
    shapes = fn.peek_image_shape(jpegs)
    return fn.resize(images, resize_y=HEIGHT), first(shapes), labels


pipe = shapes_pipe(sys.argv[1], device_id=None)
pipe.build()
images, heights, labels = pipe.run()
print([images.at(i).shape for i in range(len(images))], heights.as_array().ravel().tolist())
