# expect: blocked NDD008
# data: jpeg
"""A `Pipeline` base class and two subclasses, one chosen by a flag (`pipe_class = Train` or
`= Check`), whose pipeline feeds PaddlePaddle's iterator: the iterator would convert (the support
module's Paddle iterator), but a class held in a variable is not followed, so the family stays in
pipeline mode, with one NDD008 at the base naming the subclass."""

import sys

from nvidia.dali import ops
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.paddle import DALIGenericIterator


class Images(Pipeline):
    def __init__(self, root, batch_size=2, shuffle=True):
        super().__init__(batch_size, 1, None, seed=3)
        self.files = ops.readers.File(file_root=root, random_shuffle=shuffle, name="Reader")
        self.decode = ops.decoders.Image()


class Train(Images):
    def __init__(self, root):
        super().__init__(root, batch_size=4)
        self.flip = ops.Flip(horizontal=1)

    def define_graph(self):
        jpegs, labels = self.files()
        return self.flip(self.decode(jpegs)), labels


class Check(Images):
    def define_graph(self):
        jpegs, labels = self.files()
        return self.decode(jpegs), labels


def loader(root, training):
    pipe_class = None
    if training:
        pipe_class = Train
    else:
        pipe_class = Check
    pipe = pipe_class(root)
    pipe.build()
    return DALIGenericIterator([pipe], ["image", "label"], reader_name="Reader")


for batch in loader(sys.argv[1], training=True):
    print(batch[0]["label"])
    break
