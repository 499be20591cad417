# expect: converted
# data: none
"""A loader's method makes the pipeline; what it returns is kept in `self.pipe` and run from another
method: both the method factory and the attribute are followed, so the whole class converts."""

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def noise():
    return fn.random.uniform(shape=[3])


class Loader:
    def __init__(self):
        self.pipe = self._make()

    def _make(self):
        pipe = noise()
        pipe.build()
        return pipe

    def shapes(self):
        (out,) = self.pipe.run()
        return [out.at(i).shape for i in range(2)]


print(Loader().shapes())
