# expect: blocked NDD905
# data: none
"""A test of DALI's Python operator: the function raises, and pipeline mode reports it as
`RuntimeError: Critical error in pipeline` (DALI 2.4, CPU, exec_async=False, exec_pipelined=False).
The migration writes the operator as plain Python, which raises the function's own `ValueError`:
the test expects `RuntimeError`, so the pipeline stays in pipeline mode."""

import functools

import numpy as np
from nvidia.dali import ops
from nvidia.dali.pipeline import Pipeline


def raises(*expected):
    """nose's `raises`: the test passes only if it raises one of `expected`."""
    def decorate(test):
        @functools.wraps(test)
        def run():
            try:
                test()
            except expected as error:
                print(test.__name__, "raised", type(error).__name__)
                return
            raise AssertionError(f"{test.__name__} did not raise")
        return run
    return decorate


def reject_negative(values):
    if np.any(values < 0):
        raise ValueError("negative value")
    return values


class Checked(Pipeline):
    def __init__(self):
        super().__init__(batch_size=2, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False)
        self.values = ops.random.Uniform(range=[-2, -1], shape=[3])
        self.check = ops.PythonFunction(function=reject_negative)

    def define_graph(self):
        return self.check(self.values())


@raises(RuntimeError)
def test_the_function_raises():
    pipe = Checked()
    pipe.build()
    pipe.run()


if __name__ == "__main__":
    test_the_function_raises()
