# expect: blocked NDD008
# data: jpeg
"""A builder class whose `@pipeline_def` method uses operators made in `__init__`; another method
makes the pipeline (`self.pipeline(...)`) and the program builds and runs what it returns. A call of
a pipeline method is not a call site the migration follows: the method stays in pipeline mode."""

import sys

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


class LabelBuilder:
    def __init__(self, root):
        self.reader = ops.readers.File(file_root=root, random_shuffle=True, seed=7)
        self.to_int64 = ops.Cast(dtype=types.INT64)

    def make(self, batch_size):
        return self.pipeline(batch_size=batch_size, num_threads=1, device_id=None, seed=3)

    @pipeline_def
    def pipeline(self):
        jpegs, labels = self.reader(name="Reader")
        return (self.to_int64(labels),)


pipe = LabelBuilder(sys.argv[1]).make(4)
pipe.build()
for _ in range(4):
    (labels,) = pipe.run()
    print(labels.as_array().ravel().tolist())
