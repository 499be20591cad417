# expect: converted
# data: jpeg
"""`pipe = Pipeline.current()` as the first statement of a pipeline function, its batch size read
before the reader: the statement goes (NDD109), and the reader, the decoder and the rest keep
their places in the generator."""

import sys

from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.pipeline import Pipeline


@pipeline_def
def tagged(root):
    pipe = Pipeline.current()
    size = pipe.batch_size
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=False)
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    return fn.resize(images, resize_x=4, resize_y=4), labels + size


pipe = tagged(sys.argv[1], batch_size=3, num_threads=1, device_id=None)
pipe.build()
for step in range(3):
    images, labels = pipe.run()
    print(step, images.as_array().shape, int(images.as_array().sum()) % 1009, labels.as_array().ravel().tolist())
