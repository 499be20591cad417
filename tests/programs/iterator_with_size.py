# expect: converted
# data: jpeg
"""A PyTorch iterator with an explicit `size=` and no `reader_name` (DALI's older form), PARTIAL
through the legacy `fill_last_batch=False`: each epoch is that many samples of the endless stream."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIClassificationIterator


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def pairs(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return fn.resize(fn.decoders.image(jpegs), resize_x=4, resize_y=4), labels


pipe = pairs(sys.argv[1])
pipe.build()
loader = DALIClassificationIterator(pipe, size=8, fill_last_batch=False)
for epoch in range(3):
    for batch in loader:
        print(epoch, batch[0]["data"].shape[0], batch[0]["label"].flatten().tolist())
    loader.reset()
