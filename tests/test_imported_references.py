"""A pipeline function another module of the run imports and names other than in a call (a tuple
of them iterated, a callback, a base class): that module cannot follow what the name becomes, so
the pipeline stays where it is defined, NDD008 naming the use. Before, the defining module
converted it and the importer, left as it was, called ``.build()`` on a generator (exit 0)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import HAS_DALI

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


def _project(folder, run: str = RUN) -> None:
    (folder / "pkg").mkdir(parents=True)
    (folder / "pyproject.toml").write_text("", encoding="utf-8")
    (folder / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (folder / "pkg" / "pipes.py").write_text(PIPES, encoding="utf-8")
    (folder / "run.py").write_text(run, encoding="utf-8")


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_pipelines_an_importer_names_in_a_tuple_stay_and_the_program_runs(tmp_path, monkeypatch, cli, programs):
    data = tmp_path / "data"
    data.mkdir()
    for i in range(2):
        np.save(data / f"{i}.npy", np.arange(3, dtype=np.int32) + 10 * i)
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
