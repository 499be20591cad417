# expect: converted
# data: jpeg
# gpu: NDD_PROGRAM_ON_GPU
"""Arithmetic of CPU random numbers with images that go to the GPU when the program asks for it
(`if on_gpu: images = images.gpu()`), through a helper called with GPU images and with a CPU number
(nnUNet's `random_augmentation` shape). Pipeline mode moved the CPU operands to the GPU; dynamic mode
refuses to mix devices, so the migration moves them: `.gpu()` where the partner is always on the GPU,
`to_gpu_with(operand, partner)` where the run decides. The tests run it on the CPU, where nothing
moves; with NDD_PROGRAM_ON_GPU=1 (benchmarks/gpu_programs.py, from gpu_checks.sh) it takes the GPU
path, where each move is needed."""

import os
import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types


def maybe(probability, augmented, original):
    condition = fn.cast(fn.random.coin_flip(probability=probability), dtype=types.DALIDataType.BOOL)
    neg_condition = condition ^ True
    return condition * augmented + neg_condition * original


@pipeline_def(batch_size=3, num_threads=1, device_id=None, seed=8)
def train_pipe(root, on_gpu):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=4)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, resize_x=8, resize_y=8)
    if on_gpu:
        images = images.gpu()
    images = fn.cast(images, dtype=types.FLOAT)
    images = maybe(0.5, images * 0.5, images)
    scale = maybe(0.5, fn.random.uniform(range=(0.5, 1.5)), 1.0)
    brightened = images * scale
    gpu_images = fn.cast(images.gpu(), dtype=types.FLOAT) if on_gpu else images
    return brightened, gpu_images * scale, labels


on_gpu = os.environ.get("NDD_PROGRAM_ON_GPU") == "1"
pipe = train_pipe(sys.argv[1], on_gpu=on_gpu, device_id=0 if on_gpu else None)
pipe.build()
for step in range(3):
    brightened, scaled, labels = pipe.run()
    if on_gpu:
        brightened, scaled = brightened.as_cpu(), scaled.as_cpu()
    print(step, np.asarray(brightened.at(0)).shape, np.asarray(scaled.at(1)).shape, labels.as_array().ravel().tolist())
