# expect: blocked NDD008
# data: jpeg
"""`as_tensor()` handed to DALI's `feed_ndarray`, which reads DALI's type of the `TensorCPU`: the
numpy array it would become has a numpy dtype. The pipeline stays as it is."""

import sys

import torch
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import feed_ndarray


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def labelled(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return fn.resize(fn.decoders.image(jpegs), resize_x=5, resize_y=3), labels


def main(root):
    pipe = labelled(root)
    pipe.build()
    for _ in range(3):
        images, labels = pipe.run()
        target = torch.empty(labels.as_tensor().shape(), dtype=torch.int32)
        feed_ndarray(labels.as_tensor(), target)
        print(target.view(-1).tolist(), len(images))


if __name__ == "__main__":
    main(sys.argv[1])
