# expect: converted
# data: coco
"""A COCO reader whose outputs are bound to one name: indexed in the graph of a `@pipeline_def`, and
returned whole by a legacy `define_graph`; `pipe.run()` returned one batch per reader output."""

import os
import sys

import nvidia.dali.ops as ops
from nvidia.dali import fn, pipeline_def
from nvidia.dali.pipeline import Pipeline


@pipeline_def(batch_size=2, num_threads=1)
def detection(root):
    out = fn.readers.coco(
        file_root=os.path.join(root, "images"),
        annotations_file=os.path.join(root, "annotations.json"),
        ratio=True,
        skip_empty=True,
        image_ids=True,
        seed=3,
        random_shuffle=True,
    )
    images = fn.decoders.image(out[0], device="cpu")
    images = fn.resize(images, resize_x=16, resize_y=16)
    return images, out[1], out[2], out[3]


class RawPipe(Pipeline):
    """The legacy API: `define_graph` may return the reader's list of outputs as it is."""

    def __init__(self, batch_size, num_threads, device_id, root):
        super().__init__(batch_size, num_threads, device_id)
        self.input = ops.readers.COCO(
            file_root=os.path.join(root, "images"), annotations_file=os.path.join(root, "annotations.json")
        )

    def define_graph(self):
        output = self.input(name="Reader", ltrb=True)
        return output


pipe = detection(sys.argv[1], device_id=None)
pipe.build()
for step in range(5):
    outputs = pipe.run()
    images, boxes, labels, ids = outputs
    print(step, len(outputs), images.at(0).shape, boxes.at(0).round(3).tolist(), labels.at(1).tolist(), ids.at(0).tolist())

whole = RawPipe(3, 1, None, sys.argv[1])
whole.build()
for step in range(4):
    outputs = whole.run()
    print(step, len(outputs), len(outputs[0]), outputs[1].at(2).tolist(), outputs[2].at(0).tolist())
