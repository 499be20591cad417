# expect: converted
# data: jpeg
"""A legacy pipeline that decodes each JPEG twice (RGB and gray) and normalizes both streams with
one `ops.CropMirrorNormalize` object called on an input set, sharing one `mirror=` argument input; a second
call on a one-element set gives one output, not a list. Pipeline mode runs one operator instance
per input; the migration writes one `ndd` call per input, in the same order."""

import sys

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class TwoStreams(Pipeline):
    def __init__(self, batch_size, root, num_threads=1, device_id=None):
        super().__init__(batch_size, num_threads, device_id, seed=11)
        self.files = ops.readers.File(file_root=root)
        self.rgb = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.gray = ops.decoders.Image(device="cpu", output_type=types.GRAY)
        self.square = ops.Resize(resize_x=24, resize_y=24)
        self.norm = ops.CropMirrorNormalize(
            crop=(20, 20),
            mean=[100.0],
            std=[50.0],
            dtype=types.FLOAT,
            output_layout="CHW",
        )
        self.parity = ops.Cast(dtype=types.INT32)

    def define_graph(self):
        jpegs, labels = self.files()
        colour = self.square(self.rgb(jpegs))
        grey = self.square(self.gray(jpegs))
        mirror = self.parity(labels % 2)  # odd classes mirrored: one flag per sample, shared by both streams
        colour_out, grey_out = self.norm([colour, grey], mirror=mirror)
        plain = self.norm([grey])
        return colour_out, grey_out, plain, mirror, labels


pipe = TwoStreams(batch_size=3, root=sys.argv[1])
pipe.build()
for step in range(3):
    colour, grey, plain, mirror, labels = pipe.run()
    print(
        step,
        colour.at(0).shape,
        grey.at(0).shape,
        [round(float(colour.at(i).sum()), 2) for i in range(3)],
        [round(float(colour.at(i)[0, 0, 0]), 3) for i in range(3)],  # the first pixel: mirrored or not
        [round(float(grey.at(i)[0, 0, 0]), 3) for i in range(3)],
        [round(float(plain.at(i)[0, 0, 0]), 3) for i in range(3)],
        mirror.as_array().ravel().tolist(),
        labels.as_array().ravel().tolist(),
    )
