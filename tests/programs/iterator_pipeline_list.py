# expect: converted
# data: jpeg
"""The list form of a PyTorch iterator over one pipeline, with the legacy `fill_last_batch=True`
(FILL) and the pipeline given as `pipelines=`."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def labelled(root):
    jpegs, labels = fn.readers.file(file_root=root, name="files")
    return fn.resize(fn.decoders.image(jpegs), resize_x=4, resize_y=4), labels


pipe = labelled(sys.argv[1])
pipe.build()
loader = DALIGenericIterator(pipelines=[pipe], output_map=["images", "labels"], reader_name="files", fill_last_batch=True)
for epoch in range(3):
    for step, batch in enumerate(loader):
        print(epoch, step, len(batch), batch[0]["images"].shape[0], batch[0]["labels"].flatten().tolist())
    loader.reset()
