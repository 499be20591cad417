# expect: converted
# data: audio
"""A speech loader: a file reader drives the epochs, and a masking source that never ends
(`cycle=True`) gives erase regions, drawn once per batch, only when a build-time condition on the
pipeline function's parameters holds. The caller passes the generator function, or None when
masking is off; the generator function yields two batches and DALI calls it again when it ends."""

import sys

import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(num_threads=1, device_id=None)
def speech_pipe(training, root, masking=False, regions=None, shard_id=0, n_shards=1):
    encoded, label = fn.readers.file(file_root=root, file_list=root + "/file_list.txt", shard_id=shard_id,
                                     num_shards=n_shards, name="Reader")
    audio, _ = fn.decoders.audio(encoded, dtype=types.FLOAT, downmix=True)
    spec = fn.spectrogram(audio, nfft=128, window_length=128, window_step=64)
    features = fn.to_decibels(spec, cutoff_db=-80.0)
    features = fn.pad(features, axes=[1], fill_value=0, align=4)
    if training and masking:
        starts, extents = fn.external_source(source=regions, num_outputs=2, cycle=True)
        features = fn.erase(features, anchor=starts, shape=extents, axes=[0, 1], fill_value=0,
                            normalized_anchor=True)
    return features, label


def build(root, training, masking, batch_size):
    def erase_regions():
        # seeded here: every call of the generator function gives the same two batches
        draw = np.random.default_rng(11)
        for _ in range(2):
            starts = draw.random((batch_size, 2)).astype(np.float32)
            extents = np.stack([draw.integers(2, 9, batch_size), draw.integers(1, 5, batch_size)], axis=1)
            yield starts, extents.astype(np.float32)

    regions = erase_regions if masking else None
    pipe = speech_pipe(training, root, masking=masking, regions=regions, batch_size=batch_size)
    return pipe


for masking in (True, False):
    pipe = build(sys.argv[1], True, masking, 4)
    pipe.build()
    for step in range(6):
        features, label = pipe.run()
        for i in range(len(features)):
            sample = np.asarray(features.at(i))
            print(masking, step, i, sample.shape, int((sample == 0).sum()), round(float(sample.sum()), 2),
                  label.at(i).tolist())
