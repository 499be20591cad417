# expect: converted
# data: none
"""A test that a pipeline's Python operator fails, expecting any `Exception`: pipeline mode raises
`RuntimeError` (DALI 2.4), the migrated plain Python the function's own `ValueError`; both satisfy
the test, so it converts (an expected `RuntimeError` would keep it: NDD905)."""

import functools

import numpy as np
from nvidia.dali import fn, pipeline_def


def raises(*expected):
    """nose's `raises`: the test passes only if it raises one of `expected`."""
    def decorate(test):
        @functools.wraps(test)
        def run():
            try:
                test()
            except expected:
                print(test.__name__, "raised as expected")
                return
            raise AssertionError(f"{test.__name__} did not raise")
        return run
    return decorate


def reject_negative(values):
    if np.any(values < 0):
        raise ValueError("negative value")
    return values


@pipeline_def(batch_size=2, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False)
def checked(low):
    values = fn.random.uniform(range=[low, low + 1], shape=[3])
    return fn.python_function(values, function=reject_negative)


def test_positive_values_pass():
    pipe = checked(1.0)
    pipe.build()
    (out,) = pipe.run()
    print("passed", len(out))


@raises(Exception)
def test_negative_values_fail():
    pipe = checked(-2.0)
    pipe.build()
    pipe.run()


if __name__ == "__main__":
    test_positive_values_pass()
    test_negative_values_fail()
