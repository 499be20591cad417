# expect: converted
# data: jpeg
"""Settings computed in the pipeline function from its parameters (`device = "cpu" if dali_cpu
else "gpu"`, `size = crop * 2`) and printed while the graph is built: pipeline mode printed them
once, when the pipeline was built; the migrated generator computes and prints them once, before
its loop, and every batch is the same."""

import sys

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def loader(root, crop, dali_cpu=True):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    device = "cpu" if dali_cpu else "gpu"
    size = (crop * 2, crop * 2)
    print("building on", device, "at", size)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images.gpu() if device == "gpu" else images, size=size)
    return images, labels


pipe = loader(sys.argv[1], 4)
pipe.build()
for step in range(5):
    images, labels = pipe.run()
    print(step, images.as_tensor().shape(), labels.as_array().ravel().tolist())
