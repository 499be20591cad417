"""A pipeline function another module of the run imports and names other than in a call (a tuple
of them iterated, a callback, a base class): that module cannot follow what the name becomes, so
the pipeline stays where it is defined, NDD008 naming the use. Before, the defining module
converted it and the importer, left as it was, called ``.build()`` on a generator (exit 0)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import HAS_DALI, write_tree

PIPES = """\
from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def doubled(root):
    data = fn.readers.numpy(file_root=root)
    return data * 2


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def tripled(root):
    data = fn.readers.numpy(file_root=root)
    return data * 3
"""

RUN = """\
import sys

from pkg.pipes import doubled, tripled

for make in (doubled, tripled):
    pipe = make(sys.argv[1])
    pipe.build()
    (out,) = pipe.run()
    print(make.__name__, out.as_array().tolist())
"""


def _numbers(folder, count: int):
    """``count`` numpy files of three int32 numbers each (``10 * i`` on), for the reader."""
    folder.mkdir()
    for i in range(count):
        np.save(folder / f"{i}.npy", np.arange(3, dtype=np.int32) + 10 * i)
    return folder


def _project(folder, run: str = RUN) -> None:
    write_tree(folder, {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/pipes.py": PIPES, "run.py": run})


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_pipelines_an_importer_names_in_a_tuple_stay_and_the_program_runs(tmp_path, monkeypatch, cli, programs):
    data = _numbers(tmp_path / "data", 2)
    monkeypatch.chdir(tmp_path)
    for side in ("original", "migrated"):
        _project(tmp_path / side)
    result = cli("migrate", "migrated")
    assert result.exit_code == 1, result.stderr
    assert "run.py:5 (`doubled`) uses it as a pipeline in a way the migration does not follow" in result.stderr
    assert (tmp_path / "migrated" / "pkg" / "pipes.py").read_text().count("@pipeline_def") == 2
    expected, got = (programs.run(tmp_path / side / "run.py", [data]) for side in ("original", "migrated"))
    assert expected.returncode == 0 and got.returncode == 0, got.stderr[-2000:]
    assert expected.stdout.startswith("doubled [[0, 2, 4]") and got.stdout == expected.stdout


@pytest.mark.parametrize(
    "use",
    [
        "callback = tripled\n",  # bound to another name
        "import pkg.pipes\n\nmakers = {'t': pkg.pipes.tripled}\n",  # through the module
        "print(tripled.__name__)\n",  # read
    ],
)
def test_each_other_reference_keeps_it_too(tmp_path, monkeypatch, cli, use):
    monkeypatch.chdir(tmp_path)
    _project(tmp_path, "import sys\n\nfrom pkg.pipes import tripled\n\n" + use)
    result = cli("migrate", "--diff", ".")
    assert "`tripled` not migrated" in result.stderr and "uses it as a pipeline" in result.stderr, result.stderr


def test_an_importer_that_only_calls_it_or_renames_it_on_import_does_not(tmp_path, monkeypatch, cli):
    monkeypatch.chdir(tmp_path)
    run = "import sys\n\nfrom pkg.pipes import tripled as t\n\npipe = t(sys.argv[1])\nprint(next(iter([1])))\n"
    _project(tmp_path, run)
    result = cli("migrate", ".")
    assert result.exit_code == 0, result.stderr
    assert "def tripled(root, *" in (tmp_path / "pkg" / "pipes.py").read_text()


# A pipeline reached through a name the run does not know it by: a star import, or a module that
# passes it on (a package's `__init__.py` re-exporting it). The run knows a pipeline under the
# module names of the file defining it, so the importer was left calling `.build()` on a generator.

SINGLE = """\
import sys

from pkg{module} import {name}

pipe = doubled(sys.argv[1])
pipe.build()
(out,) = pipe.run()
print(out.as_array().tolist())
"""


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize(
    ("init", "module", "name", "why"),
    [
        ("", ".pipes", "*", "run.py:3 (`from pkg.pipes import *`) uses it as a pipeline"),
        ("from .pipes import doubled\n", "", "doubled", "pkg/__init__.py passes it on and migrated/run.py imports it"),
        ("from .pipes import *\n", "", "doubled", "pkg/__init__.py passes it on and migrated/run.py imports it"),
    ],
)
def test_a_pipeline_imported_by_a_name_the_run_does_not_know_stays(
    tmp_path, monkeypatch, cli, programs, init, module, name, why
):
    data = _numbers(tmp_path / "data", 2)
    monkeypatch.chdir(tmp_path)
    for side in ("original", "migrated"):
        _project(tmp_path / side, SINGLE.format(module=module, name=name))
        (tmp_path / side / "pkg" / "__init__.py").write_text(init, encoding="utf-8")
    result = cli("migrate", "migrated")
    assert result.exit_code == 1, result.stderr
    assert why in result.stderr, result.stderr
    assert (
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\ndef doubled("
        in (tmp_path / "migrated" / "pkg" / "pipes.py").read_text()
    )
    expected, got = (programs.run(tmp_path / side / "run.py", [data]) for side in ("original", "migrated"))
    assert expected.returncode == 0 and got.returncode == 0, got.stderr[-2000:]
    assert expected.stdout == "[[0, 2, 4], [20, 22, 24]]\n" and got.stdout == expected.stdout


@pytest.mark.parametrize("init", ["from .pipes import doubled\n", "from .pipes import *\n"])
def test_staged_alone_the_module_finds_the_importer_through_the_package_on_disk(tmp_path, monkeypatch, cli, init):
    monkeypatch.chdir(tmp_path)
    _project(tmp_path, SINGLE.format(module="", name="doubled"))
    (tmp_path / "pkg" / "__init__.py").write_text(init, encoding="utf-8")
    result = cli("migrate", "--diff", "pkg/pipes.py")
    assert "pkg/__init__.py passes it on and run.py imports it from there" in result.stderr, result.stderr


def test_a_package_passing_it_on_to_nobody_and_a_sibling_importing_it_directly_do_not_keep_it(
    tmp_path, monkeypatch, cli
):
    monkeypatch.chdir(tmp_path)
    _project(tmp_path, "import sys\n\nfrom pkg.pipes import doubled, tripled\n\nprint(doubled, tripled)\n")
    (tmp_path / "pkg" / "__init__.py").write_text("from .pipes import doubled\n", encoding="utf-8")
    (tmp_path / "pkg" / "other.py").write_text("from .pipes import tripled\n\nmade = tripled('x')\n", encoding="utf-8")
    result = cli("migrate", "--diff", ".")
    assert "passes it on" not in result.stderr, result.stderr


# A function taking a pipeline (`first_batch(pipe)`), rewritten for the generator because its own
# module passes it the module's pipeline, and imported by another module that passes it a pipeline
# of its own: that module broke while `migrate` exited 0.

HELPER = """\
import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def doubled(root):
    data = fn.readers.numpy(file_root=root)
    return data * 2


def first_batch(pipe):
    pipe.build()
    (out,) = pipe.run()
    return out.as_array().tolist()


if __name__ == "__main__":
    print(first_batch(doubled(sys.argv[1])))
"""

CALLER = """\
import sys

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def

from helpers import first_batch


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def tripled(root):
    data = fn.readers.numpy(file_root=root)
    return data * 3


print(first_batch(tripled(sys.argv[1])))
"""


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("given", [["helpers.py"], ["."]])  # staged alone, and both in one run
def test_a_function_taking_a_pipeline_that_another_module_imports_keeps_what_it_is_passed(
    tmp_path, monkeypatch, cli, programs, given
):
    data = _numbers(tmp_path / "data", 2)
    for side in ("original", "migrated"):
        write_tree(tmp_path / side, {"pyproject.toml": "", "helpers.py": HELPER, "caller.py": CALLER})
    monkeypatch.chdir(tmp_path / "migrated")
    result = cli("migrate", *given)
    assert result.exit_code == 1, result.stderr
    assert "`doubled` not migrated" in result.stderr
    assert "(caller.py imports `first_batch` and may pass it pipelines of its own)" in result.stderr
    assert "    pipe.build()\n    (out,) = pipe.run()\n" in (tmp_path / "migrated" / "helpers.py").read_text()
    for script, expected_out in (
        ("caller.py", "[[0, 3, 6], [30, 33, 36]]\n"),
        ("helpers.py", "[[0, 2, 4], [20, 22, 24]]\n"),
    ):
        expected, got = (programs.run(tmp_path / side / script, [data]) for side in ("original", "migrated"))
        assert expected.returncode == 0 and got.returncode == 0, got.stderr[-2000:]
        assert expected.stdout == expected_out and got.stdout == expected.stdout


def test_a_function_taking_a_pipeline_that_nobody_else_imports_is_still_followed(tmp_path, monkeypatch, cli):
    monkeypatch.chdir(tmp_path)
    write_tree(
        tmp_path,
        {"pyproject.toml": "", "helpers.py": HELPER, "caller.py": "import helpers\n\nprint(helpers.__name__)\n"},
    )
    result = cli("migrate", "helpers.py")
    assert result.exit_code == 0, result.stderr
    assert "(out,) = next(pipe)" in (tmp_path / "helpers.py").read_text()


# A value the conversion changes that another module imports: a module-level pipeline object, a
# dict of pipeline functions, a class storing a pipeline in `self.pipe`. The defining module's own
# uses are rewritten; the importer's `shared.build()` or `loader.pipe.epoch_size()` broke, exit 0.

HOLDERS = """\
from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def doubled(root):
    data = fn.readers.numpy(file_root=root, name="Reader")
    return data * 2


class Loader:
    def __init__(self, root):
        self.pipe = doubled(root)
        self.pipe.build()

    def next_batch(self):
        (out,) = self.pipe.run()
        return out.as_array().tolist()


PIPES = {"train": doubled}


def make_loader(root):
    return Loader(root)
"""

READERS = {
    "attribute": "loader = Loader(sys.argv[1])\nprint(loader.next_batch())\nprint(loader.pipe.epoch_size('Reader'))\n",
    "dict": "p = PIPES['train'](sys.argv[1])\np.build()\nprint(p.run()[0].as_array().tolist())\n",
    "methods only": "print(Loader(sys.argv[1]).next_batch())\n",
    "made elsewhere": "loader = make_loader(sys.argv[1])\nprint(loader.pipe.epoch_size('Reader'))\n",
}


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize(
    ("shape", "imports", "why"),
    [
        ("attribute", "Loader", "run.py reads `.pipe` of a `Loader`"),
        ("dict", "PIPES", "run.py imports `PIPES`, which holds it"),
        ("made elsewhere", "make_loader", "run.py reads `.pipe` of a `Loader`"),  # an instance from a factory
        ("methods only", "Loader", None),  # the class's own methods are rewritten with it: converts
    ],
)
def test_a_value_holding_a_pipeline_that_another_module_reads_keeps_it(
    tmp_path, monkeypatch, cli, programs, shape, imports, why
):
    data = _numbers(tmp_path / "data", 4)
    run = f"import sys\n\nfrom holders import {imports}\n\n{READERS[shape]}"
    for side in ("original", "migrated"):
        write_tree(tmp_path / side, {"pyproject.toml": "", "holders.py": HOLDERS, "run.py": run})
    monkeypatch.chdir(tmp_path / "migrated")
    result = cli("migrate", ".")
    assert result.exit_code == (1 if why else 0), result.stderr
    holders = (tmp_path / "migrated" / "holders.py").read_text()
    if why:
        assert f"`doubled` not migrated: {why}" in result.stderr and "@pipeline_def" in holders
    else:
        assert "@pipeline_def" not in holders
    expected, got = (programs.run(tmp_path / side / "run.py", [data]) for side in ("original", "migrated"))
    assert expected.returncode == 0 and got.returncode == 0, got.stderr[-2000:]
    assert expected.stdout.strip() and got.stdout == expected.stdout


def test_a_module_level_pipeline_object_another_module_imports_keeps_it(tmp_path, monkeypatch, cli):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    (tmp_path / "holders.py").write_text(HOLDERS + "\nshared = doubled('data')\n", encoding="utf-8")
    (tmp_path / "run.py").write_text("from holders import shared\n\nshared.build()\n", encoding="utf-8")
    result = cli("migrate", "holders.py")  # staged alone: run.py found on disk
    assert "`doubled` not migrated: run.py imports `shared`, which holds it" in result.stderr, result.stderr


@pytest.mark.parametrize("given", [["."], ["pkg/pipes.py"]])
def test_a_star_import_of_names_the_importer_never_spells_keeps_nothing(tmp_path, monkeypatch, cli, given):
    """`from pkg.data import *` for the loaders a module defines beside its pipelines (DALI's SSD
    example): the pipelines it also binds are never used there."""
    monkeypatch.chdir(tmp_path)
    _project(tmp_path, "import sys\n\nfrom pkg.pipes import *\n\nprint(len(sys.argv))\n")
    result = cli("migrate", *given)
    assert result.exit_code == 0, result.stderr
    assert "@pipeline_def" not in (tmp_path / "pkg" / "pipes.py").read_text()
