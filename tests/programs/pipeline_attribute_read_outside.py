# expect: blocked NDD008
# data: jpeg
"""The loader keeps its pipeline in `self.pipe`, but code outside the class runs it too
(`loader.pipe.run()`): the attribute is not followed, and the pipeline stays in pipeline mode."""

import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def labelled(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=False)
    return labels


class Loader:
    def __init__(self, root):
        self.pipe = labelled(root)
        self.pipe.build()

    def labels(self):
        (labels,) = self.pipe.run()
        return labels.as_array().ravel().tolist()


loader = Loader(sys.argv[1])
print(loader.labels())
(extra,) = loader.pipe.run()
print(extra.as_array().ravel().tolist())
