# expect: converted
# data: jpeg
"""A pipeline that draws its resize target from Python's `random` in its body: pipeline mode drew it
once, when the graph was built, and every batch has that size. The generator draws it once too,
before its loop, rather than once per batch."""

import random
import sys

from nvidia.dali import fn, pipeline_def

SIZES = [4, 6, 8, 10, 12]


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def sized(root):
    jpegs, labels = fn.readers.file(file_root=root)
    side = random.choice(SIZES)
    images = fn.resize(fn.decoders.image(jpegs), resize_x=side, resize_y=side)
    return images, labels


random.seed(3)
pipe = sized(sys.argv[1])
pipe.build()
for step in range(6):
    images, labels = pipe.run()
    print(step, [images.at(i).shape for i in range(2)], labels.as_array().ravel().tolist())
