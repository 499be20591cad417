# expect: converted
# data: jpeg
"""A DALI iterator handed to code the migration does not read (a method of an object; an imported
validation function is the same): it may ask the length, reset, or loop over several epochs, so it
gets the support module's iterator, which keeps that interface, rather than one epoch."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy


@pipeline_def(batch_size=3, num_threads=1, device_id=None, seed=4)
def val_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, name="Reader")
    return fn.resize(fn.decoders.image(jpegs), resize_x=6, resize_y=6), labels


class Meter:
    def run(self, loader, epochs):
        print("steps per epoch", len(loader))
        for epoch in range(epochs):
            for step, data in enumerate(loader):
                print(epoch, step, tuple(data[0]["data"].shape), data[0]["label"].view(-1).tolist())
            loader.reset()


pipe = val_pipe(sys.argv[1])
pipe.build()
val_loader = DALIClassificationIterator(pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL)
meter = Meter()
meter.run(val_loader, 2)
