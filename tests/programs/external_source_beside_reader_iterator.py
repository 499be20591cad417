# expect: converted
# data: audio
"""A masking source that never ends (`cycle="quiet"`) beside a file reader, in a pipeline given to a
PyTorch iterator by its reader's name: the epochs come from the reader, and the source, under an
`if` on the pipeline function's parameters, is drawn once per batch across them."""

import sys

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy

BATCH = 4


def time_masks():
    draw = np.random.default_rng(23)
    for _ in range(3):
        yield ([np.array([draw.random()], dtype=np.float32) for _ in range(BATCH)],
               [np.array([float(draw.integers(3, 12))], dtype=np.float32) for _ in range(BATCH)])


@pipeline_def(batch_size=BATCH, num_threads=1, device_id=None)
def masked_pipe(root, augment, masks=None):
    encoded, label = fn.readers.file(file_root=root, file_list=root + "/file_list.txt", name="Reader")
    audio, _ = fn.decoders.audio(encoded, dtype=types.FLOAT, downmix=True)
    spec = fn.spectrogram(audio, nfft=64, window_length=64, window_step=32)
    spec = fn.pad(spec, axes=[1], fill_value=-1.0, align=8)
    if augment:
        start, width = fn.external_source(source=masks, num_outputs=2, cycle="quiet")
        spec = fn.erase(spec, anchor=start, shape=width, axes=[1], fill_value=0, normalized_anchor=True)
    return spec, label


pipe = masked_pipe(sys.argv[1], True, masks=time_masks)
pipe.build()
loader = DALIGenericIterator(pipe, ["spec", "label"], reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL)
for epoch in range(3):
    for step, batch in enumerate(loader):
        spec = batch[0]["spec"]
        print(epoch, step, tuple(spec.shape), int((spec == 0).sum()), round(float(spec.double().sum()), 2),
              batch[0]["label"].flatten().tolist())
    loader.reset()
