"""A migrated module in a folder without ``__init__.py`` that the program imports from that folder
(``from util.loader import batches``: ``util`` is a namespace package). Its support module is
written beside it; ``from ndd_support import ...`` found it only when ``util`` itself was on
``sys.path``, so ``train.py`` failed with ``ModuleNotFoundError`` after ``migrate`` exited 0. Such
a module imports it relatively, with the absolute import as the fallback when it also runs as a
script (:mod:`ndd_migrate.model.namespaces`)."""

from __future__ import annotations

import numpy as np
import pytest

from ndd_migrate.model import namespaces
from tests.conftest import HAS_DALI, write_tree

LOADER = """\
import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=7)
def numbers(root):
    data = fn.readers.numpy(file_root=root, random_shuffle=True, name="Reader")
    return data * 2


def batches(root, count):
    pipe = numbers(root)
    pipe.build()
    for _ in range(count):
        (out,) = pipe.run()
        yield out.as_array().tolist()
"""

SELF_TEST = """

if __name__ == "__main__":
    for batch in batches(sys.argv[1], 3):
        print("self-test", batch)
"""

TRAIN = """\
import sys

from util.loader import batches

for batch in batches(sys.argv[1], 3):
    print("train", batch)
"""


def _project(folder, loader: str = LOADER, train: str = TRAIN) -> None:
    write_tree(folder, {"pyproject.toml": "", "util/loader.py": loader, "train.py": train})


def _numbers(folder) -> None:
    folder.mkdir()
    for i in range(5):
        np.save(folder / f"{i}.npy", np.arange(3, dtype=np.int32) + 10 * i)


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_a_namespace_member_run_both_ways_feeds_the_same_batches(tmp_path, monkeypatch, cli, programs):
    _numbers(tmp_path / "data")
    monkeypatch.chdir(tmp_path)
    for side in ("original", "migrated"):
        _project(tmp_path / side, LOADER + SELF_TEST)
    result = cli("migrate", "migrated")
    assert result.exit_code == 0, result.stderr
    migrated = (tmp_path / "migrated" / "util" / "loader.py").read_text()
    assert "try:\n    from .ndd_support import" in migrated
    assert "except ImportError:  # run as a script: its folder is on sys.path\n    from ndd_support import" in migrated
    assert (tmp_path / "migrated" / "util" / "ndd_support.py").is_file()
    for script in ("train.py", "util/loader.py"):  # imported from the root, and run as a script
        expected, got = (
            programs.run(tmp_path / side / script, [tmp_path / "data"]) for side in ("original", "migrated")
        )
        assert expected.returncode == 0 and got.returncode == 0, got.stderr[-2000:]
        assert expected.stdout.count("\n") == 3 and got.stdout == expected.stdout


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_a_namespace_member_imported_only_imports_its_support_module_relatively(tmp_path, monkeypatch, cli, programs):
    _numbers(tmp_path / "data")
    monkeypatch.chdir(tmp_path)
    expected, got = programs.project_both(_project, cli, "train.py", [tmp_path / "data"])
    assert got.stdout == expected.stdout and expected.stdout.startswith("train [[")
    migrated = (tmp_path / "migrated" / "util" / "loader.py").read_text()
    assert "\nfrom .ndd_support import dali_op_seed, prefetching\n" in migrated and "try:" not in migrated


def test_pre_commit_staging_the_module_alone_finds_its_importer_on_disk(tmp_path, monkeypatch, cli):
    monkeypatch.chdir(tmp_path)
    _project(tmp_path)
    result = cli("migrate", "--diff", "util/loader.py")
    assert "+from .ndd_support import dali_op_seed, prefetching" in result.stdout, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"train.py": "import util.loader\n"}, namespaces.RELATIVE),
        ({"train.py": "from util import loader\n"}, namespaces.RELATIVE),
        ({"util/other.py": "from .loader import batches\n"}, namespaces.RELATIVE),
        ({"util/other.py": "from . import loader\n"}, namespaces.RELATIVE),
        # also by its bare name from its own folder (that folder on sys.path): both imports
        ({"train.py": "from util.loader import batches\n", "util/run.py": "import loader\n"}, namespaces.EITHER),
        (  # a script elsewhere that puts `util` on sys.path
            {"train.py": "import util.loader\n", "eval.py": "import sys\nsys.path.append('util')\nimport loader\n"},
            namespaces.EITHER,
        ),
        ({"util/run.py": "from loader import batches\n"}, None),  # a plain module of a script folder
        ({"train.py": "import loader\n"}, None),  # another folder's `loader`
        ({}, None),  # nobody imports it
    ],
)
def test_how_the_project_imports_the_module_decides(tmp_path, files, expected):
    (tmp_path / "util").mkdir()
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    loader = tmp_path / "util" / "loader.py"
    loader.write_text(LOADER, encoding="utf-8")
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    read = lambda path: open(path, "rb").read()  # noqa: E731
    found = namespaces.support_imports([str(loader)], [str(loader)], read, read)
    assert found.get(str(loader)) == expected


def test_a_module_of_a_package_is_left_to_the_package_rule(tmp_path):
    (tmp_path / "util").mkdir()
    (tmp_path / "util" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "util" / "loader.py").write_text(LOADER, encoding="utf-8")
    (tmp_path / "train.py").write_text(TRAIN, encoding="utf-8")
    read = lambda path: open(path, "rb").read()  # noqa: E731
    paths = [str(tmp_path / "util" / "loader.py"), str(tmp_path / "train.py")]
    assert namespaces.support_imports(paths, paths, read, read) == {}
