"""handbuilt_pipes.py as `ndd-migrate migrate` writes it."""

import nvidia.dali.experimental.dynamic as ndd
from nvidia.dali import types

image_dir = "/data/images"


def pipe_batches(*, batch_size=3, num_threads=1, device_id=0):
    ndd.set_num_threads(num_threads)
    reader = ndd.readers.File(file_root=image_dir, name="Reader")
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs, output_type=types.RGB)
            yield (
                ndd.resize(images, resize_x=20, resize_y=20).evaluate(),
                labels.evaluate(),
            )


pipe = pipe_batches()
out = next(pipe)
