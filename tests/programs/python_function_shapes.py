# expect: converted
# data: numpy
"""`fn.python_function` in a `@pipeline_def`: a lambda, a function returning a strided view (DALI copies
it), one changing its sample in place (its input has no other reader), and one with no input, called
once per sample."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def

serial = 0


def reversed_rows(features):
    return features[::-1]


def clip_in_place(features):
    np.clip(features, -1.0, 1.0, out=features)
    return features


def next_serial():
    global serial
    serial += 1
    return np.array([serial], dtype=np.int64)


@pipeline_def(batch_size=4, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False)
def features_pipe(root):
    features = fn.readers.numpy(file_root=root, file_filter="*.npy")
    scaled = fn.python_function(features, function=lambda x: (x * 0.5).astype(np.float32))
    flipped = fn.python_function(features, function=reversed_rows)
    clipped = fn.python_function(features * 2.0, function=clip_in_place)
    serials = fn.python_function(function=next_serial)
    return features, scaled, flipped, clipped, serials


pipe = features_pipe(sys.argv[1])
pipe.build()
for step in range(3):
    features, scaled, flipped, clipped, serials = pipe.run()
    print(step, [round(float(np.asarray(features.at(i)).sum()), 3) for i in range(4)])
    print("  scaled", [round(float(np.asarray(scaled.at(i)).sum()), 3) for i in range(4)])
    print("  flipped", [np.asarray(flipped.at(i))[0].round(3).tolist() for i in range(2)])
    print("  clipped", [round(float(np.asarray(clipped.at(i)).max()), 3) for i in range(4)])
    print("  serials", [int(np.asarray(serials.at(i))[0]) for i in range(4)])
print("serial", serial)
