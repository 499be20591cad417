# expect: converted
# data: none
"""A hand-built pipeline kept in a list that is only looped over: each item is followed as the
pipeline it is."""

import nvidia.dali.fn as fn
from nvidia.dali import Pipeline

pipe = Pipeline(batch_size=2, num_threads=1, device_id=None)
with pipe:
    noise = fn.random.normal(shape=[3])
    pipe.set_outputs(noise)

pipes = [pipe]
for p in pipes:
    p.build()
    (out,) = p.run()
    print(len(out))
