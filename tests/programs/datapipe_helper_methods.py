# expect: converted
# data: none
"""A datapipe class whose graph method calls graph-helper *methods*: one crops a window with a
subscript of the DataNode (sliced inside every sample), one masks with a random op (it needs the
generator's batch size), one returns two outputs the graph unpacks."""

import numpy as np
from nvidia.dali import fn, types
from nvidia.dali.pipeline import Pipeline


class GridSource:
    def __init__(self, steps, batch_size):
        self.steps = steps
        self.batch_size = batch_size

    def __call__(self, info):
        if info.iteration >= self.steps:
            raise StopIteration
        base = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
        return base + info.idx_in_epoch, np.int64(info.idx_in_epoch)


class GridDatapipe:
    def __init__(self, batch_size=2, window=((0, 2), (1, 3)), batch=False):
        self.batch_size = batch_size
        self.window = window
        self.batch = batch

    def _crop_to_window(self, x):
        (top, bottom), (left, right) = self.window
        return x[:, top:bottom, left:right]

    def _keep(self, x):
        keep = fn.cast(fn.random.coin_flip(probability=1.0), dtype=types.FLOAT)
        return x * keep

    def _stats(self, x):
        return fn.reductions.mean(x), fn.reductions.max(x)

    def _create_pipeline(self):
        pipe = Pipeline(batch_size=self.batch_size, num_threads=1, device_id=None, seed=11)
        with pipe:
            grid, step = fn.external_source(
                GridSource(3, self.batch_size), num_outputs=2, batch=self.batch, parallel=False
            )
            grid = self._keep(self._crop_to_window(grid))
            mean, peak = self._stats(grid)
            pipe.set_outputs(grid, step, mean, peak)
        return pipe

    def summary(self):
        pipe = self._create_pipeline()
        pipe.build()
        rows = []
        for _ in range(3):
            grid, step, mean, peak = pipe.run()
            rows.append((grid.at(1).shape, grid.at(1).ravel().tolist()[:3],
                         step.as_array().ravel().tolist(), round(float(mean.at(0)), 3), float(peak.at(1))))
        return rows


for row in GridDatapipe().summary():
    print(row)
