# expect: converted
# data: jpeg
"""A loader class that keeps its pipeline and iterator in attributes and deletes both to release
them (`del self.iterator, self.pipe`): the `del` ends the attributes in both versions alike, so the
attributes are followed as names and the pipeline converts; the statement stays as written."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


@pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=2)
def labels_of(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader", random_shuffle=True)
    return labels


class Loader:
    def __init__(self, root):
        self.pipe = labels_of(root)
        self.pipe.build()
        self.iterator = DALIGenericIterator(self.pipe, ["label"], reader_name="Reader", auto_reset=True)

    def release(self):
        del self.iterator, self.pipe

    def __iter__(self):
        for data in self.iterator:
            yield data[0]["label"].view(-1).tolist()


loader = Loader(sys.argv[1])
for epoch in range(2):
    print(epoch, list(loader))
loader.release()
print("released", len(vars(loader)))
