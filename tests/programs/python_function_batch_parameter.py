# expect: converted
# data: jpeg
"""`fn.python_function(..., batch_processing=per_batch)` where `per_batch` is a parameter of the
`@pipeline_def` function: the generator has it too, and writes both forms, chosen by it."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types

calls = []


def darkest(images):
    calls.append(type(images).__name__)
    if isinstance(images, list):
        return [np.array([x.min()], dtype=np.uint8) for x in images]
    return np.array([images.min()], dtype=np.uint8)


@pipeline_def(batch_size=4, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False)
def gray_pipe(root, per_batch=False):
    jpegs, _ = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.GRAY)
    return fn.python_function(images, function=darkest, batch_processing=per_batch)


for per_batch in (False, True):
    pipe = gray_pipe(sys.argv[1], per_batch=per_batch)
    pipe.build()
    for step in range(2):
        (low,) = pipe.run()
        print(per_batch, step, [np.asarray(low.at(i)).tolist() for i in range(4)], calls)
        calls.clear()
