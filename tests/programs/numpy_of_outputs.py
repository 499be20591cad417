# expect: converted
# data: none
"""Outputs already given to numpy: `np.asarray(out.at(i))`, `np.array(out.as_array())`; converted
once in dynamic mode (`np.asarray(out.tensors[i])`, `np.array(ndd.as_tensor(out))`)."""

import numpy as np

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def constants():
    return fn.random.uniform(shape=[3], values=[2.0]), fn.random.uniform(shape=[2, 2], values=[1.0])


pipe = constants()
pipe.build()
first, second = pipe.run()
samples = [np.asarray(first.at(i)) for i in range(len(first))]
print([s.tolist() for s in samples], np.array(second.as_array(), dtype=np.float64).sum())
print(np.asarray(second.as_cpu().at(1)).shape, np.asanyarray(first.as_tensor()).shape)
