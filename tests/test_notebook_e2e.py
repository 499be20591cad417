"""Notebooks through the whole tool: ``migrate`` writes the golden notebook touching only the
changed cells' sources, ``check`` reports cell positions in every format, and ``verify --base``
proves the migrated notebook equal to its committed original."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from tests.conftest import FIXTURES, HAS_DALI

ORIGINAL = FIXTURES / "notebook" / "pipeline.ipynb"
GOLDEN = FIXTURES / "notebook" / "migrated.ipynb"

# A code cell's "source" value, as Jupyter writes it (a list over lines, or one string).
SOURCE = re.compile(r'"source": (\[\]|\[\n.*?\n\s*\]|"(?:[^"\\]|\\.)*")', re.S)


@pytest.fixture
def notebook(tmp_path):
    path = tmp_path / "pipeline.ipynb"
    shutil.copyfile(ORIGINAL, path)
    return path


def test_migrate_writes_the_golden_notebook(notebook, cli):
    result = cli("migrate", notebook)
    assert result.exit_code == 0, result.output
    assert notebook.read_bytes() == GOLDEN.read_bytes()


def test_only_code_cell_sources_change(notebook, cli):
    cli("migrate", notebook)
    before, after = ORIGINAL.read_text(encoding="utf-8"), notebook.read_text(encoding="utf-8")
    # Byte for byte outside the "source" values: outputs, metadata, ids, indentation, non-ASCII text.
    assert SOURCE.sub('"source": …', before) == SOURCE.sub('"source": …', after)
    old, new = json.loads(before)["cells"], json.loads(after)["cells"]
    changed = [i + 1 for i, (o, n) in enumerate(zip(old, new)) if o["source"] != n["source"]]
    assert changed == [2, 5, 6, 7, 8, 9]  # the markdown cells (1, 4) and `data_dir = ...` (3) are not
    assert all(old[i - 1]["cell_type"] == "code" for i in changed)
    assert new[1]["source"][:2] == old[1]["source"][:2]  # `!pip install ...`, `%matplotlib inline` kept
    assert new[1]["source"][0].startswith("!pip install")
    assert new[8]["source"][0] == "%%time\n"


def test_migrating_the_golden_notebook_again_changes_nothing(tmp_path, cli):
    path = tmp_path / "migrated.ipynb"
    shutil.copyfile(GOLDEN, path)
    result = cli("migrate", path)
    assert result.exit_code == 0, result.output
    assert path.read_bytes() == GOLDEN.read_bytes()
    assert "1 unchanged" in result.stderr


def test_check_reports_cell_positions(notebook, cli):
    # Without NDD001 (the conversion) selected, none of these can be fixed: no fix marks.
    result = cli("check", notebook, "--select", "NDD002,NDD003,NDD301")
    lines = [line.replace(str(notebook), "nb.ipynb") for line in result.stdout.splitlines() if "NDD" in line]
    assert lines[:5] == [
        "nb.ipynb:cell 2:4:1: NDD301 needs `from ndd_support import prefetching`",
        "nb.ipynb:cell 2:4:1: NDD301 needs `import numpy as np`",
        "nb.ipynb:cell 2:4:1: NDD301 needs `import nvidia.dali.experimental.dynamic as ndd`",
        "nb.ipynb:cell 6:2:1: NDD002 `pipe.build()` removed",
        "nb.ipynb:cell 7:1:18: NDD003 `pipe.run()` → `next(pipe)`",
    ]
    assert notebook.read_bytes() == ORIGINAL.read_bytes()


def test_full_format_shows_the_cell_line(notebook, cli):
    result = cli("check", notebook, "--select", "NDD002", "--output-format", "full")
    assert "2 | pipe.build()" in result.stdout and "^^^^^^^^^^^^ NDD002" in result.stdout


def test_machine_formats_carry_the_cell(notebook, cli):
    found = json.loads(cli("check", notebook, "--select", "NDD002", "--output-format", "json").stdout)
    assert [(d["cell"], d["location"]["row"]) for d in found] == [(6, 2)]
    github = cli("check", notebook, "--select", "NDD002", "--output-format", "github").stdout
    assert ",line=" not in github and "pipeline.ipynb:cell 6:2:1: NDD002" in github
    sarif = json.loads(cli("check", notebook, "--select", "NDD002", "--output-format", "sarif").stdout)
    (finding,) = sarif["runs"][0]["results"]
    assert finding["message"]["text"].startswith("cell 6, line 2: ")
    assert "region" not in finding["locations"][0]["physicalLocation"]


def test_a_todo_lands_in_its_cell(tmp_path, cli):
    nb = json.loads(ORIGINAL.read_text(encoding="utf-8"))
    nb["cells"][5]["source"].append("\nprint(pipe.epoch_size())")
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    result = cli("migrate", path)
    assert result.exit_code == 1  # manual work left
    # `epoch_size()` without a reader name keeps the pipeline: the TODO is at that use, in cell 6.
    assert "pipeline.ipynb" not in result.stderr and "nb.ipynb:cell 6:" in result.stderr
    cell = json.loads(path.read_text(encoding="utf-8"))["cells"][5]["source"]
    assert any(line.startswith("# TODO(ndd-migrate): NDD008 ") for line in cell)
    assert cell[-2].startswith("#   ") and cell[-1] == "print(pipe.epoch_size())"  # wrapped, right above it


def test_verify_reads_a_notebook_as_its_code_cells(tmp_path):
    from ndd_migrate.verify.errors import SetupError
    from ndd_migrate.verify.loading import python_of, read_source, top_level_functions

    code = read_source(str(ORIGINAL))
    assert [f.name for f in top_level_functions(code) if f.is_pipeline_def] == ["augment"]
    assert "!pip" not in code and "%matplotlib" not in code  # masked as `pass` lines
    assert python_of("p.py", "x = 1\n") == "x = 1\n"
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{", encoding="utf-8")
    with pytest.raises(SetupError, match="cannot read the notebook"):
        read_source(str(broken))


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="nvidia-dali-cuda120 is not installed (pip install '.[verify]')")
@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_verify_base_proves_the_migrated_notebook_equal(tmp_path, cli):
    from fixtures.datasets import make_jpeg
    from ndd_migrate.verify.command import verify_command

    images = make_jpeg(tmp_path / "data")
    repo = tmp_path / "repo"
    repo.mkdir()
    notebook = repo / "pipeline.ipynb"
    shutil.copyfile(ORIGINAL, notebook)
    # The notebook plots with matplotlib; verify runs its imports, and the notebook's folder is on
    # sys.path, so a stub there stands in for it (the test environment need not have it).
    (repo / "matplotlib").mkdir()
    (repo / "matplotlib" / "__init__.py").write_text("")
    (repo / "matplotlib" / "pyplot.py").write_text("")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run([*git[:3], "init", "-q"], check=True)
    subprocess.run([*git, "add", "pipeline.ipynb"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "pipeline mode"], check=True)
    assert cli("migrate", notebook).exit_code == 0
    report = tmp_path / "report.json"
    code = verify_command(
        [str(notebook)],
        base="HEAD",
        args_json=json.dumps({"data_dir": str(images)}),
        batch_size=4,
        epochs=1,
        device="cpu",
        output_format="json",
        report_file=str(report),
    )
    text = report.read_text(encoding="utf-8")
    assert code == 0, text
    assert "augment" in text and "pipeline.ipynb@HEAD" in text


def test_a_hand_built_graph_in_a_cell_becomes_a_generator_there(tmp_path, cli):
    def code(*lines):
        return {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": list(lines)}

    nb = {
        "cells": [
            code("from nvidia.dali import Pipeline, fn\n"),
            code(
                "pipe = Pipeline(batch_size=2, num_threads=1, device_id=None)\n",
                "with pipe:\n",
                "    x = fn.random.normal(shape=[2])\n",
                "    pipe.set_outputs(x)\n",
            ),
            code("pipe.build()\n", "(out,) = pipe.run()\n", "print(len(out))"),
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(nb, indent=1) + "\n", encoding="utf-8")
    result = cli("migrate", path)
    assert result.exit_code == 0, result.stderr
    cells = [c["source"] for c in json.loads(path.read_text(encoding="utf-8"))["cells"]]
    assert cells[1][:2] == ["@prefetching\n", "def pipe_batches(*, batch_size=2, num_threads=1, device_id=None):\n"]
    assert cells[1][-1] == "pipe = pipe_batches()\n"
    assert cells[2] == ["(out,) = next(pipe)\n", "print(out.batch_size)"]
