# expect: converted
# data: none
"""A classification iterator told the epoch's size (`size=`, the older form without `reader_name`)
over an external source whose generator ends before that size: DALI's iterator stops where the
source stops, and the epochs after it are empty. The migrated loop stops there too."""

import numpy as np
from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.plugin.pytorch import DALIClassificationIterator


def pictures():
    for i in range(11):
        yield np.full((4, 4, 3), i, dtype=np.uint8), np.array([i % 3], dtype=np.int64)


@pipeline_def(batch_size=4, num_threads=2, device_id=None)
def picture_pipe():
    image, label = fn.external_source(source=pictures, num_outputs=2, batch=False, dtype=[types.UINT8, types.INT64])
    image = fn.crop_mirror_normalize(image, dtype=types.FLOAT, output_layout="CHW", mean=[1.0, 2.0, 3.0], std=[2.0] * 3)
    return image, label


pipe = picture_pipe()
pipe.build()
loader = DALIClassificationIterator(pipe, size=16, auto_reset=True)
for epoch in range(3):
    seen = 0
    for i, data in enumerate(loader):
        seen += 1
        print(epoch, i, tuple(data[0]["data"].shape), data[0]["label"].view(-1).tolist())
    print("epoch", epoch, "batches", seen)
