# expect: converted
# data: jpeg
"""The shape of DALI's framework examples: a function that builds a `Pipeline` by hand (`with pipe:`
+ `set_outputs`) from its parameters and returns it; the caller builds and runs it."""

import sys

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


def build_pipeline(file_root, batch_size, num_threads, device_id, crop=32, shard_id=0, num_shards=1):
    pipe = Pipeline(batch_size, num_threads, device_id, seed=7)
    with pipe:
        jpegs, labels = fn.readers.file(
            file_root=file_root, shard_id=shard_id, num_shards=num_shards, random_shuffle=True, seed=3, name="Reader"
        )
        images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
        images = fn.resize(images, resize_shorter=crop)
        images = fn.crop_mirror_normalize(images, crop=(crop, crop), dtype=types.FLOAT, output_layout="CHW")
        pipe.set_outputs(images, labels)
    return pipe


train = build_pipeline(sys.argv[1], 4, 1, None)
train.build()
for step in range(3):
    images, labels = train.run()
    print(step, len(images), images.at(0).shape, labels.as_array().ravel().tolist(), round(float(images.at(2).mean()), 4))
