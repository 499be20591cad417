# expect: converted
# data: tfrecord
"""A `Pipeline` subclass over a TFRecord file, the shape of the ImageNet TFRecord examples: the
reader gives a dict of features (`inputs["image/encoded"]`), it shuffles without a seed of its own,
and a random crop position comes from another operator. The pipeline gave the reader a seed derived
from its own, the reader being the first operator DALI collects from the first output: the
migrated reader gets that very seed and reads the records in the same order."""

import os
import sys

import nvidia.dali.ops as ops
import nvidia.dali.tfrecord as tfrec
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator


class TFRecordPipeline(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, path, index_path, seed):
        super().__init__(batch_size, num_threads, device_id, seed=seed)
        self.input = ops.readers.TFRecord(
            path=path,
            index_path=index_path,
            features={
                "image/encoded": tfrec.FixedLenFeature((), tfrec.string, ""),
                "image/class/label": tfrec.FixedLenFeature([1], tfrec.int64, -1),
                "features": tfrec.FixedLenFeature([3], tfrec.float32, 0.0),
            },
            random_shuffle=True,
            initial_fill=4,
        )
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.resize = ops.Resize(device="cpu", resize_x=24, resize_y=24)
        self.cmn = ops.CropMirrorNormalize(device="cpu", dtype=types.FLOAT, crop=(16, 16), mean=[128.0], std=[64.0])
        self.uniform = ops.random.Uniform(range=(0.0, 1.0))

    def define_graph(self):
        inputs = self.input(name="Reader")
        images = self.resize(self.decode(inputs["image/encoded"]))
        images = self.cmn(images, crop_pos_x=self.uniform())
        return images, inputs["image/class/label"], inputs["features"]


root = sys.argv[1]
for seed in (7, 8):
    pipe = TFRecordPipeline(4, 1, None, os.path.join(root, "train.tfrecord"), os.path.join(root, "train.idx"), seed)
    pipe.build()
    loader = DALIGenericIterator([pipe], ["data", "label", "features"], reader_name="Reader")
    for epoch in range(2):
        for step, batch in enumerate(loader):
            out = batch[0]
            print(seed, epoch, step, tuple(out["data"].shape), out["label"].view(-1).tolist())
            print("  ", [round(v, 4) for v in out["features"][:, 0].tolist()])
        loader.reset()
