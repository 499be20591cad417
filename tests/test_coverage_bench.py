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
from benchmarks import corpus_layout as layout  # noqa: E402  (benchmarks/coverage.py put the root on sys.path)

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


LOADER_MODULE = """\
from nvidia.dali.plugin.pytorch import DALIGenericIterator


class Loader(DALIGenericIterator):
    def __init__(self, pipeline, size):
        super().__init__(pipelines=pipeline, size=size, output_map=["data"], auto_reset=True)
"""

TRAINING_SCRIPT = """\
from nvidia.dali import fn, pipeline_def

from loaders import Loader


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def noise():
    return fn.random.uniform(range=[0, 1], seed=1)


loader = Loader(noise(), size=8)
for batch in loader:
    print(batch[0]["data"].shape)
"""


def test_a_tree_with_sources_is_measured_as_its_repositories_were_laid_out(tmp_path):
    """The dev corpus flattens `loaders.py` to `wild/u__r__loaders.py`: the training script's
    `from loaders import Loader` finds nothing there, and its pipeline, handed to an unknown class,
    stays. Put back where its repository had it, the import resolves and the pipeline converts."""
    tree = tmp_path / "tree"
    (tree / "wild").mkdir(parents=True)
    (tree / "wild" / "u__r__loaders.py").write_text(LOADER_MODULE)
    (tree / "wild" / "u__r__scripts__train.py").write_text(TRAINING_SCRIPT.replace("from loaders", "from r.loaders"))
    (tree / "wild" / "solo.py").write_text(SAME_NAMED)  # not in SOURCES.tsv: measured where it is
    (tree / "SOURCES.tsv").write_text(
        "file\trepository\tpath\tcommit\n"
        "wild/u__r__loaders.py\tu/r\tr/loaders.py\t0\n"
        "wild/u__r__scripts__train.py\tu/r\tscripts/train.py\t0\n"
    )
    flat = coverage.measure(tree, layout="flat")
    laid_out = coverage.measure(tree)
    flat_line = next(line for line in flat["listing"] if "noise" in line)
    assert flat_line.startswith("TODO       tree/wild/u__r__scripts__train.py:7 noise: NDD008"), flat_line
    assert "converted  tree/wild/u__r__scripts__train.py:7 noise" in laid_out["listing"], laid_out["listing"]
    assert laid_out["files"] == flat["files"] == 3
    assert sum("solo.py" in line for line in laid_out["listing"]) == 2


def test_the_corpus_layout_puts_each_file_at_its_path_in_its_repository(tmp_path):
    tree = tmp_path / "tree"
    (tree / "wild").mkdir(parents=True)
    for name in ("u__r__a.py", "u__r__nb.ipynb.py", "v__s__a.py"):
        (tree / "wild" / name).write_text(f"# {name}\n")
    (tree / "SOURCES.tsv").write_text(
        "file\trepository\tpath\tcommit\n"
        "wild/u__r__a.py\tu/r\tpkg/a.py\t0\n"
        "wild/u__r__nb.ipynb.py\tu/r\tnb.ipynb\t0\n"
        "wild/v__s__a.py\tv/s\tpkg/a.py\t0\n"
    )
    projects, original = layout.rebuild(tree, tmp_path / "out")
    out = tmp_path / "out"
    assert sorted(projects) == [out / "u__r", out / "v__s"]
    assert (out / "u__r" / "pkg" / "a.py").read_text() == "# u__r__a.py\n"
    assert (out / "u__r" / "nb.ipynb.py").read_text() == "# u__r__nb.ipynb.py\n"  # a notebook's code stays .py
    assert (out / "u__r" / "setup.cfg").is_file() and (out / "v__s" / "setup.cfg").is_file()  # project roots
    assert original[str(out / "v__s" / "pkg" / "a.py")] == "wild/v__s__a.py"
