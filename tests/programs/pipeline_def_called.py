# expect: blocked NDD001
# data: jpeg
"""`pipeline_def` called on a graph function instead of decorating it (`make = pipeline_def(body,
...)`, `pipeline_def(batch_size=2)(body)`): the function is no pipeline to the migration, so its
`fn.*` calls, and those of the helper it runs, must stay pipeline-mode code (converted, the graph
got dynamic-mode operators and the program crashed while `migrate` exited 0). The decorated pipeline
beside it runs the same helper, so it stays too (converted, it called the kept helper on batches)."""

import sys

from nvidia.dali import fn, pipeline_def


def resized(jpegs):
    return fn.resize(fn.decoders.image(jpegs), resize_x=8, resize_y=8)


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def decorated(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return resized(jpegs), labels


def body(root, shard):
    jpegs, labels = fn.readers.file(file_root=root, shard_id=shard, num_shards=2, pad_last_batch=True)
    return resized(jpegs), labels


make = pipeline_def(body, batch_size=3, num_threads=1, device_id=None)
for shard in range(2):
    pipe = make(sys.argv[1], shard)
    pipe.build()
    for step in range(3):
        images, labels = pipe.run()
        print(shard, step, labels.as_array().ravel().tolist(), images.as_array().shape)
plain = decorated(sys.argv[1])
plain.build()
for step in range(2):
    plain_images, plain_labels = plain.run()
    print(step, plain_labels.as_array().ravel().tolist(), plain_images.as_array().shape)
small = pipeline_def(batch_size=2, num_threads=1, device_id=None)(body)(sys.argv[1], 1)
small.build()
print(small.run()[1].as_array().ravel().tolist())
