# expect: converted
# data: jpeg
"""`as_tensor()` bound to a name that is only handed to numpy: the numpy array it becomes gives the same
values and shape."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def labelled(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return fn.resize(fn.decoders.image(jpegs), resize_x=5, resize_y=3), labels


def main(root):
    pipe = labelled(root)
    pipe.build()
    for _ in range(3):
        images, labels = pipe.run()
        dense = labels.as_tensor()
        print(np.array(dense).shape, np.array(dense).ravel().tolist(), images.as_array().shape)


if __name__ == "__main__":
    main(sys.argv[1])
