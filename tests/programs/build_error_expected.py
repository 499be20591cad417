# expect: blocked NDD905
# data: none
"""Tests that pipeline mode refuses a graph when it builds it (or creates it): a crop of 1-D data
(`ValueError` at `build()`, DALI 2.4) and an argument the operator does not have (`KeyError` when
the pipeline is created: its `__init__` creates the operator, `@pipeline_def` runs the graph code). The migration would drop `build()` and make each pipeline a generator
function whose body runs only when it is iterated: the tests never iterate them, so the errors
would never come. Both stay in pipeline mode, each with its finding."""

import functools

from nvidia.dali import fn, ops, pipeline_def
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


def assert_raises(expected, step, *args):
    try:
        step(*args)
    except expected as error:
        print("refused:", type(error).__name__)
        return
    raise AssertionError(f"expected {expected.__name__}")


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def crop_of_a_vector():
    values = fn.random.uniform(range=[0, 1], shape=[3])
    return fn.crop(values, crop=(1, 1))


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def unknown_argument():
    return fn.random.uniform(range=[0, 1], shape=[3], no_such_argument=1)


class UnknownArgument(Pipeline):
    def __init__(self):
        super().__init__(batch_size=2, num_threads=1, device_id=None)
        self.values = ops.random.Uniform(range=[0, 1], shape=[3], no_such_argument=1)

    def define_graph(self):
        return self.values()


@raises(ValueError)
def test_crop_needs_an_image():
    pipe = crop_of_a_vector()
    pipe.build()


def test_unknown_argument():
    assert_raises(KeyError, UnknownArgument)


@raises(KeyError)
def test_unknown_argument_of_a_function():
    pipe = unknown_argument()


if __name__ == "__main__":
    test_crop_needs_an_image()
    test_unknown_argument()
    test_unknown_argument_of_a_function()
