# expect: blocked NDD901
# data: none
"""A graph constant (`types.Constant`) returned beside a random op's output: dynamic-mode ops and
batches reject `types.Constant`, so the pipeline stays as written, with one finding."""

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def noise_and_label():
    noise = fn.random.uniform(range=[0, 1], shape=[2], seed=3)
    return noise, types.Constant(5)


pipe = noise_and_label()
pipe.build()
noise, label = pipe.run()
print(noise.as_array().shape, label.as_array().ravel().tolist())
