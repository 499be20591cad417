# expect: blocked NDD008
# data: none
"""A datapipe class in the shape of a weather datapipe: a method builds a pipeline by hand
(`with pipe:`) over a per-sample callable that ends each epoch and shuffles by the epoch index DALI
gives it; `__init__` stores the pipeline on the object, `__iter__` resets it and returns a new
PyTorch iterator over it (`[self.pipe]`) for each pass, and `__len__` gives the batches per epoch.
A method also reads the pipeline's `max_batch_size`, which one generator per epoch does not have:
the pipeline stays in pipeline mode, with the reason at that read."""

import numpy as np
import nvidia.dali as dali
import nvidia.dali.plugin.pytorch as dali_pth


class Fields:
    def __init__(self, samples, batch_size):
        self.grid = np.arange(samples * 6, dtype=np.float32).reshape(samples, 2, 3)
        self.indices = np.arange(samples)
        self.num_batches = samples // batch_size
        self.last_epoch = None

    def __len__(self):
        return len(self.indices)

    def __call__(self, sample_info):
        if sample_info.iteration >= self.num_batches:
            raise StopIteration()
        if sample_info.epoch_idx != self.last_epoch:
            np.random.default_rng(seed=sample_info.epoch_idx).shuffle(self.indices)
            self.last_epoch = sample_info.epoch_idx
        idx = self.indices[sample_info.idx_in_epoch]
        return self.grid[idx], np.array([idx, sample_info.epoch_idx], dtype=np.int64)


class FieldsDatapipe:
    def __init__(self, samples, batch_size):
        self.samples = samples
        self.batch_size = batch_size
        self.pipe = self._create_pipeline()

    def _create_pipeline(self):
        pipe = dali.Pipeline(batch_size=self.batch_size, num_threads=1, device_id=None)
        with pipe:
            source = Fields(self.samples, self.batch_size)
            self.length = len(source) // self.batch_size
            invar, idx = dali.fn.external_source(source, num_outputs=2, batch=False)
            invar = invar[:, :2]
            pipe.set_outputs(invar * 2, idx)
        return pipe

    def __iter__(self):
        self.pipe.reset()
        return dali_pth.DALIGenericIterator([self.pipe], ["invar", "idx"])

    def __len__(self):
        return self.length

    def samples_per_batch(self):
        return self.pipe.max_batch_size


datapipe = FieldsDatapipe(12, 3)
print(len(datapipe), datapipe.samples_per_batch())
for epoch in range(4):
    for batch in datapipe:
        print(epoch, batch[0]["invar"].sum().item(), batch[0]["idx"].tolist())
        if epoch == 1:
            break  # the reset of the next pass does nothing: it goes on with this epoch
