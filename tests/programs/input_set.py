# expect: converted
# data: numpy
"""Operators called on input sets in a pipeline function, under import aliases: a list of inputs
gives a list of outputs (unpacked, or kept and indexed), two lists are paired element by element
with a plain input repeated, and a one-element list gives one output. Pipeline mode runs one
operator instance per input; the migration writes one `ndd` call per input, in the same order."""

import sys

import nvidia.dali.fn as dfn
from nvidia.dali import pipeline_def, types
from nvidia.dali.fn import cast as to_type


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def pairs(root):
    data = dfn.readers.numpy(file_root=root, file_filter="*.npy")
    a, b = to_type([data, data * 2], dtype=types.FLOAT)
    flipped = dfn.transpose([a, b, a + b], perm=[1, 0])
    joined = dfn.cat([flipped[0], flipped[1]], [flipped[2], flipped[2]], flipped[0] - flipped[1], axis=0)
    single = dfn.cast([data], dtype=types.INT64)
    return joined[0], joined[1], flipped[2], single


pipe = pairs(sys.argv[1])
pipe.build()
for step in range(2):
    first, second, summed, single = pipe.run()
    print(step, first.at(0).dtype, first.at(0).shape, [round(float(first.at(i).ravel()[:7].sum()), 3) for i in range(2)])
    print(step, second.at(0).shape, [round(float(second.at(i).ravel()[:7].sum()), 3) for i in range(2)])
    print(step, summed.at(0).shape, [round(float(summed.at(i).ravel()[:7].sum()), 3) for i in range(2)])
    print(step, single.at(0).dtype, single.at(0).shape, [int(single.at(i).ravel()[:7].sum()) for i in range(2)])
