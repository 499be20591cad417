# expect: converted
# data: none
"""A method builds a graph by hand and returns it; the class keeps it in an attribute and runs it
from another method: the method factory and the attribute are both followed."""

from nvidia.dali import fn
from nvidia.dali.pipeline import Pipeline


class Noise:
    def __init__(self):
        self.pipe = self._create_pipeline()

    def _create_pipeline(self):
        pipe = Pipeline(batch_size=2, num_threads=1, device_id=None, seed=3)
        with pipe:
            pipe.set_outputs(fn.random.uniform(shape=[2]))
        return pipe

    def first(self):
        self.pipe.build()
        (out,) = self.pipe.run()
        return out.at(0).shape


print(Noise().first())
