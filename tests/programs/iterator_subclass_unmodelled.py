# expect: blocked NDD411
# data: jpeg
"""A class deriving from DALI's iterator that reads `self._last_batch_policy` (DALI keeps a
`LastBatchPolicy` there; the support module's iterator does not): its base stays DALI's, and the
pipeline given to it stays in pipeline mode, with a TODO at the class saying why."""

import math
import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return fn.resize(fn.decoders.image(jpegs), resize_x=4, resize_y=4), labels


class Counted(DALIGenericIterator):
    def __init__(self, pipelines, dataset_size, *args, **kwargs):
        super().__init__(pipelines, *args, **kwargs)
        self.dataset_size = dataset_size

    def __len__(self):
        if self._last_batch_policy != LastBatchPolicy.DROP:
            return math.ceil(self.dataset_size / self.batch_size)
        return self.dataset_size // self.batch_size


pipe = train_pipe(sys.argv[1])
loader = Counted(pipe, 10, ["image", "label"], reader_name="Reader")
print(len(loader))
for batch in loader:
    print(batch[0]["label"].flatten().tolist())
