# expect: converted
# data: jpeg
"""The SSD lineage's shape: an operator object whose argument is computed in `__init__`
(`anchors=default_boxes.as_ltrb_list()`, here a resize target): pipeline mode computed it once, when
the object was made. The migrated generator computes it once too, before its loop, and each batch's
call takes it, rather than calling it again for every batch."""

import sys

import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline

CALLS = []


def target_size():
    CALLS.append(1)
    return [6.0, 4.0]


class Sized(Pipeline):
    def __init__(self, root):
        super().__init__(batch_size=2, num_threads=1, device_id=None)
        self.input = ops.readers.File(file_root=root)
        self.decode = ops.decoders.Image()
        self.resize = ops.Resize(size=target_size())

    def define_graph(self):
        jpegs, labels = self.input()
        return self.resize(self.decode(jpegs)), labels


pipe = Sized(sys.argv[1])
pipe.build()
for step in range(4):
    images, labels = pipe.run()
    print(step, [images.at(i).shape for i in range(2)], labels.as_array().ravel().tolist())
print("computed", len(CALLS), "time(s)")
