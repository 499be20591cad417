# expect: converted
# data: jpeg
"""DALI's documented shape: the pipeline made inside the iterator's call,
`DALIGenericIterator([get_dali_pipeline(...)], ['data', 'label'], reader_name='Reader')`, and a
second iterator over a pipeline made in its call with `size=`; both iterated for two epochs."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


@pipeline_def(num_threads=1, device_id=None, seed=7)
def get_dali_pipeline(images_dir, shard_id=0, num_shards=1):
    images, labels = fn.readers.file(
        file_root=images_dir, random_shuffle=True, shard_id=shard_id, num_shards=num_shards, name="Reader"
    )
    images = fn.decoders.image(images)
    images = fn.resize(images, resize_x=8, resize_y=8)
    return images, labels


@pipeline_def(batch_size=5, num_threads=1, device_id=None)
def plain_pipeline(images_dir):
    images, labels = fn.readers.file(file_root=images_dir, name="Plain")
    return fn.resize(fn.decoders.image(images), resize_x=4, resize_y=4), labels


train_data = DALIGenericIterator(
    [get_dali_pipeline(images_dir=sys.argv[1], shard_id=1, num_shards=2, batch_size=4)],
    ['data', 'label'],
    reader_name='Reader',
    last_batch_policy=LastBatchPolicy.PARTIAL,
)
sized = DALIGenericIterator(plain_pipeline(sys.argv[1]), ['data', 'label'], size=11, auto_reset=True)
print("batches per epoch", len(train_data), len(sized))
for epoch in range(2):
    for i, data in enumerate(train_data):
        print(epoch, i, data[0]['label'].flatten().tolist())
    train_data.reset()
    for i, data in enumerate(sized):
        print("sized", epoch, i, data[0]['label'].flatten().tolist())
