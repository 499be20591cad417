"""The pre-commit hook, in a real pre-commit run against a temporary git repository.

pre-commit clones this repository at its current commit and installs it into its own environment,
so the test exercises `.pre-commit-hooks.yaml` exactly as a user's project would."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(shutil.which("pre-commit") is None, reason="pre-commit is not installed")

LEFTOVER = "import nvidia.dali.experimental.dynamic as ndd\n\n\ndef decode(jpegs):\n    return ndd.decoders.image(jpegs, device='mixed')\n"
CLEAN = LEFTOVER.replace("'mixed'", "'gpu'")


def git(cwd, *args):
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd, capture_output=True, text=True, check=False,
    )


def test_commit_with_leftover_is_rejected_and_clean_one_passes(tmp_path):
    rev = git(ROOT, "rev-parse", "HEAD").stdout.strip()
    if not rev or git(ROOT, "cat-file", "-e", f"{rev}:.pre-commit-hooks.yaml").returncode:
        pytest.skip("the hook definition is not committed in this checkout")
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {ROOT}\n  rev: {rev}\n  hooks:\n  - id: ndd-migrate-check\n", encoding="utf-8"
    )
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache")}
    install = subprocess.run(["pre-commit", "install"], cwd=repo, env=env, capture_output=True, text=True)
    assert install.returncode == 0, install.stderr

    (repo / "loader.py").write_text(LEFTOVER, encoding="utf-8")
    git(repo, "add", ".")
    rejected = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-m", "leftover"],
        cwd=repo, env=env, capture_output=True, text=True,
    )
    assert rejected.returncode != 0, rejected.stdout + rejected.stderr
    assert "NDD" in rejected.stdout + rejected.stderr

    (repo / "loader.py").write_text(CLEAN, encoding="utf-8")
    git(repo, "add", ".")
    accepted = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-m", "clean"],
        cwd=repo, env=env, capture_output=True, text=True,
    )
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
