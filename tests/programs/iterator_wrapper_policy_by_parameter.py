# expect: converted
# data: jpeg
"""A wrapper class that imports DALI's iterator in its `__init__` and computes some of its
arguments from its parameters (`last_batch_policy=DROP if train_iterator else PARTIAL`,
`reader_name=reader_name`), as the speech-recognition loaders of NVIDIA's examples do: read at each
call with the call's arguments; the iterator it makes is the support module's, the import moved
out of `__init__`, and the pipeline comes with its reader's metadata."""

import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=3, num_threads=1, device_id=None, seed=9)
def samples(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, name="Reader")
    return fn.resize(fn.decoders.image(jpegs), resize_x=6, resize_y=4), labels


class LabelsIterator(object):
    """Gives the labels of each batch, as lists."""

    def __init__(self, dali_pipelines, batch_size, reader_name, train_iterator: bool):
        self.batch_size = batch_size
        from nvidia.dali.plugin.pytorch import DALIGenericIterator
        from nvidia.dali.plugin.base_iterator import LastBatchPolicy

        self.dali_it = DALIGenericIterator(
            dali_pipelines, ["image", "label"], reader_name=reader_name,
            dynamic_shape=True, auto_reset=True,
            last_batch_policy=(LastBatchPolicy.DROP if train_iterator else LastBatchPolicy.PARTIAL))

    def __next__(self):
        data = self.dali_it.__next__()
        return data[0]["label"].view(-1).tolist()

    def next(self):
        return self.__next__()

    def __iter__(self):
        return self

    def __len__(self):
        return len(self.dali_it)


train = samples(sys.argv[1])
train.build()
val = samples(sys.argv[1], seed=4)
val.build()
train_loader = LabelsIterator([train], 3, "Reader", train_iterator=True)
val_loader = LabelsIterator([val], 3, "Reader", train_iterator=False)
print(len(train_loader), len(val_loader))
for epoch in range(2):
    print(epoch, list(train_loader), list(val_loader))
