# expect: converted
# data: jpeg
"""Checkpointing declared in the decorator: run a few batches, checkpoint (to a file and to bytes),
restore each into a new pipeline, and check it continues where the first one stopped.

The random flips differ between the modes (the same seed is not the same stream), so they are only
compared with the uninterrupted run's; labels come from the seeded reader shuffle and are printed."""

import os
import sys
import tempfile

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=5, enable_checkpointing=True)
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=7, name="Reader")
    flip = fn.random.coin_flip()
    images = fn.resize(fn.decoders.image(jpegs), size=[8, 8])
    return labels, flip, images


root = sys.argv[1]
pipe = train_pipe(root)
pipe.build()
for step in range(5):  # 20 samples of 13: mid-epoch, in the second epoch
    labels, flip, images = pipe.run()
    print("run", step, labels.as_array().ravel().tolist(), images.as_array().shape)
path = os.path.join(tempfile.mkdtemp(), "pipe.ckpt")
pipe.checkpoint(path)
state = pipe.checkpoint()
expected = []
for step in range(4):
    labels, flip, images = pipe.run()
    expected.append((labels.as_array().ravel().tolist(), flip.as_array().ravel().tolist()))
    print("continued", step, expected[-1][0])

with open(path, "rb") as f:
    saved = f.read()
from_file = train_pipe(root, checkpoint=saved)
from_file.build()
from_bytes = train_pipe(root, checkpoint=state)
from_bytes.build()
for step in range(4):
    labels, flip, images = from_file.run()
    got = (labels.as_array().ravel().tolist(), flip.as_array().ravel().tolist())
    print("from file", step, got[0], got == expected[step])
    labels, flip, images = from_bytes.run()
    got = (labels.as_array().ravel().tolist(), flip.as_array().ravel().tolist())
    print("from bytes", step, got[0], got == expected[step])
