"""A migrated script ends cleanly while its pipeline generator is suspended with a batch nobody read.

Eager dynamic-mode ops run in the EvalContext's daemon thread (DALI 2.4 ``experimental/dynamic/_async.py``).
A batch still being computed when the interpreter finalizes killed that thread inside the C++ operator
and aborted the process ("terminate called without an active exception", exit 134): in 18 of 30 runs of
a script raising mid-epoch, 8 of 30 of a checkpoint-save program, every run of the heavier program below.
The shape now ``.evaluate()``s each yielded batch (docs/target-shape.md, "Finished batches"), and each
op whose result it drops (one the pipeline pruned: 8 of 8 checkpoint-mode runs aborted while only the
outputs were waited for), so no DALI work is left behind the ``yield``. Both exits are run several times, each in a fresh process.
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from tests.conftest import HAS_DALI, ROOT, migrate_text

# A resize to 1024x1024 keeps the unread batch computing long after `next(pipe)` returns: with the
# old shape every run of either mode aborted, so a few runs are enough to catch a regression.
PROGRAM = """\
import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=8, num_threads=2, device_id=None, seed=3)
def heavy(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=1, name="Reader")
    images = fn.decoders.image(jpegs)
    images = fn.resize(images, size=[1024, 1024])
    images = fn.flip(images, horizontal=fn.random.coin_flip())
    fn.resize(images, size=[1536, 1536])  # unused: the pipeline prunes it, the migrated code runs it
    return images, labels


mode, root, path = sys.argv[1:4]
if mode == "raise":
    plain = heavy(root)
    plain.build()
    plain.run()  # a mid-epoch batch nobody reads
    raise RuntimeError("stopped while the pipeline is suspended")
pipe = heavy(root, enable_checkpointing=True)
pipe.build()
pipe.run()
state = pipe.checkpoint()  # waits for the reader only
with open(path, "wb") as f:
    f.write(state)
"""

RUNS = 6  # per mode
BUDGET_S = 25.0  # per mode: on a loaded machine fewer runs, but always at least two


def test_each_yielded_batch_is_evaluated():
    out, _ = migrate_text(PROGRAM)
    assert "            yield images.evaluate(), labels.evaluate()\n" in out, out


def test_an_op_whose_result_is_dropped_is_waited_for():
    """Called after the last op an output needs, it would still be computing when ``next(pipe)``
    returns: 8 of 8 checkpoint-mode runs aborted at exit before it was waited for."""
    out, _ = migrate_text(PROGRAM)
    assert "            ndd.resize(images, size=[1536, 1536]).evaluate()  # unused:" in out, out
    assert migrate_text(out)[0] == out
    legacy = (
        "from nvidia.dali import ops\nfrom nvidia.dali.pipeline import Pipeline\n\n\n"
        "class P(Pipeline):\n    def __init__(self, batch_size):\n        super().__init__(batch_size, 1, None)\n"
        "        self.coin = ops.random.CoinFlip()\n\n    def define_graph(self):\n"
        "        self.coin()\n        return self.coin()\n"
    )
    out, _ = migrate_text(legacy)
    assert "ndd.random.coin_flip(batch_size=batch_size).evaluate()\n" in out, out


@pytest.mark.parametrize(
    "returned, yielded",
    [
        ("(a, -b)", "(a.evaluate(), (-b).evaluate())"),  # an operation gets parentheses, the tuple its own
        ("[a, b.gpu()]", "a.evaluate(), b.gpu().evaluate()"),
        ("a * 2", "(a * 2).evaluate(),"),
    ],
)
def test_evaluate_wraps_each_output(returned, yielded):
    text = (
        "from nvidia.dali import fn, pipeline_def\n\n\n@pipeline_def(batch_size=2)\ndef p(root):\n"
        f"    a, b = fn.readers.file(file_root=root)\n    return {returned}\n"
    )
    out, _ = migrate_text(text)
    assert f"            yield {yielded}\n" in out, out
    assert migrate_text(out)[0] == out


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("mode, code", [("raise", 1), ("checkpoint", 0)])
def test_suspended_pipeline_exits_cleanly(tmp_path, mode, code):
    from fixtures.datasets import make_jpeg

    root = str(make_jpeg(tmp_path))
    script = tmp_path / "migrated.py"
    script.write_text(migrate_text(PROGRAM)[0])
    start, runs = time.monotonic(), 0
    while runs < RUNS and (runs < 2 or time.monotonic() - start < BUDGET_S):
        done = subprocess.run(
            [sys.executable, str(script), mode, root, str(tmp_path / "state")],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
        runs += 1
        assert "terminate called" not in done.stderr, f"run {runs}: {done.stderr[-2000:]}"
        assert done.returncode == code, f"run {runs}: exit {done.returncode}: {done.stderr[-2000:]}"
