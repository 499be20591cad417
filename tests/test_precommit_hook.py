"""The pre-commit hook, in a real pre-commit run against a temporary git repository.

pre-commit clones this repository at its current commit and installs it into its own environment,
so the test exercises `.pre-commit-hooks.yaml` exactly as a user's project would."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests.conftest import ROOT

pytestmark = [
    pytest.mark.skipif(shutil.which("pre-commit") is None, reason="pre-commit is not installed"),
    pytest.mark.xdist_group("precommit"),  # one worker: the second test reuses the hook's environment
]

LEFTOVER = "import nvidia.dali.experimental.dynamic as ndd\n\n\ndef decode(jpegs):\n    return ndd.decoders.image(jpegs, device='mixed')\n"
CLEAN = LEFTOVER.replace("'mixed'", "'gpu'")


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory):
    """pre-commit's cache, shared by the tests here as a user's is by their projects: the hook's
    environment (this repository installed at its commit) is made once."""
    return tmp_path_factory.mktemp("pre-commit-home")


def git(cwd, *args):
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


def test_commit_with_leftover_is_rejected_and_clean_one_passes(tmp_path, pre_commit_home):
    rev = git(ROOT, "rev-parse", "HEAD").stdout.strip()
    if not rev or git(ROOT, "cat-file", "-e", f"{rev}:.pre-commit-hooks.yaml").returncode:
        pytest.skip("the hook definition is not committed in this checkout")
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {ROOT}\n  rev: {rev}\n  hooks:\n  - id: ndd-migrate-check\n", encoding="utf-8"
    )
    env = {**os.environ, "PRE_COMMIT_HOME": str(pre_commit_home)}
    install = subprocess.run(["pre-commit", "install"], cwd=repo, env=env, capture_output=True, text=True)
    assert install.returncode == 0, install.stderr

    (repo / "loader.py").write_text(LEFTOVER, encoding="utf-8")
    git(repo, "add", ".")
    rejected = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-m", "leftover"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    assert rejected.returncode != 0, rejected.stdout + rejected.stderr
    assert "NDD" in rejected.stdout + rejected.stderr

    (repo / "loader.py").write_text(CLEAN, encoding="utf-8")
    git(repo, "add", ".")
    accepted = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-m", "clean"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr


PIPES = (
    "from nvidia.dali import fn, pipeline_def\n\n\n"
    "@pipeline_def(batch_size=2)\n"
    "def train_pipe():\n"
    "    return fn.random.uniform()\n"
)
MAIN = "from pkg.pipes import train_pipe\n\npipe = train_pipe()\npipe.build()\nout = pipe.run()\n"
#: `pkg/pipes.py` as `migrate` left it in an earlier commit: a reader created once, above the loop.
MIGRATED_PIPES = (
    "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
    "def train_pipe(*, batch_size=2):\n"
    '    reader = ndd.readers.File(file_root="/data", name="Reader")\n'
    "    while True:\n"
    "        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
    "            yield labels.evaluate(),\n"
)


@pytest.mark.parametrize(
    "pipes, found",
    [
        (PIPES, ["main.py:4:1: NDD007", "pkg/pipes.py"]),  # still a pipeline: says the module converts
        (MIGRATED_PIPES, ["main.py:4:1: NDD002", "main.py:5:7: NDD003"]),  # migrated: a generator now
    ],
)
def test_a_staged_file_using_a_pipeline_of_an_unstaged_module_is_checked(tmp_path, pre_commit_home, pipes, found):
    """pre-commit passes only `main.py`, which does not mention DALI: its `build()`/`run()` on the
    pipeline of the committed `pkg/pipes.py` are still found (ndd_migrate.model.crossfile.ProjectImports),
    whether that module is still in pipeline mode or was migrated in an earlier commit."""
    rev = git(ROOT, "rev-parse", "HEAD").stdout.strip()
    if not rev or git(ROOT, "cat-file", "-e", f"{rev}:.pre-commit-hooks.yaml").returncode:
        pytest.skip("the hook definition is not committed in this checkout")
    repo = tmp_path / "project"
    (repo / "pkg").mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {ROOT}\n  rev: {rev}\n  hooks:\n  - id: ndd-migrate-check\n", encoding="utf-8"
    )
    (repo / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (repo / "pkg" / "pipes.py").write_text(pipes, encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "--no-verify", "-m", "pipeline mode")
    env = {**os.environ, "PRE_COMMIT_HOME": str(pre_commit_home)}
    install = subprocess.run(["pre-commit", "install"], cwd=repo, env=env, capture_output=True, text=True)
    assert install.returncode == 0, install.stderr

    (repo / "main.py").write_text(MAIN, encoding="utf-8")
    git(repo, "add", "main.py")
    rejected = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-m", "main"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    output = rejected.stdout + rejected.stderr
    assert rejected.returncode != 0, output
    assert all(text in output for text in found), output
