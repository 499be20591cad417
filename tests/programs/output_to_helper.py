# expect: converted
# data: jpeg
"""The outputs of run() go to a helper that uses TensorList methods."""

import sys

from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def images_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    return fn.resize(images, resize_x=16, resize_y=16), labels


def show_images(images, count):
    for j in range(count):
        print(images.at(j).shape, images.at(j).mean())


pipe = images_pipe(sys.argv[1])
pipe.build()
images, labels = pipe.run()
show_images(images, 2)
