"""The support module's ``prefetching``: a migrated pipeline computes its next batches in a worker
thread, as many ahead as pipeline mode's ``prefetch_queue_depth`` did, and keeps everything a
generator promised: its batches in its order, an exception at the batch that raised it, its end,
and no thread left behind (``close()``, garbage collection, interpreter exit, Ctrl-C).

And where ``migrate`` writes it: on the function that yields the batches, unless the pipeline
checkpoints or asked pipeline mode not to run ahead."""

from __future__ import annotations

import gc
import importlib.util
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from ndd_migrate import support
from tests.conftest import migrate_text

_spec = importlib.util.spec_from_file_location("ndd_support_under_test", support.TEMPLATE)
ndd_support = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ndd_support)


def _wait_for(condition, timeout=5.0):
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.005)


def _workers():
    """The prefetching threads alive now (another test's, stopping, may still be there)."""
    return {t for t in threading.enumerate() if t.name == "ndd-prefetch"}


@pytest.fixture(autouse=True)
def no_thread_left():
    """Every test leaves no prefetching thread of its own behind."""
    before = _workers()
    yield
    _wait_for(lambda: not (_workers() - before))


class Recorder:
    """A generator function that notes each batch it makes and whether it was closed, and where."""

    def __init__(self, count=None, fail_at=None):
        self.made, self.closed_in = [], None
        self.count, self.fail_at = count, fail_at

    def __call__(self):
        try:
            i = 0
            while self.count is None or i < self.count:
                if i == self.fail_at:
                    raise ValueError(f"batch {i} failed")
                self.made.append(i)
                yield i
                i += 1
        finally:
            self.closed_in = threading.current_thread().name


@pytest.mark.parametrize("depth", [2, 3, 4])
def test_depth_minus_one_batches_are_computed_ahead_of_the_one_held(depth):
    source = Recorder()
    batches = ndd_support.prefetching(depth=depth)(source)()
    assert source.made == []  # nothing runs before the first next(), as before the first run()
    for k in range(6):
        assert next(batches) == k
        _wait_for(lambda k=k: len(source.made) == k + depth)
        time.sleep(0.05)
        assert len(source.made) == k + depth  # and not more
    batches.close()


def test_depth_one_computes_nothing_ahead_and_starts_no_thread():
    before = _workers()
    source = Recorder()
    batches = ndd_support.prefetching(depth=1)(source)()
    assert [next(batches) for _ in range(3)] == [0, 1, 2]
    time.sleep(0.05)
    assert source.made == [0, 1, 2]
    assert _workers() == before
    batches.close()


def test_the_batches_and_their_order_are_the_generators_and_its_end_ends_the_iterator():
    source = Recorder(count=50)
    batches = ndd_support.prefetching(source)()
    assert list(batches) == list(range(50))
    with pytest.raises(StopIteration):
        next(batches)
    _wait_for(lambda: source.closed_in is not None)
    assert source.closed_in == "ndd-prefetch"  # the generator ran, and ended, in the worker


def test_an_exception_is_raised_by_the_next_that_asked_for_its_batch_then_the_iterator_ends():
    source = Recorder(fail_at=3)
    batches = ndd_support.prefetching(source)()
    assert [next(batches) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(ValueError, match="batch 3 failed"):
        next(batches)
    with pytest.raises(StopIteration):
        next(batches)


def test_close_stops_the_worker_and_closes_the_generator_before_it_returns():
    source = Recorder()
    batches = ndd_support.prefetching(source)()
    next(batches)
    batches.close()
    assert source.closed_in == "ndd-prefetch"
    assert not batches._worker._thread.is_alive()
    with pytest.raises(StopIteration):
        next(batches)


def test_an_iterator_dropped_after_break_stops_its_worker():
    source = Recorder()
    for batch in ndd_support.prefetching(source)():
        if batch == 4:
            break
    gc.collect()
    _wait_for(lambda: source.closed_in is not None)
    assert len(source.made) == 6  # the one held and the one ahead, nothing after


def test_the_decorated_function_keeps_its_name_signature_and_docstring():
    def loader(data_dir, *, batch_size, seed=7):
        """Doc."""
        yield data_dir

    decorated = ndd_support.prefetching(loader)
    assert (decorated.__name__, decorated.__doc__, decorated.__wrapped__) == ("loader", "Doc.", loader)


def _run(code: str, *, timeout: int = 120, **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(support.TEMPLATE.parent)}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        **kwargs,
    )


@pytest.mark.dali
def test_a_program_that_ends_while_dali_computes_ahead_exits_cleanly():
    """The worker is a daemon thread in a DALI operator when the program ends: without the exit
    hook that waits for its batch, the process dies as the interpreter finalizes (a segmentation
    fault in 4 of 4 runs on DALI 2.4, CPU)."""
    code = """
        import numpy as np
        import nvidia.dali.experimental.dynamic as ndd
        from ndd_support import prefetching

        @prefetching(depth=3)
        def big():
            data = ndd.as_batch([np.ones((1000, 1000, 3), dtype=np.uint8)] * 16, layout="HWC")
            while True:
                yield ndd.resize(data, size=[3000, 3000]).evaluate()

        pipe = big()
        next(pipe)
        print("done", flush=True)
    """
    for _ in range(2):
        result = _run(code)
        assert (result.returncode, result.stdout.strip()) == (0, "done"), result.stderr[-2000:]
        assert "terminate called" not in result.stderr


def test_ctrl_c_while_waiting_for_a_batch_ends_the_program():
    code = """
        import time
        from ndd_support import prefetching

        @prefetching
        def slow():
            while True:
                time.sleep(0.2)
                yield 1

        print("started", flush=True)
        for batch in slow():
            pass
    """
    env = {**os.environ, "PYTHONPATH": str(support.TEMPLATE.parent)}
    process = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdout.readline().strip() == "started"
    time.sleep(0.5)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    # Python ends on an uncaught KeyboardInterrupt by SIGINT (-2), as any Ctrl-C'd program
    assert process.returncode == -signal.SIGINT and "KeyboardInterrupt" in err, err[-2000:]


# -- where migrate writes it ------------------------------------------------------------------------

_PIPELINE = """\
from nvidia.dali import fn, pipeline_def


@pipeline_def({settings})
def p(data_dir):
    jpegs, labels = fn.readers.file(file_root=data_dir)
    return fn.decoders.image(jpegs), labels


pipe = p("/data", batch_size=8)
pipe.build()
images, labels = pipe.run()
"""


@pytest.mark.parametrize(
    "settings,decorator",
    [
        ("batch_size=8", "@prefetching\n"),
        ("batch_size=8, prefetch_queue_depth=2", "@prefetching\n"),
        ("batch_size=8, prefetch_queue_depth=3", "@prefetching(depth=3)\n"),
        ("batch_size=8, prefetch_queue_depth=1", None),
        ("batch_size=8, exec_pipelined=False", None),
        ("batch_size=8, enable_checkpointing=True", None),
    ],
)
def test_migrate_decorates_the_generator_unless_the_pipeline_did_not_run_ahead(settings, decorator):
    got, _ = migrate_text(_PIPELINE.format(settings=settings))
    assert "def p(" in got
    if decorator is None:
        assert "prefetching" not in got
    else:
        assert decorator + "def p(" in got
        assert "from ndd_support import prefetching\n" in got


def test_a_calls_prefetch_queue_depth_is_its_depth():
    source = Recorder()
    batches = ndd_support.prefetching(lambda: source())(prefetch_queue_depth=3)
    next(batches)
    _wait_for(lambda: len(source.made) == 3)  # the one held and two ahead
    time.sleep(0.05)
    assert len(source.made) == 3
    batches.close()


def test_a_parameter_of_that_name_stays_the_functions():
    def loader(prefetch_queue_depth):
        while True:
            yield prefetch_queue_depth

    batches = ndd_support.prefetching(loader)(prefetch_queue_depth=5)
    assert next(batches) == 5
    batches.close()


_CALLED = """\
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


@pipeline_def(batch_size=8)
def p(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return jpegs, labels


pipe = p("/data", prefetch_queue_depth=3, exec_async=False)
{use}
"""


def test_a_call_keeps_its_depth_where_the_function_it_calls_prefetches():
    got, result = migrate_text(_CALLED.format(use="pipe.build()\njpegs, labels = pipe.run()"))
    assert 'pipe = p("/data", prefetch_queue_depth=3)\n' in got and "@prefetching\ndef p(" in got
    dropped = [d.message for d in result.diagnostics if d.code == "NDD004"]
    assert dropped == ["`exec_async` has no dynamic-mode counterpart: dropped"]


def test_a_call_of_the_epoch_aware_shape_drops_it():
    """There the nested generator prefetches: the function called takes no depth."""
    got, _ = migrate_text(
        _CALLED.format(use='for data in DALIGenericIterator(pipe, ["x", "y"], reader_name="Reader"):\n    pass')
    )
    assert "    @prefetching\n    def batches():" in got
    assert "prefetch_queue_depth" not in got


def test_a_depth_the_decorator_cannot_carry_is_reported_dropped():
    """A checkpointing pipeline does not prefetch: its literal depth goes, and NDD004 says so."""
    _, result = migrate_text(
        _PIPELINE.format(settings="batch_size=8, prefetch_queue_depth=3, enable_checkpointing=True")
    )
    dropped = [d.message for d in result.diagnostics if d.code == "NDD004"]
    assert dropped == ["`prefetch_queue_depth` has no dynamic-mode counterpart: dropped"]
