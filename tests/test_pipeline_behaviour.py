"""NDD905: programs that test pipeline mode itself keep their pipeline, with one finding naming the
construct; an expected error a dynamic-mode program raises too is no reason to keep one."""

from __future__ import annotations

import pytest

from tests.conftest import migrate_text

FED = """\
import numpy as np
from nose.tools import assert_raises
from nvidia.dali import ops
from nvidia.dali.pipeline import Pipeline


class Fed(Pipeline):
    def __init__(self, size):
        super().__init__(batch_size=2, num_threads=1, device_id=None)
        self.source = ops.ExternalSource()
        self.size = size

    def define_graph(self):
        self.data = self.source()
        return self.data

    def iter_setup(self):
        self.feed_input(self.data, np.zeros([self.size, 4]))


def test_too_many():
    pipe = Fed(3)
    pipe.build()
    {check}
"""


def _human(text):
    out, result = migrate_text(text)
    found = [d for d in result.diagnostics if d.needs_human]
    return out, found


@pytest.mark.parametrize("check", ["assert_raises(RuntimeError, pipe.run)", "pytest.raises(RuntimeError, pipe.run)"])
def test_an_error_expected_from_a_fed_pipeline_keeps_it(check):
    out, found = _human(FED.format(check=check))
    assert [d.code for d in found] == ["NDD905"], found
    assert f"kept in pipeline mode: the program expects `pipe.run` to raise (`{check}`) on data fed" in found[0].message
    assert "class Fed(Pipeline)" in out and out.count("TODO(ndd-migrate)") == 1


def test_an_error_expected_from_a_pipeline_not_fed_is_no_keep():
    """A reader's or an operator's error comes in dynamic mode too: not NDD905 (an NDD008 for the
    use of `pipe.run` it cannot rewrite)."""
    text = (
        "from nose.tools import assert_raises\n"
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def bad():\n"
        "    jpegs, _ = fn.readers.file(file_root='/missing')\n"
        "    return fn.decoders.image(jpegs)\n\n\n"
        "pipe = bad()\n"
        "assert_raises(RuntimeError, pipe.run)\n"
    )
    _, found = _human(text)
    assert [d.code for d in found] == ["NDD008"], found


def test_the_api_check_keeps_the_pipeline():
    text = (
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def p():\n"
        "    return fn.random.uniform(range=[0, 1])\n\n\n"
        "pipe = p()\n"
        "pipe.build()\n"
        "pipe.schedule_run()\n"
        "pipe.outputs()\n"
        "pipe.enable_api_check(False)\n"
        "pipe.run()\n"
    )
    out, found = _human(text)
    assert [d.code for d in found] == ["NDD905"], found
    assert "pipeline mode's API check (`pipe.enable_api_check(False)`" in found[0].message
    assert "@pipeline_def" in out and out.count("TODO(ndd-migrate)") == 1
    # Without the check it is work left (`schedule_run` could become `next(pipe)`), not a keep.
    _, found = _human(text.replace("pipe.enable_api_check(False)\n", ""))
    assert found and "NDD905" not in {d.code for d in found}, found


def test_each_same_named_local_class_reports_its_own_use():
    """Two tests each define `class Fed`: each is kept at its own `assert_raises`."""
    body = FED.split("class Fed")[1].split("\n\n\ndef test_too_many")[0]
    text = FED.split("class Fed")[0] + "".join(
        f"def test_{n}():\n    class Fed{body.replace(chr(10), chr(10) + '    ')}\n\n"
        f"    pipe = Fed({n})\n    pipe.build()\n    assert_raises(RuntimeError, pipe.run)\n\n\n"
        for n in (3, 4)
    )
    _, found = _human(text)
    assert [d.code for d in found] == ["NDD905", "NDD905"], found
    lines = text.splitlines()
    assert ["Fed(3)" in lines[d.line - 3] for d in found] == [True, False], found
    assert ["Fed(4)" in lines[d.line - 3] for d in found] == [False, True], found


@pytest.mark.dali
def test_dali_refuses_a_large_fed_batch_only_in_pipeline_mode(tmp_path):
    """The fact NDD905 rests on, on the installed DALI: pipeline mode raises on a fed batch larger
    than `batch_size`; the migrated generator (fed with `ndd.batch`) runs on."""
    import subprocess
    import sys

    from tests.conftest import HAS_DALI

    if not HAS_DALI:
        pytest.skip("needs DALI")
    program = FED.split("\n\ndef test_too_many")[0].replace("from nose.tools import assert_raises\n", "")
    program += "\n\npipe = Fed(3)\npipe.build()\ntry:\n    print(len(pipe.run()[0]))\nexcept RuntimeError as e:\n    print('refused')\n"
    migrated, _ = migrate_text(program)
    assert "ndd.batch(" in migrated and "next(pipe)" in migrated, migrated
    outputs = []
    for name, text in (("before.py", program), ("after.py", migrated.replace("len(next(pipe)[0])", "next(pipe)[0].batch_size"))):
        (tmp_path / name).write_text(text)
        done = subprocess.run([sys.executable, str(tmp_path / name)], capture_output=True, text=True, timeout=120)
        outputs.append(done.stdout.strip())
    assert outputs == ["refused", "3"], outputs
