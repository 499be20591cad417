# expect: converted
# data: jpeg
"""The DALI iterator is handed to a function of the module that loops over it once per call, one
call per epoch. Another function builds a plain loader under the same name and hands it to the same
function: that value is not the DALI iterator, and stays as it is."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def train(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=5, name="Reader")
    return labels


def run_epoch(epoch, loader):
    seen = []
    for batch in loader:
        seen.append(batch[0]["label"].flatten().tolist())
    print(epoch, seen)


def dali_epochs(root, epochs):
    pipe = train(root)
    pipe.build()
    train_loader = DALIGenericIterator(pipe, ["label"], reader_name="Reader")
    for epoch in range(epochs):
        run_epoch(epoch, train_loader)


def plain_epochs(epochs):
    train_loader = [[{"label": [[7], [8]]}]]
    for epoch in range(epochs):
        print("plain", epoch, len(train_loader))
        for batch in train_loader:
            print(batch[0]["label"])


dali_epochs(sys.argv[1], 2)
plain_epochs(2)
