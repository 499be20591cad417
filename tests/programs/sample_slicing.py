# expect: converted
# data: numpy
"""Per-sample slicing inside the graph (`x[1:3]`, `xy[:, 0]`, `x[0]`), a helper that slices its
DataNode argument, Python indexing of a list parameter, and `Pipeline.current().batch_size`."""

import sys

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import Pipeline, pipeline_def


def first_columns(x, count):
    return x[:, 0:count]


@pipeline_def(batch_size=4, num_threads=1)
def slicing_pipe(root, scales):
    outputs = fn.readers.numpy(file_root=root, random_shuffle=True, seed=3, name="Reader")
    data = outputs
    rows = data[1:3]
    xy = fn.cast(data, dtype=types.FLOAT) * scales[0] + Pipeline.current().batch_size
    first_row = xy[0]
    column = xy[:, 0]
    last = (xy + 1)[-1, 2:5]
    return rows, first_row, column, last, first_columns(data, 2)


pipe = slicing_pipe(sys.argv[1], [2.0, 3.0], device_id=None)
pipe.build()
for step in range(3):
    rows, first_row, column, last, firsts = pipe.run()
    print(step, "rows", [rows.at(i).shape for i in range(len(rows))], float(rows.at(1).sum()))
    print(step, "first_row", first_row.at(0).tolist())
    print(step, "column", [column.at(i).shape for i in range(len(column))], column.at(2).tolist())
    print(step, "last", last.at(3).tolist())
    print(step, "firsts", firsts.at(0).shape, float(firsts.at(0).sum()))
