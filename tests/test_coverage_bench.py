"""benchmarks/coverage.py: each pipeline is counted from its own findings, also when a file
defines several pipelines of one name (a test module defines ``class P(Pipeline)`` in each test)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("coverage_bench", ROOT / "benchmarks" / "coverage.py")
coverage = importlib.util.module_from_spec(_spec)
sys.modules["coverage_bench"] = coverage  # its dataclasses look their module up there
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


def test_user_code_and_dalis_tests_are_reported_apart_with_files_and_repositories(tmp_path):
    """A tree with `wild/` and `dali_tests/` (the dev corpus's layout): each part gets its own table,
    and each blocking finding its pipelines, files and repositories (SOURCES.tsv)."""
    tree = tmp_path / "tree"
    blocked = SAME_NAMED.replace("print(pipe.max_batch_size)", "print(pipe.max_batch_size)\n    return pipe")
    for rel in ("wild/a__x.py", "wild/b__y.py", "wild/c__z.py", "dali_tests/t.py"):
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(blocked)
    (tree / "SOURCES.tsv").write_text(
        "file\trepository\tpath\tcommit\nwild/a__x.py\tu/one\tx\t0\nwild/b__y.py\tu/one\ty\t0\nwild/c__z.py\tu/two\tz\t0\n"
    )
    parts = coverage.grouped(coverage.measure(tree), tree)
    assert [title.split(": ", 1)[1] for title, _ in parts] == [title for title, _ in coverage.GROUPS]
    (_, user), (_, tests) = parts
    assert user["files"] == 3 and tests["files"] == 1 and user["total"] == 6 and tests["total"] == 2
    why, pipelines, files, repositories = user["reasons"][0]
    assert why.startswith("NDD008") and (pipelines, files, repositories) == (3, 3, 2), user["reasons"]
    table = coverage.markdown("user code", user)
    assert "| left with a TODO, by first finding | pipelines | files | repositories |" in table
    assert f"| {why} | 3 | 3 | 2 |" in table
