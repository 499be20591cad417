"""The pytest plugin (ndd_migrate.verify.pytest_plugin): one test per migrated loader, run by a real
``pytest`` (and ``pytest -n 2``) in a temporary git repository, as CI runs it.

The entry point exists only once the package is installed; these runs load the plugin with
``-p ndd_migrate.verify.pytest_plugin`` and this checkout on ``PYTHONPATH``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ndd_migrate.verify import ci
from tests import harness
from tests.conftest import FIXTURES, ROOT

PLUGIN = "ndd_migrate.verify.pytest_plugin"
#: The plugin as this checkout has it, whether the package is installed or not: an installed
#: package's entry point (`pip install -e .`, as CI does) is blocked by its name, and the module is
#: loaded with `-p` (both at once register it twice, an error).
LOAD = ("-p", "no:ndd_migrate_verify", "-p", PLUGIN)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=ci@example.com", "-c", "user.name=ci", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def _pytest(repo: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    return subprocess.run(
        [sys.executable, "-m", "pytest", *LOAD, "-p", "no:cacheprovider", "--rootdir", str(repo), *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def repo(tmp_path) -> Path:
    """A repository whose last commit has two pipeline-mode loaders, a DALI loader nobody
    migrated and a module without DALI; the working tree has the two loaders migrated and the
    module changed."""
    repo = tmp_path / "repo"
    (repo / "loaders").mkdir(parents=True)
    shutil.copy(FIXTURES / "numpy_features" / "pipeline.py", repo / "loaders" / "features.py")
    shutil.copy(FIXTURES / "train_val" / "pipeline.py", repo / "loaders" / "train.py")
    shutil.copy(FIXTURES / "audio" / "pipeline.py", repo / "loaders" / "audio.py")
    (repo / "loaders" / "util.py").write_text("SIZE = 1\n")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "pipeline mode")
    shutil.copy(FIXTURES / "numpy_features" / "migrated.py", repo / "loaders" / "features.py")
    shutil.copy(FIXTURES / "train_val" / "migrated.py", repo / "loaders" / "train.py")
    # what `migrate` writes beside them: the support module they import
    harness.with_support_module(repo / "loaders", (repo / "loaders" / "train.py").read_text(encoding="utf-8"))
    (repo / "loaders" / "audio.py").write_text((repo / "loaders" / "audio.py").read_text() + "# touched\n")
    (repo / "loaders" / "util.py").write_text("SIZE = 2\n")
    return repo


def test_the_loaders_are_the_files_migrated_against_the_base(repo):
    assert ci.changed_loaders("HEAD", repo) == ["loaders/features.py", "loaders/train.py"]


def test_a_change_that_migrates_no_loader_passes(repo):
    _git(repo, "stash", "-q")
    (repo / "loaders" / "util.py").write_text("SIZE = 3\n")
    proc = _pytest(repo, "-m", "ndd_verify", "--ndd-verify-base", "HEAD")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ndd-verify: no migrated loader to prove" in proc.stdout


@pytest.mark.dali
def test_pytest_n_2_runs_one_test_per_migrated_loader_on_both_workers(repo):
    proc = _pytest(repo, "-n", "2", "-v", "--ndd-verify-base", "HEAD")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    passed = sorted(re.findall(r"\[(gw\d)\] \[ *\d+%\] PASSED (\S+)", out))
    # Fewer tests than twice the workers: xdist deals them round-robin, one to each worker.
    assert sorted(name for _, name in passed) == ["loaders/features.py::ndd_verify", "loaders/train.py::ndd_verify"], (
        out
    )
    assert {worker for worker, _ in passed} == {"gw0", "gw1"}, out
    assert "2 passed" in out

    # A bug planted in one migration fails that loader's test, with verify's report as the reason.
    features = repo / "loaders" / "features.py"
    text = features.read_text()
    assert "* 2.0 - 1.0" in text
    features.write_text(text.replace("* 2.0 - 1.0", "* 2.0 - 0.5"))
    proc = _pytest(repo, "-n", "2", "--ndd-verify-base", "HEAD")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "1 failed, 1 passed" in out
    assert "loaders/features.py: different (exit code 1)" in out
    assert "DIFFERENT numpy_features" in out and "synthetic input: data_dir" in out


def test_a_config_table_alone_turns_it_on_and_shards_split_the_loaders(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        textwrap.dedent(
            """
            [tool.ndd-migrate.verify]
            pairs = [["a.py", "a_ndd.py"], ["b.py", "b_ndd.py"], ["c.py", "c_ndd.py"]]
            options = {epochs = 2, device = "cpu"}
            """
        )
    )
    everything = _pytest(tmp_path, "--collect-only", "-q")
    assert everything.returncode == 0, everything.stdout + everything.stderr
    ids = [line for line in everything.stdout.splitlines() if "::ndd_verify" in line]
    assert ids == ["a_ndd.py::ndd_verify", "b_ndd.py::ndd_verify", "c_ndd.py::ndd_verify"]
    shards = [_pytest(tmp_path, "--collect-only", "-q", "--ndd-verify-shard", f"{k}/2").stdout for k in (1, 2)]
    assert [[i for i in ids if i in shard] for shard in shards] == [ids[0::2], ids[1::2]]
    only = _pytest(tmp_path, "--collect-only", "-q", "-m", "not ndd_verify")
    assert "::ndd_verify" not in only.stdout


def test_without_being_asked_it_changes_nothing_and_imports_nothing_heavy(tmp_path):
    (tmp_path / "test_a.py").write_text("def test_a():\n    pass\n")
    proc = _pytest(tmp_path, "-q")
    assert proc.returncode == 0 and "1 passed" in proc.stdout, proc.stdout + proc.stderr
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import sys, {PLUGIN}; print(sorted(m for m in sys.modules if m.split('.')[0] in ('nvidia', 'numpy', 'libcst')))",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    assert probe.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("config", "args", "message"),
    [
        ("", ["--ndd-verify"], "needs a base revision"),
        ("", ["--ndd-verify-base", "no-such-rev"], "'no-such-rev' names no commit"),
        ("[tool.ndd-migrate.verify]\npairs = [['a.py', 'b.py']]\n", ["--ndd-verify-shard", "3/2"], "K must be between"),
        ("[tool.ndd-migrate.verify]\nbase = 'HEAD'\nspeed = 1\n", [], "unknown key(s) speed"),
        ("[tool.ndd-migrate.verify]\nbase = 'HEAD'\noptions = {turbo = 1}\n", [], "known options are"),
    ],
)
def test_a_bad_setting_is_a_usage_error(tmp_path, config, args, message):
    _git(tmp_path, "init", "-q")
    (tmp_path / "pyproject.toml").write_text(config)
    proc = _pytest(tmp_path, "-q", *args)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert message in proc.stderr
