"""Graph helpers across modules (ndd_migrate.model.features.library_helpers): a module of `fn.*`
helpers and the modules whose pipelines run them convert together or not at all, in the run and
beside files the run was not given. Before, the helpers' module converted whatever its importers did
(exit 0, and a pipeline calling dynamic-mode operators on graph nodes), and a pipeline calling a
pipeline-mode helper of a module outside the run converted (exit 0, and a generator calling
pipeline-mode operators on batches)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

AUGMENT = (
    "import nvidia.dali.fn as fn\nimport nvidia.dali.types as types\n\n\n"
    "def scaled(data):\n    return fn.cast(data, dtype=types.FLOAT) * 2\n"
)


def program(name: str, consumer: str = "pipe.run()", imports: str = "from pkg.augment import scaled") -> str:
    call = "scaled" if imports.endswith("import scaled") else imports.rsplit(" ", 1)[1] + ".scaled"
    return (
        "import sys\n\nimport nvidia.dali.fn as fn\nfrom nvidia.dali import pipeline_def\n\n"
        f"{imports}\n\n\n"
        "class Holder:\n    def __init__(self, pipe):\n        self.pipe = pipe\n\n"
        "    def run(self):\n        return self.pipe.run()\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        f"def {name}(root):\n"
        "    data = fn.readers.numpy(file_root=root, file_filter='*.npy')\n"
        f"    out = {call}(data)\n"
        "    return (out,)\n\n\n"
        f"pipe = {name}(sys.argv[1])\npipe.build()\n"
        "for step in range(3):\n"
        f"    (out,) = {consumer}\n"
        "    print(step, out.as_array().sum(axis=(1, 2)).tolist())\n"
    )


@pytest.fixture
def project(tmp_path, monkeypatch):
    """``pkg/augment.py`` (helpers only) and the programs given, in a project with numpy data."""
    monkeypatch.chdir(tmp_path)

    def make(**programs: str):
        (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
        (tmp_path / "pkg").mkdir()
        (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
        (tmp_path / "pkg" / "augment.py").write_text(AUGMENT, encoding="utf-8")
        for name, text in programs.items():
            (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
        (tmp_path / "data").mkdir()
        for i in range(4):
            np.save(tmp_path / "data" / f"{i}.npy", np.arange(6, dtype=np.int32).reshape(2, 3) + i)
        return tmp_path

    return make


def runs(name: str) -> str:
    done = subprocess.run([sys.executable, f"{name}.py", "data"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_helpers_module_and_its_importer_convert_together_and_print_the_same(project, cli):
    project(train=program("train"))
    before = runs("train")
    result = cli("migrate", ".")
    assert result.exit_code == 0, result.stderr
    assert "ndd.cast(" in open("pkg/augment.py").read() and "def train(root, *" in open("train.py").read()
    assert runs("train") == before


def test_a_helper_an_importer_runs_in_a_pipeline_that_stays_stays_and_so_do_its_other_users(project, cli):
    project(train=program("train", consumer="Holder(pipe).run()"), val=program("val"))
    before = {name: runs(name) for name in ("train", "val")}
    result = cli("migrate", ".")
    assert result.exit_code == 1
    assert open("pkg/augment.py").read() == AUGMENT
    assert "@pipeline_def" in open("val.py").read()
    assert (
        "val.py:" in result.stderr
        and "`scaled()` builds part of the graph and stays pipeline-mode code" in result.stderr
    )
    assert "train.py runs it in the graph of a pipeline that stays in pipeline mode" in result.stderr
    assert {name: runs(name) for name in ("train", "val")} == before


def test_a_pipeline_running_a_helper_of_a_module_outside_the_run_stays(project, cli):
    project(train=program("train"))
    result = cli("migrate", "train.py")
    assert result.exit_code == 1
    assert "@pipeline_def" in open("train.py").read()
    assert "it is graph code of pkg/augment.py, which this run does not migrate" in result.stderr


def test_a_helper_a_file_outside_the_run_runs_in_its_graph_stays(project, cli):
    project(train=program("train"))
    result = cli("migrate", "pkg/augment.py")
    assert result.exit_code == 0
    assert open("pkg/augment.py").read() == AUGMENT
    assert runs("train")


def test_a_helper_nobody_imports_converts(project, cli):
    project()
    result = cli("migrate", "pkg/augment.py")
    assert result.exit_code == 0 and "ndd.cast(" in open("pkg/augment.py").read()


def test_check_says_the_same_from_its_cache(project, cli):
    """The facts the passes over other modules read come back from the cache: before, a cached
    result had none, and a second `check` would have passed what the first reported."""
    project(train=program("train", consumer="Holder(pipe).run()"), val=program("val"))
    first = cli("check", ".")
    assert any(project_file.is_file() for project_file in Path(".ndd_migrate_cache").rglob("*"))
    second = cli("check", ".")
    assert first.exit_code == second.exit_code == 1
    assert "val.py" in first.stdout and first.stdout == second.stdout


@pytest.mark.parametrize("imports", ["import pkg.augment as aug", "from pkg import augment"])
def test_the_helper_is_followed_under_any_import_spelling(project, cli, imports):
    project(train=program("train", consumer="Holder(pipe).run()", imports=imports), val=program("val", imports=imports))
    before = {name: runs(name) for name in ("train", "val")}
    result = cli("migrate", ".")
    assert result.exit_code == 1 and open("pkg/augment.py").read() == AUGMENT
    assert "@pipeline_def" in open("val.py").read() and "val.py:" in result.stderr
    assert {name: runs(name) for name in ("train", "val")} == before
