# expect: converted
# data: jpeg
"""A `@pipeline_def` function calls `fn.readers.file` twice with the same arguments (a shard of
the files, padded to whole batches): two readers, the same files in the same order, epochs of one
length. Over several epochs the two labels lists and the encoded sizes of both sides match."""

import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def paired(root, shard):
    jpegs_a, labels_a = fn.readers.file(file_root=root, shard_id=shard, num_shards=3, pad_last_batch=True)
    images = fn.decoders.image(jpegs_a, device="cpu")
    jpegs_b, labels_b = fn.readers.file(file_root=root, shard_id=shard, num_shards=3, pad_last_batch=True)
    return images, labels_a, jpegs_b, labels_b


for shard in (0, 2):
    pipe = paired(sys.argv[1], shard)
    pipe.build()
    for step in range(5):
        images, labels_a, jpegs_b, labels_b = pipe.run()
        print(
            shard,
            step,
            [images.at(i).shape for i in range(len(images))],
            labels_a.as_array().ravel().tolist(),
            labels_b.as_array().ravel().tolist(),
            [jpegs_b.at(i).shape[0] for i in range(len(jpegs_b))],
        )
