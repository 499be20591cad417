# expect: converted
# data: none
"""A graph built by hand whose block defines the function its external source calls: the `return`
is that function's own, not the block's, so the block still reads as a pipeline function."""

import numpy as np
from nvidia.dali import Pipeline, fn

pipe = Pipeline(batch_size=2, num_threads=1, device_id=None)
with pipe:

    def shape_gen_f():
        return np.full((2,), 3, np.int32)

    shapes = fn.external_source(source=lambda: [shape_gen_f()] * 2)
    pipe.set_outputs(shapes)
pipe.build()
for _ in range(2):
    (out,) = pipe.run()
    print(out.as_array().tolist())
