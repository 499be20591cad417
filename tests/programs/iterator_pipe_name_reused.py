# expect: converted
# data: jpeg
"""The ResNet-50 example's older lineage: the train pipeline and then the validation pipeline, of two
pipeline functions, bound in turn to one name `pipe`, each built and read for its epoch size right
after, each given to its own iterator; a training loop over both for two epochs."""

import sys

from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy


@pipeline_def(num_threads=1, device_id=None, seed=12)
def train_pipe(root, crop):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, pad_last_batch=True, name="Reader")
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    images = fn.resize(images, resize_x=crop, resize_y=crop)
    return images, labels


@pipeline_def(num_threads=1, device_id=None)
def val_pipe(root, crop):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=False, name="Reader")
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    images = fn.resize(images, resize_x=crop, resize_y=crop)
    return images, labels


def main(root, batch_size):
    pipe = train_pipe(root, 8, batch_size=batch_size)
    pipe.build()
    train_loader = DALIClassificationIterator(pipe, size=int(pipe.epoch_size("Reader")))

    pipe = val_pipe(root, 8, batch_size=batch_size)
    pipe.build()
    val_loader = DALIClassificationIterator(
        pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True
    )
    print("samples", pipe.epoch_size("Reader"), "steps", len(train_loader), len(val_loader))
    for epoch in range(2):
        for i, data in enumerate(train_loader):
            print("train", epoch, i, data[0]["label"].flatten().tolist())
        train_loader.reset()
        for i, data in enumerate(val_loader):
            print("val", epoch, i, data[0]["data"].shape[0], data[0]["label"].flatten().tolist())


main(sys.argv[1], 4)
