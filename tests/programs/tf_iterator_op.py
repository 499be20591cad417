# expect: blocked NDD411
# data: jpeg
"""TensorFlow's `DALIIterator` is an op factory: the op made once is then called with the pipeline.
TensorFlow runs the pipeline itself, so it is kept in pipeline mode."""

import sys

import nvidia.dali.plugin.tf as dali_tf
from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def labelled(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return fn.decoders.image(jpegs), labels


def graph_tensors(root):
    pipe = labelled(root)
    make_tensors = dali_tf.DALIIterator()
    return make_tensors(pipeline=pipe, shapes=[(2, 8, 8, 3), (2,)], dtypes=None, batch_size=2)


if __name__ == "__main__":
    print(graph_tensors(sys.argv[1]))
