# expect: converted
# data: none
"""A datapipe class in the shape of physics-ML loaders: a callable source object, a method that builds
the graph by hand (`_create_pipeline`, with `batch=`/`parallel=` from the datapipe's settings), and
methods that draw an epoch from what it returns."""

import numpy as np
from nvidia.dali import fn
from nvidia.dali.pipeline import Pipeline


class StripeSource:
    """Rows of a synthetic field, one sample per `SampleInfo` or one batch per iteration number."""

    def __init__(self, rows, batch_size, per_batch):
        self.field = np.arange(rows * 4, dtype=np.float32).reshape(rows, 4)
        self.batch_size = batch_size
        self.per_batch = per_batch
        self.batches = rows // batch_size

    def __len__(self):
        return self.batches * self.batch_size

    def __call__(self, info):
        if self.per_batch:
            if info >= self.batches:
                raise StopIteration
            rows = range(info * self.batch_size, (info + 1) * self.batch_size)
            return [self.field[r] for r in rows], [np.int32(r) for r in rows]
        if info.iteration >= self.batches:
            raise StopIteration
        return self.field[info.idx_in_epoch], np.int32(info.idx_in_epoch)


class StripeDatapipe:
    def __init__(self, rows, batch_size=2, per_batch=False, parallel=False, workers=1):
        self.rows = rows
        self.batch_size = batch_size
        self.per_batch = per_batch
        self.parallel = parallel
        self.workers = workers

    def _create_pipeline(self):
        pipe = Pipeline(batch_size=self.batch_size, num_threads=1, device_id=None,
                        py_num_workers=self.workers, prefetch_queue_depth=2)
        with pipe:
            source = StripeSource(self.rows, self.batch_size, self.per_batch)
            stripes, rows = fn.external_source(
                source, num_outputs=2, parallel=self.parallel, batch=self.per_batch, dtype=None
            )
            pipe.set_outputs(stripes * 0.5, rows)
        return pipe

    def epoch(self):
        pipe = self._create_pipeline()
        pipe.build()
        seen = []
        while True:
            try:
                stripes, rows = pipe.run()
            except StopIteration:
                return seen
            seen.append((rows.as_array().ravel().tolist(), float(stripes.as_array().sum())))


for per_batch in (False, True):
    print(per_batch, StripeDatapipe(6, batch_size=3, per_batch=per_batch).epoch())
