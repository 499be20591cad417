# expect: converted
# data: jpeg
"""A PyTorch iterator with the legacy `fill_last_batch` flag (PARTIAL in DALI's terms) and the default
`last_batch_padded=False` spelled out."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIClassificationIterator


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def train(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    images = fn.decoders.image(jpegs)
    return fn.resize(images, resize_x=8, resize_y=8), labels


pipe = train(sys.argv[1])
pipe.build()
loader = DALIClassificationIterator(pipe, reader_name="Reader", fill_last_batch=False, last_batch_padded=False)
for epoch in range(2):
    for batch in loader:
        print(epoch, batch[0]["label"].flatten().tolist())
    loader.reset()
