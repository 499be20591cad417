# expect: converted
# data: jpeg
"""A notebook-style graph built by hand whose epoch length is asked of the pipeline: the loop runs
one epoch of full batches."""

import math
import sys

from nvidia.dali import Pipeline, fn

pipe = Pipeline(batch_size=2, num_threads=1, device_id=None)
with pipe:
    jpegs, labels = fn.readers.file(file_root=sys.argv[1], name="Reader")
    pipe.set_outputs(jpegs, labels)
pipe.build()

steps = math.ceil(pipe.epoch_size("Reader") / 2)
print("epoch", pipe.epoch_size("Reader"), "steps", steps)
for step in range(steps):
    jpegs, labels = pipe.run()
    print(step, len(jpegs), labels.as_array().ravel().tolist())
