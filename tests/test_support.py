"""The project's support module (ndd_migrate/support): where it goes, when a run writes, updates,
keeps or refuses it, and that it stands on its own.

Its functions are checked against DALI's iterators by the whole programs of tests/test_iterators.py
(every last-batch policy, shards, ``stick_to_shard``, padding) and tests/test_reader_seed.py; the
migrated programs there import the module as ``migrate`` writes it (tests/harness.py)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ndd_migrate import support
from ndd_migrate.model.features import iterators, test_utils
from tests.conftest import HAS_DALI

LOADER = """\
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


@pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=12)
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader", random_shuffle=True)
    return fn.resize(fn.decoders.image(jpegs), resize_x=8, resize_y=8), labels


def show_epochs(root):
    pipe = train_pipe(root)
    loader = DALIGenericIterator(pipe, ["data", "label"], reader_name="Reader")
    for epoch in range(2):
        for batch in loader:
            print(epoch, batch[0]["label"].flatten().tolist())
        loader.reset()
"""

MAIN = """\
import sys

from pkg.data import show_epochs

show_epochs(sys.argv[1])
"""


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_every_function_the_rules_call_is_in_the_module():
    called = {
        support.OP_SEED,
        support.EXTERNAL_SOURCE,
        support.EPOCHS,
        support.EPOCHS_MANY,
        support.SIZED_EPOCHS,
        support.SOURCE_EPOCHS,
        support.PREFETCHING,
        support.CONSTANT,
        support.TO_GPU_WITH,
    }
    assert called | set(support.ITERATORS) | set(test_utils.COMPARISONS) == set(support.names())  # NDD412's
    assert set(iterators.SUPPORT_CLASSES.values()) == set(support.ITERATORS)  # NDD411's drop-ins


def test_location_is_the_top_level_package_else_beside_the_module(tmp_path):
    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "pkg" / "sub" / "__init__.py", "")
    write(tmp_path / "pkg" / "sub" / "data.py", "")
    write(tmp_path / "scripts" / "train.py", "")
    assert support.location(str(tmp_path / "pkg" / "sub" / "data.py")) == (
        str(tmp_path / "pkg" / "ndd_support.py"),
        "pkg.ndd_support",
    )
    assert support.location(str(tmp_path / "scripts" / "train.py")) == (
        str(tmp_path / "scripts" / "ndd_support.py"),
        "ndd_support",
    )
    configured = str(tmp_path / "pkg" / "sub" / "dali_extras.py")
    assert support.location(str(tmp_path / "scripts" / "train.py"), configured) == (configured, "pkg.sub.dali_extras")


def test_a_script_takes_the_module_of_the_package_beside_it_that_it_imports_migrated_code_from(tmp_path):
    """`train.py` beside `pkg/`, importing `pkg.pipes.train_pipe`: the support module is the
    package's, which the package's own modules import, not a second copy beside the script. A
    package it imports nothing migrated from, or a module that is no package, does not count."""
    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "other" / "__init__.py", "")
    write(tmp_path / "helpers.py", "")
    train = str(tmp_path / "train.py")
    assert support.location(train, None, ("helpers.make", "pkg.pipes.train_pipe")) == (
        str(tmp_path / "pkg" / "ndd_support.py"),
        "pkg.ndd_support",
    )
    assert support.location(train, None, ("helpers.make", "absent.pipes.p")) == (
        str(tmp_path / "ndd_support.py"),
        "ndd_support",
    )
    assert support.location(str(tmp_path / "other" / "run.py"), None, ("pkg.pipes.train_pipe",)) == (
        str(tmp_path / "other" / "ndd_support.py"),
        "other.ndd_support",
    )


ITERATING = """\
import sys

from nvidia.dali.plugin.pytorch import DALIGenericIterator

from pkg.data import train_pipe

pipe = train_pipe(sys.argv[1])
pipe.build()
loader = DALIGenericIterator(pipe, ["data", "label"], reader_name="Reader")
for epoch in range(2):
    for batch in loader:
        print(epoch, batch[0]["label"].flatten().tolist())
    loader.reset()
"""


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_a_script_and_the_package_it_imports_a_pipeline_from_share_one_module(tmp_path, cli, programs):
    """Both need the support module (the package's pipeline prefetches; the script's iterator
    counts epochs): one file is written, in the package, and the script imports it from there; it
    prints what it printed before."""
    pytest.importorskip("torch")
    from fixtures.datasets import make_jpeg

    root = str(programs.dataset(make_jpeg))
    _project(tmp_path)
    write(tmp_path / "train.py", ITERATING)
    before = programs.run(tmp_path / "train.py", [root], cwd=tmp_path)
    assert before.returncode == 0, before.stderr
    result = cli("migrate", tmp_path)
    assert result.exit_code == 0, result.stderr
    assert not (tmp_path / "ndd_support.py").exists()
    assert "from pkg.ndd_support import dali_iterator_epochs\n" in (tmp_path / "train.py").read_text(encoding="utf-8")
    assert result.stderr.count("support module") == 1 and "imported by 2 migrated modules" in result.stderr
    after = programs.run(tmp_path / "train.py", [root], cwd=tmp_path)
    assert after.returncode == 0, after.stderr
    assert after.stdout == before.stdout and before.stdout.count("\n") == 7


def test_the_written_module_says_who_wrote_it_and_is_recognised_as_written():
    text = support.text()
    assert text.startswith(f"# Written by ndd-migrate {support.__version__} ")
    assert support.as_written(text)
    assert not support.as_written(text.replace("def dali_op_seed(", "def dali_op_seed_(", 1))
    assert not support.as_written(text.split("\n", 3)[3])  # without its header


def test_plan_writes_updates_keeps_or_refuses(tmp_path):
    path = tmp_path / "ndd_support.py"
    needed = {support.EPOCHS}
    created = support.plan(str(path), "ndd_support", needed, ["a.py"])
    assert created.old is None and created.new == support.text() and created.changes and not created.refused
    # As an older version wrote it: header and digest of its own body.
    body = support.TEMPLATE.read_text(encoding="utf-8").replace("# the reader moves on", "# moves on")
    older = support.text().split("\n", 3)
    older[0] = "# Written by ndd-migrate 0.0.1 for the modules it migrated to DALI's dynamic mode."
    older[2] = "# ndd-migrate-sha256: " + support._digest(body)
    path.write_text("\n".join(older[:3]) + "\n" + body, encoding="utf-8")
    updated = support.plan(str(path), "ndd_support", needed, ["a.py"])
    assert updated.changes and updated.new == support.text() and not updated.refused
    path.write_text(support.text(), encoding="utf-8")
    assert not support.plan(str(path), "ndd_support", needed, ["a.py"]).changes
    edited = support.text().replace("    num_shards, epoch_size =", "    print(meta)\n    num_shards, epoch_size =")
    path.write_text(edited, encoding="utf-8")
    kept = support.plan(str(path), "ndd_support", needed, ["a.py"])
    assert kept.new is None and not kept.changes and not kept.refused
    path.write_text(edited.replace("def dali_iterator_epochs(", "def my_epochs("), encoding="utf-8")
    refused = support.plan(str(path), "ndd_support", needed, ["a.py"])
    assert refused.refused == (
        f"{path} was edited since ndd-migrate wrote it and does not define dali_iterator_epochs: add it, "
        "or delete the file to have it written again"
    )
    path.write_text("def helper():\n    pass\n", encoding="utf-8")
    assert "was not written by ndd-migrate" in support.plan(str(path), "ndd_support", needed, ["a.py"]).refused


def test_the_module_imports_without_ndd_migrate_or_site_packages(tmp_path):
    (tmp_path / support.FILE_NAME).write_text(support.text(), encoding="utf-8")
    code = "import sys, ndd_support; print(sorted(ndd_support.__all__)); print('ndd_migrate' in sys.modules)"
    done = subprocess.run([sys.executable, "-S", "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [str(sorted(support.names())), "False"]
    epochs = "import ndd_support; print(ndd_support.dali_op_seed(12, 0))"
    done = subprocess.run([sys.executable, "-S", "-c", epochs], cwd=tmp_path, capture_output=True, text=True)
    assert done.stdout.strip() == "3859641711"  # word 0 of std::seed_seq{12}, tests/test_reader_seed.py


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is pinned in the test extra")
def test_the_module_passes_ruffs_defaults(tmp_path):
    """It lands in users' projects: formatted as `ruff format` would, and clean under ruff's default
    rules and pycodestyle's at 88 columns (E501 included)."""
    path = tmp_path / support.FILE_NAME
    path.write_text(support.text(), encoding="utf-8")
    fmt = subprocess.run(["ruff", "format", "--isolated", "--check", str(path)], capture_output=True, text=True)
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr
    lint = subprocess.run(
        ["ruff", "check", "--isolated", "--select", "E,F,W", str(path)], capture_output=True, text=True
    )
    assert lint.returncode == 0, lint.stdout


def _project(root: Path) -> None:
    write(root / "pkg" / "__init__.py", "")
    write(root / "pkg" / "data.py", LOADER)


def test_migrate_writes_the_module_once_into_the_package_and_imports_it(tmp_path, cli):
    _project(tmp_path)
    write(tmp_path / "pkg" / "other.py", LOADER.replace("def show_epochs(", "def show_other_epochs("))
    result = cli("migrate", tmp_path)
    assert result.exit_code == 0, result.stderr
    written = tmp_path / "pkg" / "ndd_support.py"
    assert written.read_text(encoding="utf-8") == support.text()
    for name in ("data.py", "other.py"):
        text = (tmp_path / "pkg" / name).read_text(encoding="utf-8")
        assert "from pkg.ndd_support import dali_iterator_epochs, dali_op_seed, prefetching\n" in text
        assert "def dali_iterator_epochs(" not in text and "def dali_op_seed(" not in text
    assert result.stderr.count("support module") == 1 and "imported by 2 migrated modules" in result.stderr
    again = cli("migrate", tmp_path)
    assert again.exit_code == 0 and written.read_text(encoding="utf-8") == support.text()


def test_diff_shows_the_new_module_and_check_counts_it(tmp_path, cli):
    _project(tmp_path)
    diff = cli("migrate", "--diff", tmp_path)
    assert f"+++ b/{tmp_path / 'pkg' / 'ndd_support.py'}" in diff.stdout
    assert "+# Written by ndd-migrate" in diff.stdout and not (tmp_path / "pkg" / "ndd_support.py").exists()
    check = cli("migrate", "--check", tmp_path)
    assert check.exit_code == 1 and not (tmp_path / "pkg" / "ndd_support.py").exists()


def test_an_edited_module_lacking_a_function_leaves_its_importers_unchanged(tmp_path, cli):
    _project(tmp_path)
    write(tmp_path / "pkg" / "ndd_support.py", "def dali_op_seed(seed, index):\n    return seed\n")
    before = (tmp_path / "pkg" / "data.py").read_bytes()
    result = cli("migrate", tmp_path)
    assert result.exit_code == 2
    assert (tmp_path / "pkg" / "data.py").read_bytes() == before
    assert "was not written by ndd-migrate and does not define dali_iterator_epochs" in result.stderr
    assert (tmp_path / "pkg" / "ndd_support.py").read_text() == "def dali_op_seed(seed, index):\n    return seed\n"


def test_the_configured_place_is_used(tmp_path, cli):
    _project(tmp_path)
    write(tmp_path / "pyproject.toml", '[tool.ndd-migrate]\nsupport-module = "pkg/dali_support.py"\n')
    assert cli("migrate", tmp_path).exit_code == 0
    assert (tmp_path / "pkg" / "dali_support.py").read_text(encoding="utf-8") == support.text()
    assert "from pkg.dali_support import" in (tmp_path / "pkg" / "data.py").read_text(encoding="utf-8")


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_a_migrated_package_runs_with_the_written_module(tmp_path, cli, programs):
    """Whole program: `python main.py` in a project whose loader lives in a package; before and
    after `migrate`, the same labels in the same order, epoch by epoch."""
    pytest.importorskip("torch")
    from fixtures.datasets import make_jpeg

    root = str(programs.dataset(make_jpeg))
    _project(tmp_path)
    write(tmp_path / "main.py", MAIN)
    before = programs.run(tmp_path / "main.py", [root], cwd=tmp_path)
    assert before.returncode == 0, before.stderr
    assert cli("migrate", tmp_path).exit_code == 0
    assert (tmp_path / "pkg" / "ndd_support.py").exists()
    after = programs.run(tmp_path / "main.py", [root], cwd=tmp_path)
    assert after.returncode == 0, after.stderr
    assert (
        after.stdout == before.stdout and before.stdout.count("\n") == 7
    )  # 13 samples: 4 batches, then 3 (FILL carries one over)


def test_standard_input_says_the_module_is_not_written(tmp_path, cli):
    from typer.testing import CliRunner

    from ndd_migrate.cli import app

    done = CliRunner().invoke(app, ["migrate", "-"], input=LOADER)
    assert (
        done.exit_code == 0 and "from ndd_support import dali_iterator_epochs, dali_op_seed, prefetching" in done.stdout
    )
    assert "which `migrate -` does not write" in done.stderr and not (tmp_path / "ndd_support.py").exists()


def test_a_crlf_module_keeps_its_line_breaks_beside_the_written_module(tmp_path, cli):
    """The module that imports the support module keeps its CRLF breaks, the import line included;
    the support module is written as this package ships it."""
    _project(tmp_path)
    data = tmp_path / "pkg" / "data.py"
    data.write_bytes(LOADER.replace("\n", "\r\n").encode("utf-8"))
    assert cli("migrate", tmp_path).exit_code == 0
    raw = data.read_bytes()
    assert b"from pkg.ndd_support import dali_iterator_epochs, dali_op_seed, prefetching\r\n" in raw
    assert raw.count(b"\n") == raw.count(b"\r\n")
    assert (tmp_path / "pkg" / "ndd_support.py").read_text(encoding="utf-8") == support.text()


def test_a_support_module_that_cannot_be_read_leaves_its_importers_byte_for_byte(tmp_path, cli):
    """A file of that name in another encoding (or not Python): one error line naming it, and the
    module that would import from it is not written."""
    _project(tmp_path)
    (tmp_path / "pkg" / "ndd_support.py").write_bytes("# caf\xe9\n".encode("latin-1"))
    before = (tmp_path / "pkg" / "data.py").read_bytes()
    result = cli("migrate", tmp_path)
    assert result.exit_code == 2
    assert "cannot read the support module" in result.stderr
    assert (tmp_path / "pkg" / "data.py").read_bytes() == before


def test_no_module_is_written_for_importers_that_cannot_be_written(tmp_path, cli):
    """Read-only importers (a checkout of another user's files, a vendored copy): before, the new
    support module was written, said "imported by 1 migrated module", and left behind alone."""
    _project(tmp_path)
    data = tmp_path / "pkg" / "data.py"
    before = data.read_bytes()
    data.chmod(0o444)
    result = cli("migrate", tmp_path)
    assert result.exit_code == 2
    assert "not writable" in result.stderr and "support module" not in result.stderr
    assert not (tmp_path / "pkg" / "ndd_support.py").exists() and data.read_bytes() == before


def test_the_module_is_written_for_the_importers_that_can_be(tmp_path, cli):
    _project(tmp_path)
    write(tmp_path / "pkg" / "other.py", LOADER.replace("def show_epochs(", "def show_other_epochs("))
    (tmp_path / "pkg" / "other.py").chmod(0o444)
    result = cli("migrate", tmp_path)
    assert result.exit_code == 2 and "imported by 1 migrated module)" in result.stderr
    assert (tmp_path / "pkg" / "ndd_support.py").exists()
    assert "from pkg.ndd_support import" in (tmp_path / "pkg" / "data.py").read_text(encoding="utf-8")
