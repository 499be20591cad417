# expect: converted
# data: jpeg
"""The ResNet-50 example's lineage: a `Pipeline` subclass created with `seed=`, its shuffling
`ops.FileReader` without a seed of its own (pipeline mode derives one from the pipeline's), a device
chosen by a conditional expression that may be "mixed" and is read for the padding too. The migrated
reader must shuffle in the same order, epoch after epoch."""

import sys

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class HybridTrainPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir, crop, dali_cpu=True):
        super(HybridTrainPipe, self).__init__(batch_size, num_threads, device_id, seed=12)
        self.input = ops.FileReader(file_root=data_dir, random_shuffle=True)
        dali_device = "cpu" if dali_cpu else "gpu"
        decoder_device = "cpu" if dali_cpu else "mixed"
        host_memory_padding = 140544512 if decoder_device == "mixed" else 0
        self.decode = ops.ImageDecoder(
            device=decoder_device, output_type=types.RGB, host_memory_padding=host_memory_padding
        )
        self.res = ops.Resize(device=dali_device, resize_x=crop, resize_y=crop)

    def define_graph(self):
        self.jpegs, self.labels = self.input(name="Reader")
        images = self.decode(self.jpegs)
        images = self.res(images)
        return [images, self.labels]


pipe = HybridTrainPipe(3, 1, None, sys.argv[1], 16)
pipe.build()
for step in range(6):
    images, labels = pipe.run()
    print(step, images.as_tensor().shape(), labels.as_array().ravel().tolist())
