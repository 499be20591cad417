# expect: blocked NDD101
# data: jpeg
"""A random crop on an input set: an image and its mask. Pipeline mode seeds the operator's
instances alike, so both get the same crop window; separate `ndd` calls on one RNG would crop them
differently, so the pipeline stays as it is, with the reason."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=3, num_threads=1, device_id=None, seed=4)
def image_and_mask(root):
    jpegs, _ = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.GRAY)
    masks = fn.cast((images > 100) * 255, dtype=types.UINT8)
    images, masks = fn.random_resized_crop([images, masks], size=[16, 16], interp_type=types.INTERP_NN)
    return images, masks


pipe = image_and_mask(sys.argv[1])
pipe.build()
images, masks = pipe.run()
# the same window: the mask still marks exactly the bright pixels of the cropped image
print([bool(np.array_equal(np.asarray(masks.at(i)) > 0, np.asarray(images.at(i)) > 100)) for i in range(3)])
