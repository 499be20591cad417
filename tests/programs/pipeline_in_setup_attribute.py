# expect: converted
# data: jpeg
"""A data module in the shape of DALI's Lightning tutorial: `setup()` (not `__init__`) makes the
pipelines and keeps them in attributes, wraps each in a subclass of DALI's iterator, and the
`*_dataloader()` methods hand out the wrappers. Each attribute is stored once, by one method, and
read only by the class's methods: it is followed like a name."""

import sys

from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy


@pipeline_def
def images(root, training=True):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=training, seed=5, name="Reader")
    decoded = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    return fn.resize(decoded, resize_x=16, resize_y=16), labels


class Wrapper(DALIClassificationIterator):
    def __init__(self, *kargs, **kvargs):
        super().__init__(*kargs, **kvargs)

    def __next__(self):
        out = super().__next__()[0]
        return [out[k] for k in self.output_map]


class DataModule:
    train_pipe = None

    def __init__(self, root, batch_size):
        self.root = root
        self.batch_size = batch_size

    def setup(self, stage=None):
        self.train_pipe = images(self.root, batch_size=self.batch_size, num_threads=1, device_id=None)
        self.val_pipe = images(self.root, False, batch_size=self.batch_size, num_threads=1, device_id=None)
        self.train_loader = Wrapper(self.train_pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL)
        self.val_loader = Wrapper(self.val_pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL)

    def ready(self):
        return self.train_pipe is not None

    def train_dataloader(self):
        return self.train_loader

    def val_dataloader(self):
        return self.val_loader


module = DataModule(sys.argv[1], batch_size=4)
print("ready before setup:", module.ready())
module.setup()
print("ready after setup:", module.ready())
for epoch in range(2):
    for step, (x, y) in enumerate(module.train_dataloader()):
        print("train", epoch, step, tuple(x.shape), y.flatten().tolist())
    for step, (x, y) in enumerate(module.val_dataloader()):
        print("val", epoch, step, tuple(x.shape), y.flatten().tolist())
