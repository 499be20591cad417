# expect: converted
# data: none
"""A datapipe's graph method also records the epoch's length on the object (`self.steps = ...`),
which `__len__` reads before the first batch: pipeline mode ran that line when the method built the
graph. It uses no graph value, so the migration writes it (and the source it reads) where the graph
was built, after the generator's `def` and before its one call, not at the generator's first batch."""

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
            value = fn.external_source(counts, batch=False)
            pipe.set_outputs(value)
        return pipe

    def run(self):
        pipe = self._create_pipeline()
        pipe.build()
        return [pipe.run()[0].as_array().ravel().tolist() for _ in range(len(self))]


print(CountPipe(6, 2).run())
