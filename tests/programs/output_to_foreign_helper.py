# expect: blocked NDD008
# data: jpeg
"""An output goes to a function of another package, which the migration cannot see."""

import sys

from nvidia.dali import fn, pipeline_def
from torchvision.utils import save_image

@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def images_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return fn.decoders.image(jpegs), labels


pipe = images_pipe(sys.argv[1])
pipe.build()
images, labels = pipe.run()
save_image(images, "out.png")
print(labels.at(0))
