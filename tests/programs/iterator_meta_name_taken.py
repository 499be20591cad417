# expect: blocked NDD008
# data: jpeg
"""The epoch-aware shape keeps the reader's metadata in `<pipe>_meta` (`pipe_meta, pipe = p(...)`);
here `pipe_meta` is the program's own name, printed after the loop. Binding the metadata there would
change what the program prints, so the pipeline stays in pipeline mode and the finding says to
rename it."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIClassificationIterator


@pipeline_def
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=3, name="Reader")
    return fn.resize(fn.decoders.image(jpegs, device="cpu"), resize_x=8, resize_y=8), labels


pipe_meta = {"experiment": "baseline"}
pipe = train_pipe(sys.argv[1], batch_size=4, num_threads=1, device_id=None)
loader = DALIClassificationIterator(pipe, reader_name="Reader")
for data in loader:
    print(data[0]["label"].view(-1).tolist())
print(pipe_meta)
