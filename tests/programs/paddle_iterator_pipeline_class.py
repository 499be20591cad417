# expect: blocked NDD401
# data: jpeg
"""A `Pipeline` subclass that also defines `__len__` (a number of its own, not its reader's epoch
size), given to PaddlePaddle's iterator with `size=len(pipe)`: the iterator would convert (the
support module's Paddle iterator), but such a `__len__` has no counterpart in a generator
function, so the class is kept in pipeline mode."""

import sys

from nvidia.dali import ops
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.paddle import DALIClassificationIterator


class Train(Pipeline):
    def __init__(self, root):
        super().__init__(batch_size=2, num_threads=1, device_id=None)
        self.files = ops.readers.File(file_root=root, name="Reader")

    def define_graph(self):
        jpegs, labels = self.files()
        return jpegs, labels

    def __len__(self):
        return 4


pipe = Train(sys.argv[1])
pipe.build()
loader = DALIClassificationIterator(pipe, size=len(pipe))
for batch in loader:
    print(batch[0]["label"])
