# expect: blocked NDD008
# data: jpeg
"""An output rebound to its numpy array further down the loop body, but a `break` between the two
may leave the loop while the name still holds the output: the read after the loop could see either,
so the pipeline stays in pipeline mode."""

import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def labelled(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=False)
    return labels


pipe = labelled(sys.argv[1])
pipe.build()
for step in range(4):
    (labels,) = pipe.run()
    if step == 2:
        break
    labels = labels.as_array()
    print(step, labels.ravel().tolist())

print("after", labels)
