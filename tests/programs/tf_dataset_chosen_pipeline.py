# expect: blocked NDD904
# data: jpeg
"""A helper picks one of two nested pipeline functions (sharded or not, with or without a mask
reader in an `if`) and returns it; the caller makes the pipeline and gives it to TensorFlow's
`DALIDataset`. Both functions stay in pipeline mode, each with the one reason that keeps it."""

import sys

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


def pick_pipeline(root, with_masks, sharded):
    @pipeline_def(batch_size=2, num_threads=1)
    def whole():
        jpegs, _ = fn.readers.file(file_root=root, random_shuffle=True, seed=4)
        images = fn.decoders.image(jpegs, output_type=types.RGB)
        if with_masks:
            masks, _ = fn.readers.file(file_root=root, seed=4)
            masks = fn.decoders.image(masks, output_type=types.GRAY)
            return images, masks
        return (images,)

    @pipeline_def(batch_size=2, num_threads=1)
    def part(shard):
        jpegs, _ = fn.readers.file(file_root=root, shard_id=shard, num_shards=2)
        return (fn.decoders.image(jpegs, output_type=types.RGB),)

    if sharded:
        return part
    return whole


def make_dataset(root, sharded=False):
    import nvidia.dali.plugin.tf as dali_tf

    maker = pick_pipeline(root, False, sharded)
    if sharded:
        return [dali_tf.DALIDataset(pipeline=maker(shard=i, device_id=None), batch_size=2) for i in range(2)]
    pipe = maker(device_id=None)
    return dali_tf.DALIDataset(pipeline=pipe, batch_size=2, device_id=None)


if __name__ == "__main__":
    pipe = pick_pipeline(sys.argv[1], True, False)(device_id=None)
    pipe.build()
    images, masks = pipe.run()
    print(images.at(0).shape, masks.at(0).shape)
