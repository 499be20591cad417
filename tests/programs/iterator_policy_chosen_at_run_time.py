# expect: converted
# data: jpeg
"""A factory returning DALI's classification iterator, whose last-batch policy is chosen by a
conditional expression (PARTIAL for validation, DROP for training); the program reads `len()`,
`size` and `_size` of the iterators and leaves each training epoch one batch early. The iterators
keep their interface (the support module's class, which reads the policy when it runs): the same
batches, lengths and epochs."""

import sys

from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy


@pipeline_def(seed=5)
def image_pipe(root, shard_id, num_shards, training=True):
    jpegs, labels = fn.readers.file(
        file_root=root, shard_id=shard_id, num_shards=num_shards, random_shuffle=training, name="Reader"
    )
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    images = fn.resize(images, resize_x=12, resize_y=12)
    return images, labels


def get_loader(root, batch_size, rank, world, training):
    pipe = image_pipe(root, rank, world, training, batch_size=batch_size, num_threads=2, device_id=None)
    pipe.build()
    loader = DALIClassificationIterator(
        pipe,
        reader_name="Reader",
        auto_reset=True,
        last_batch_policy=LastBatchPolicy.DROP if training else LastBatchPolicy.PARTIAL,
    )
    return loader


train = get_loader(sys.argv[1], 3, 0, 2, True)
val = get_loader(sys.argv[1], 4, 1, 2, False)
steps = len(train)
print("steps", steps, len(val), train.size, val._size)
for epoch in range(3):
    for i, data in enumerate(train):
        print("train", epoch, i, data[0]["label"].view(-1).tolist(), int(data[0]["data"].sum()))
        if i + 1 == steps - 1:
            break
    for data in val:
        print("val", epoch, data[0]["label"].view(-1).tolist())
