# expect: blocked NDD001
# data: none
"""As datapipe_length_in_graph.py, but the graph code binds the source's name again (to the external
source's output): the generator would make the name its own, so the length's line cannot run
outside it, and it would run only at the first batch, after `__len__` was read."""

import numpy as np
from nvidia.dali import fn
from nvidia.dali.pipeline import Pipeline


class Counts:
    def __init__(self, total):
        self.total = total

    def __len__(self):
        return self.total

    def __call__(self, info):
        if info.idx_in_epoch >= self.total:
            raise StopIteration
        return np.array([info.idx_in_epoch], dtype=np.int64)


class CountPipe:
    def __init__(self, total, batch_size):
        self.total = total
        self.batch_size = batch_size

    def __len__(self):
        return self.steps

    def _create_pipeline(self):
        pipe = Pipeline(batch_size=self.batch_size, num_threads=1, device_id=None)
        with pipe:
            counts = Counts(self.total)
            self.steps = len(counts) // self.batch_size
            counts = fn.external_source(counts, batch=False)
            pipe.set_outputs(counts)
        return pipe

    def run(self):
        pipe = self._create_pipeline()
        pipe.build()
        return [pipe.run()[0].as_array().ravel().tolist() for _ in range(len(self))]


print(CountPipe(6, 2).run())
