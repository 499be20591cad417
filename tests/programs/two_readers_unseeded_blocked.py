# expect: blocked NDD001
# data: jpeg
"""Two shuffling readers without a seed of their own: pipeline mode seeds each from the
pipeline's seed, so they read in different orders; dynamic-mode readers without a seed would read
one order. The function stays in pipeline mode, with one TODO saying so."""

import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=3)
def unseeded(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    jpegs2, labels2 = fn.readers.file(file_root=root, random_shuffle=True)
    return labels, labels2


pipe = unseeded(sys.argv[1])
pipe.build()
for step in range(4):
    labels, labels2 = pipe.run()
    print(step, labels.as_array().ravel().tolist(), labels2.as_array().ravel().tolist())
