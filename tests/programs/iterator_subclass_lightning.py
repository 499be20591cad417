# expect: converted
# data: jpeg
"""The Lightning tutorial's shape: a class deriving from DALI's iterator whose `__init__` forwards
the pipeline and `**kwargs` to `super().__init__`, and whose `__next__` gives the first (only)
pipeline's dict, `super().__next__()[0]`. Its base becomes the support module's iterator and the
pipeline migrates with its reader's metadata; `len()`, the epochs and `auto_reset` stay DALI's."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader", random_shuffle=True, seed=5)
    return fn.resize(fn.decoders.image(jpegs), resize_x=6, resize_y=4), labels


class LightningWrapper(DALIGenericIterator):
    """One pipeline per process: the trainer wants a dict, not a list of them."""

    def __init__(self, pipe, **kwargs):
        super().__init__(pipe, **kwargs)

    def __next__(self):
        out = super().__next__()[0]
        return out


pipe = train_pipe(sys.argv[1])
loader = LightningWrapper(
    pipe,
    output_map=["image", "label"],
    reader_name="Reader",
    auto_reset=True,
    last_batch_policy=LastBatchPolicy.PARTIAL,
)
print("steps", len(loader), "batch", loader.batch_size)
for epoch in range(3):
    for batch in loader:
        print(epoch, tuple(batch["image"].shape), batch["label"].flatten().tolist())
