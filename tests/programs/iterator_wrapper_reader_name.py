# expect: converted
# data: jpeg
"""A wrapper class whose iterator names the reader (`reader_name="Reader"`, `auto_reset=True`): the
pipeline given to the class comes with its reader's metadata, `(pipe_meta, pipe)`, as the support
module's iterator takes it, so epochs, `len()` and the last batch are DALI's."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin import pytorch


@pipeline_def(batch_size=5, num_threads=1, device_id=None, seed=3)
def images(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, name="Reader")
    return fn.resize(fn.decoders.image(jpegs), resize_x=12, resize_y=10), labels


class Loader:
    def __init__(self, pipe, policy=pytorch.LastBatchPolicy.PARTIAL):
        self.it = pytorch.DALIGenericIterator(
            pipe, ["image", "label"], reader_name="Reader", auto_reset=True, last_batch_policy=policy
        )

    def __len__(self):
        return len(self.it)

    def __iter__(self):
        for data in self.it:
            yield data[0]["image"], data[0]["label"]


pipe = images(sys.argv[1])
pipe.build()
loader = Loader(pipe)
print("batches", len(loader))
for epoch in range(3):
    for image, label in loader:
        print(epoch, tuple(image.shape), label.view(-1).tolist())
