# expect: blocked NDD001
# data: jpeg
"""Operators called at the module's top level, outside any pipeline (DALI adds those nodes to the
graph that uses them), their outputs taken by a pipeline function through a name and an item. In
dynamic mode the reader would be an object made once, and the decoded batch computed once: the
generator would unpack the object, not each batch's files. The pipeline stays."""

import sys

from nvidia.dali import fn, pipeline_def

files = fn.readers.file(file_root=sys.argv[1], name="Reader")
chosen = files


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def labelled():
    jpegs, labels = chosen
    return labels


pipe = labelled()
pipe.build()
for _ in range(3):
    (labels,) = pipe.run()
    print(labels.as_array().ravel().tolist())
