# expect: converted
# data: jpeg
"""The iterator read by a builtin inside the epoch loop (`type(loader)`): the builtin reads the
iterator itself, not one pass over it, so it cannot become one epoch's generator (`next(loader)`
there started another epoch at each batch); the support module's iterator stands in for DALI's."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def labelled(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return fn.resize(fn.decoders.image(jpegs), resize_x=2, resize_y=2), labels


pipe = labelled(sys.argv[1])
pipe.build()
loader = DALIGenericIterator(pipe, ["image", "label"], reader_name="Reader", auto_reset=True)
for epoch in range(2):
    for batch in loader:
        print(epoch, type(loader).__name__, batch[0]["label"].view(-1).tolist())
