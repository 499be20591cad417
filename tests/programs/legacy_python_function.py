# expect: converted
# data: jpeg
"""Legacy `ops.PythonFunction` objects: a function of the module that only reads its sample, one that
changes it in place (the migration hands it a copy), a callable object made once, a function with no
input (called once per sample), a batch-processing one with two outputs and layouts, a lambda."""

import sys

import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline

made = 0
no_input_calls = 0


def channel_means(image):
    return image.reshape(-1, image.shape[-1]).mean(axis=0).astype(np.float32)


def darken_in_place(image):
    image //= 2
    return image


class Scaler:
    """A callable object: its state lives as long as the operator does."""

    def __init__(self, factor):
        global made
        made += 1
        self.factor = factor

    def __call__(self, image):
        return (image.astype(np.float32) * self.factor).astype(np.uint8)


def ticket():
    global no_input_calls
    no_input_calls += 1
    return np.array([no_input_calls], dtype=np.int32)


def halves(images):
    tops = [image[: image.shape[0] // 2] for image in images]
    bottoms = [image[image.shape[0] // 2 :] for image in images]
    return tops, bottoms


class ImagePipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, root):
        super().__init__(batch_size, num_threads, device_id, exec_async=False, exec_pipelined=False)
        self.input = ops.readers.File(file_root=root)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.resize = ops.Resize(resize_x=16, resize_y=12)
        self.small = ops.Resize(resize_x=8, resize_y=6)
        self.means = ops.PythonFunction(function=channel_means)
        self.darken = ops.PythonFunction(function=darken_in_place)
        self.scale = ops.PythonFunction(function=Scaler(0.5))
        self.ticket = ops.PythonFunction(function=ticket)
        self.split = ops.PythonFunction(
            function=halves,
            num_outputs=2,
            batch_processing=True,
            output_layouts=["HWC", "HWC"],
        )
        self.flip = ops.PythonFunction(function=lambda image: np.ascontiguousarray(image[:, ::-1]))

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        decoded = self.decode(jpegs)
        images = self.resize(decoded)
        dark = self.darken(self.small(decoded))  # its own input: in DALI later readers see the change
        top, bottom = self.split(images)
        return images, self.means(images), dark, self.scale(images), self.ticket(), top, bottom, self.flip(images)


pipe = ImagePipe(3, 1, None, sys.argv[1])
pipe.build()
for step in range(3):
    images, means, dark, scaled, tickets, top, bottom, flipped = pipe.run()
    print(step, [int(np.asarray(images.at(i)).sum()) for i in range(3)])
    print("  means", [np.round(np.asarray(means.at(i)), 2).tolist() for i in range(3)])
    print("  dark", [int(np.asarray(dark.at(i)).sum()) for i in range(3)])
    print("  scaled", [int(np.asarray(scaled.at(i)).sum()) for i in range(3)])
    print("  tickets", [np.asarray(tickets.at(i)).tolist() for i in range(3)])
    print("  halves", [np.asarray(top.at(i)).shape for i in range(3)], [np.asarray(bottom.at(i)).shape for i in range(3)])
    print("  layout", top.layout(), "flipped", int(np.asarray(flipped.at(0))[:, 0].sum()))
print("made", made, "calls", no_input_calls)
