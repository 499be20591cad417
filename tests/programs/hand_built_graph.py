# expect: converted
# data: jpeg
"""The shape of DALI's notebooks: a `Pipeline` built by hand, its graph defined in `with pipe:` and
closed by `pipe.set_outputs(...)`, then built and run in a loop that reuses the graph's names."""

import sys

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import Pipeline

image_dir = sys.argv[1]
batch_size = 3

pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None, seed=11)
with pipe:
    jpegs, labels = fn.readers.file(file_root=image_dir, random_shuffle=True, seed=4, name="Reader")
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    images = fn.resize(images, resize_x=40, resize_y=30)
    images = fn.rotate(images, angle=15.0, fill_value=0)
    flipped = fn.flip(images, horizontal=1)
    pipe.set_outputs(images, labels, flipped)
pipe.build()

for step in range(3):
    images, labels, flipped = pipe.run()
    print(step, len(images), images.at(0).shape, labels.as_array().ravel().tolist())
    print(int(images.at(1).sum()), int(flipped.at(1).sum()))

# A second graph under the same name, as a notebook's next cell would define it.
pipe = Pipeline(batch_size=2, num_threads=1, device_id=None)
with pipe:
    jpegs, labels = fn.readers.file(file_root=image_dir, seed=4)
    images = fn.decoders.image(jpegs, device="cpu")
    pipe.set_outputs(fn.crop(images, crop=(16, 16)), labels)
pipe.build()
images, labels = pipe.run()
print(len(images), images.at(1).shape, int(images.at(1).sum()), labels.as_array().ravel().tolist())
