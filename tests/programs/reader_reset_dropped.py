# expect: converted
# data: numpy
"""`pipe.reset()` between runs of a reader pipeline: the pipeline never ends (the reader wraps into
its next epoch), so DALI's `reset()` does nothing; the migration drops it, and the stream of
batches goes on in the same order."""

import sys

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def rows_pipe(root):
    data = fn.readers.numpy(file_root=root, random_shuffle=True, seed=21, name="Rows")
    return fn.reductions.sum(data, axes=[1])


def run_rounds(root, rounds):
    pipe = rows_pipe(root)
    pipe.build()
    for r in range(rounds):
        for step in range(2):
            (sums,) = pipe.run()
            print(r, step, [round(float(sums.at(i).sum()), 4) for i in range(len(sums))])
        if r % 2:
            pipe.reset()
        else:
            pipe.reset()
            print("reset after round", r)


run_rounds(sys.argv[1], 4)
