# expect: blocked NDD008
# data: jpeg
"""`Pipeline` subclasses kept as the keys of a dict; the loop over it also stores each class in a
list that other code reads. The pipelines that list's classes may make later are not followed, so
the classes stay as they are, with the use named."""

import sys

import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class Labels(Pipeline):
    def __init__(self, batch_size, root):
        super().__init__(batch_size, 1, None)
        self.input = ops.readers.File(file_root=root)

    def define_graph(self):
        jpegs, labels = self.input()
        return labels


class ShuffledLabels(Pipeline):
    def __init__(self, batch_size, root):
        super().__init__(batch_size, 1, None)
        self.input = ops.readers.File(file_root=root, random_shuffle=True, seed=5)

    def define_graph(self):
        jpegs, labels = self.input()
        return labels


sizes = {Labels: 2, ShuffledLabels: 3}
seen = []
for cls in sizes:
    seen.append(cls)
    pipe = cls(sizes[cls], sys.argv[1])
    pipe.build()
    print(cls.__name__, pipe.run()[0].as_array().ravel().tolist())

again = seen[0](2, sys.argv[1])
again.build()
print(again.run()[0].as_array().ravel().tolist())
