# expect: converted
# data: jpeg
"""`fn.python_function(..., num_outputs=0)` as statements: sinks run for their side effects. DALI calls
each one at every `run()`, after the Python operators that compute the outputs: per sample in sample
order (several inputs zipped), or once per batch with the list of samples (with no input: no arguments)."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types

log = []


def brightness(image):
    log.append("brightness")
    return np.array([image.mean()], dtype=np.float32)


def record(image, label):
    log.append(("sample", image.shape, int(image.sum()), int(label[0]), image.flags.writeable))


def record_batch(images):
    log.append(("batch", len(images), [int(x.sum()) for x in images]))


def tick():
    log.append("tick")


@pipeline_def(batch_size=3, num_threads=2, device_id=None, exec_async=False, exec_pipelined=False)
def image_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    images = fn.resize(fn.decoders.image(jpegs, device="cpu", output_type=types.RGB), resize_x=12, resize_y=8)
    level = fn.python_function(images, function=brightness)
    fn.python_function(images, labels, function=record, num_outputs=0)
    # a batch at once
    fn.python_function(images, function=record_batch, batch_processing=True, num_outputs=0)
    fn.python_function(function=tick, num_outputs=0, batch_processing=True)  # once per batch
    return images, level


pipe = image_pipe(sys.argv[1])
pipe.build()
print("after build", log)
for step in range(2):
    images, level = pipe.run()
    print(step, [int(np.asarray(images.at(i)).sum()) for i in range(3)], [float(np.asarray(level.at(i))[0]) for i in range(3)])
    for entry in log:
        print("  ", entry)
    log.clear()
