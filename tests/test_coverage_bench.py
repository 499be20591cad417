"""benchmarks/coverage.py: each pipeline is counted from its own findings, also when a file
defines several pipelines of one name (a test module defines ``class P(Pipeline)`` in each test)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("coverage_bench", ROOT / "benchmarks" / "coverage.py")
coverage = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(coverage)

SAME_NAMED = """\
from nvidia.dali import fn
from nvidia.dali.pipeline import Pipeline


def test_checked():
    class Twin(Pipeline):
        def __init__(self):
            super().__init__(batch_size=2, num_threads=1, device_id=None)

        def define_graph(self):
            return fn.random.uniform(range=[0, 1], seed=3)

    pipe = Twin()
    pipe.build()
    print(pipe.max_batch_size)


def test_plain():
    class Twin(Pipeline):
        def __init__(self):
            super().__init__(batch_size=2, num_threads=1, device_id=None)

        def define_graph(self):
            return fn.random.uniform(range=[0, 1], seed=4)

    pipe = Twin()
    pipe.build()
    print(pipe.serialize())
"""


def test_same_named_local_classes_are_counted_apart(tmp_path):
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "twins.py").write_text(SAME_NAMED)
    found = coverage.measure(tmp_path / "tree")
    listing = sorted(found["listing"])
    assert listing[0].startswith("TODO       tree/twins.py:6 Twin: NDD008 at tree/twins.py:15"), listing
    assert listing[1] == "kept       tree/twins.py:19 Twin: NDD902", listing
