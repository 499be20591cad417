# expect: converted
# data: audio
"""Spectrogram frame counts from `fn.shapes`: the default INT64 lengths, rounded up to a multiple of
the stacking factor by arithmetic; `dtype=types.INT32` shapes fed to `fn.pad` as its `shape=`
argument input; the shape of a scalar (a reduction), which is empty."""

import sys

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


def _round_up(count, step):
    return (count + (step - 1)) // step


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def frames_pipe(root, stack=2):
    encoded, label = fn.readers.file(file_root=root, file_list=root + "/file_list.txt", name="Reader")
    audio, rate = fn.decoders.audio(encoded, dtype=types.FLOAT, downmix=True)
    spec = fn.spectrogram(audio, nfft=128, window_length=128, window_step=64)
    frames = fn.shapes(spec)
    if stack != 1:
        frames = _round_up(frames, stack)
    extent = fn.shapes(spec, dtype=types.INT32)
    padded = fn.pad(spec, axes=[0, 1], shape=extent + 3, fill_value=-1.0)
    energy = fn.shapes(fn.reductions.sum(spec, axes=[0, 1]), device="cpu")
    return padded, frames, extent, energy, label


pipe = frames_pipe(sys.argv[1])
pipe.build()
for step in range(4):
    padded, frames, extent, energy, label = pipe.run()
    for i in range(len(padded)):
        print(step, i, padded.at(i).shape, float(padded.at(i)[-1, -1]), frames.at(i).tolist(), frames.at(i).dtype,
              extent.at(i).tolist(), extent.at(i).dtype, energy.at(i).shape, energy.at(i).dtype, label.at(i).tolist())
