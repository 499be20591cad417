# expect: blocked NDD001
# data: jpeg
"""As epoch_size_steps_loop.py, but the reader is made before the pipeline function, which takes its
output from the enclosing function (DALI puts the node into the graph that uses it). Migrated, the
reader would be an object made once outside the generator, and the function has no reader of its own
whose metadata the migrated code could give: the pipeline stays."""

import math
import sys

from nvidia.dali import fn, pipeline_def


def read_data(root, epochs=2, bs=4):
    files = fn.readers.file(file_root=root, name="Reader")

    @pipeline_def(batch_size=bs, num_threads=1, device_id=None)
    def get_pipeline():
        jpegs, labels = files
        return jpegs, labels

    pl = get_pipeline()
    pl.build()
    steps = math.ceil(pl.epoch_size()["Reader"] / bs)
    for epoch in range(epochs):
        jpegs, labels = pl.run()
        print(epoch, steps, labels.as_array().ravel().tolist())
        pl.reset()


read_data(sys.argv[1])
