# expect: converted
# data: jpeg
"""One pipeline function built twice, for training and validation: the training call gives `seed=`
and `device_id=`, the validation call leaves both to DALI's defaults (a random seed, the current
device). The migrated function takes both as keywords with those defaults, so the second call
still runs; neither reader shuffles, so both print the same labels as before."""

import sys

from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


@pipeline_def
def make_pipe(root, training):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader", pad_last_batch=not training)
    data = fn.decoders.image(jpegs, device="cpu", output_type=types.GRAY)
    data = fn.resize(data, resize_x=8, resize_y=8)
    if training:
        data = fn.flip(data, horizontal=fn.random.coin_flip(probability=0.5))
    return data, labels


train_pipe = make_pipe(sys.argv[1], True, batch_size=3, num_threads=2, device_id=None, seed=1)
val_pipe = make_pipe(sys.argv[1], False, batch_size=4, num_threads=2)
train_pipe.build()
val_pipe.build()
train_loader = DALIGenericIterator(
    [train_pipe], ["x", "y"], reader_name="Reader", last_batch_policy=LastBatchPolicy.DROP, auto_reset=True
)
val_loader = DALIGenericIterator(
    [val_pipe], ["x", "y"], reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True
)
for epoch in range(2):
    for i, batch in enumerate(train_loader):
        print("train", epoch, i, tuple(batch[0]["x"].shape), batch[0]["y"].view(-1).tolist())
    for batch in val_loader:
        print("val", epoch, tuple(batch[0]["x"].shape), batch[0]["y"].view(-1).tolist())
