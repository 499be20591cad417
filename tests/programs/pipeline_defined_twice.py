# expect: blocked NDD001
# data: jpeg
"""A notebook's habit: a cell defines `test_pipeline` and runs it, a later cell defines it again
(another graph) and runs that. Each call makes the definition bound at that point; the migration
keeps the name's pipelines as they are rather than rewrite the uses of one for the other."""

import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def test_pipeline(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return jpegs, labels


pipe = test_pipeline(sys.argv[1])
pipe.build()
print(pipe.run()[1].as_array().ravel().tolist())


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def test_pipeline(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return fn.resize(fn.decoders.image(jpegs), resize_x=4, resize_y=4), labels


pipe = test_pipeline(sys.argv[1])
pipe.build()
images, labels = pipe.run()
print(images.at(0).shape, labels.as_array().ravel().tolist())
