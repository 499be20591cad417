# expect: converted
# data: jpeg
"""The shape of DALI's ImageNet training example: one pipeline function for training and
validation, its graph chosen by `if is_training:` (a value fixed when the pipeline is built) and
`x.gpu() if not dali_cpu else x`. The shuffling reader is the first operator of the graph walk in
every branch, so the migrated reader gets the seed the pipeline gave it: the same labels, in the
same order, in both modes and for each choice of branch."""

import sys

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(num_threads=1, device_id=None)
def create_pipeline(data_dir, crop, dali_cpu=True, is_training=True):
    jpegs, labels = fn.readers.file(file_root=data_dir, random_shuffle=True, pad_last_batch=True, name="Reader")
    decoder_device = "cpu" if dali_cpu else "mixed"
    if is_training:
        images = fn.decoders.image_random_crop(jpegs, device=decoder_device, output_type=types.RGB)
        images = fn.resize(images, resize_x=crop, resize_y=crop)
        mirror = fn.random.coin_flip(probability=0.5)
    else:
        images = fn.decoders.image(jpegs, device=decoder_device, output_type=types.RGB)
        images = fn.resize(images, size=crop, mode="not_smaller")
        mirror = False
    images = fn.crop_mirror_normalize(
        images.gpu() if not dali_cpu else images, dtype=types.FLOAT, crop=(crop, crop), mirror=mirror
    )
    return images, labels


for training in (True, False):
    pipe = create_pipeline(sys.argv[1], 16, is_training=training, batch_size=5, seed=12)
    pipe.build()
    for step in range(7):
        images, labels = pipe.run()
        print(training, step, images.as_tensor().shape(), labels.as_array().ravel().tolist())
