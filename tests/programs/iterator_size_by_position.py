# expect: converted
# data: jpeg
"""The ImageNet examples' older form: the epoch size given by position and computed from the
pipeline's own reader (`DALIClassificationIterator(pipe, int(pipe.epoch_size("Reader") / world))`):
the size must come from the migrated reader's metadata, not from a pipeline method the generator
does not have."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIClassificationIterator

world = 1


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def pairs(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return fn.resize(fn.decoders.image(jpegs), resize_x=4, resize_y=4), labels


pipe = pairs(sys.argv[1])
pipe.build()
loader = DALIClassificationIterator(pipe, int(pipe.epoch_size("Reader") / world), auto_reset=True)
for epoch in range(2):
    for batch in loader:
        print(epoch, batch[0]["data"].shape[0], batch[0]["label"].flatten().tolist())
