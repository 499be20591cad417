# expect: blocked NDD905
# data: none
"""Tests of DALI's external source: each test defines its own `Source` class and expects pipeline
mode to refuse what it is fed (more samples than `batch_size`: `RuntimeError` in DALI 2.4). A
dynamic-mode batch has no such bound, so both classes stay in pipeline mode, each at its own test."""

import numpy as np
from nvidia.dali import ops
from nvidia.dali.pipeline import Pipeline


def assert_raises(expected, step):
    try:
        step()
    except expected as error:
        print("refused:", str(error).splitlines()[0])
        return
    raise AssertionError(f"expected {expected.__name__}")


def test_array_too_large():
    class Source(Pipeline):
        def __init__(self, extra):
            super().__init__(batch_size=2, num_threads=1, device_id=None)
            self.feed = ops.ExternalSource()
            self.extra = extra

        def define_graph(self):
            self.values = self.feed()
            return self.values

        def iter_setup(self):
            self.feed_input(self.values, np.ones([self.batch_size + self.extra, 3], dtype=np.float32))

    pipe = Source(1)
    pipe.build()
    assert_raises(RuntimeError, pipe.run)


def test_list_too_long():
    class Source(Pipeline):
        def __init__(self, extra):
            super().__init__(batch_size=2, num_threads=1, device_id=None)
            self.feed = ops.ExternalSource()
            self.extra = extra

        def define_graph(self):
            self.values = self.feed()
            return self.values

        def iter_setup(self):
            self.feed_input(self.values, [np.ones([3], dtype=np.int32)] * (self.batch_size + self.extra))

    pipe = Source(2)
    pipe.build()
    assert_raises(RuntimeError, pipe.run)


if __name__ == "__main__":
    test_array_too_large()
    test_list_too_long()
