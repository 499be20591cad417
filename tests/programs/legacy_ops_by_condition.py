# expect: converted
# data: jpeg
"""The DeepLearningExamples shape: a legacy `Pipeline` subclass whose `__init__` chooses its operators
with a Python `if` (a constructor parameter, a module constant), fixed when the pipeline is built:
the same operator with other arguments, another operator, a device name, an operator or `None`."""

import sys

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline

SHARDED = False


class HybridTrainPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir, crop, dali_cpu=False, flip=True):
        super(HybridTrainPipe, self).__init__(batch_size, num_threads, device_id, seed=12)
        if SHARDED:
            self.input = ops.FileReader(file_root=data_dir, shard_id=0, num_shards=2, random_shuffle=True, seed=5)
        else:
            self.input = ops.FileReader(file_root=data_dir, random_shuffle=True, seed=5)
        if dali_cpu:
            dali_device = "cpu"
            decoder_device = "cpu"
            self.decode = ops.ImageDecoder(device=decoder_device, output_type=types.RGB)
        else:
            dali_device = "gpu"
            decoder_device = "mixed"
            # the GPU decoder keeps big buffers
            self.decode = ops.ImageDecoder(
                device=decoder_device,
                output_type=types.RGB,
                device_memory_padding=211025920,
            )
        if crop > 64:
            self.res = ops.Resize(device=dali_device, resize_x=crop, resize_y=crop)
        elif dali_cpu:  # another operator in this branch
            self.res = ops.RandomResizedCrop(device="cpu", size=crop)
        else:
            self.res = ops.Resize(device=dali_device, resize_shorter=crop)
        self.flip = ops.Flip(device=dali_device, horizontal=1) if flip else None
        self.blur = None if flip else ops.GaussianBlur(device=dali_device, window_size=3)
        self.cmnp = ops.CropMirrorNormalize(device=dali_device, dtype=types.FLOAT, crop=(crop, crop))
        self.coin = ops.CoinFlip(probability=0.5)

    def define_graph(self):
        rng = self.coin()
        self.jpegs, self.labels = self.input(name="Reader")
        images = self.res(self.decode(self.jpegs))
        if self.flip:
            images = self.flip(images)
        if self.blur is not None:
            images = self.blur(images)
        output = self.cmnp(images, mirror=rng)
        return [output, self.labels]


pipe = HybridTrainPipe(3, 1, None, sys.argv[1], 24, dali_cpu=True)
pipe.build()
for step in range(4):
    images, labels = pipe.run()
    print(step, len(images), images.at(0).shape, labels.as_array().ravel().tolist())
