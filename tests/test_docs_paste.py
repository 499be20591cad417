"""Instructions in the documentation work when pasted: no install of a distribution that is not
published, no pre-commit ``rev`` that does not exist, and the documented local hook runs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# `pip install ndd-migrate`, `pip install 'ndd-migrate[verify]'`: a name PyPI does not have.
FROM_PYPI = re.compile(r"pip install\s+(?:-\S+\s+)*['\"]?ndd-migrate(?:[\[\s'\"`]|$)")
LEFTOVER = "import nvidia.dali.experimental.dynamic as ndd\n\n\ndef decode(jpegs):\n    return ndd.decoders.image(jpegs, device='mixed')\n"


def _messages_and_docs():
    for path in DOCS:
        yield path, path.read_text(encoding="utf-8")
    for path in sorted((ROOT / "ndd_migrate").rglob("*.py")):
        yield path, path.read_text(encoding="utf-8")


def test_nothing_tells_to_install_ndd_migrate_from_pypi():
    found = [
        f"{p.relative_to(ROOT)}: {m.group(0)}" for p, text in _messages_and_docs() for m in FROM_PYPI.finditer(text)
    ]
    assert not found


def test_precommit_revs_exist():
    """A ``rev:`` is a full commit SHA (the reader's own pin, explained next to it) or a tag or
    branch of this repository; ``v0.1.0`` is no tag here."""
    for path in DOCS:
        for rev in re.findall(r"^\s*rev:\s*(\S+)", path.read_text(encoding="utf-8"), re.M):
            if re.fullmatch(r"[0-9a-f]{40}", rev):
                continue
            found = subprocess.run(["git", "rev-parse", "--verify", "-q", rev], cwd=ROOT, capture_output=True)
            assert found.returncode == 0, f"{path.name}: rev {rev} does not exist"


def _yaml_blocks(text: str) -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", text, re.S)


@pytest.mark.skipif(
    shutil.which("pre-commit") is None or shutil.which("git") is None, reason="needs pre-commit and git"
)
def test_documented_local_hook_rejects_a_leftover(tmp_path):
    text = (ROOT / "docs" / "output-formats.md").read_text(encoding="utf-8")
    (config,) = [b for b in _yaml_blocks(text) if "repo: local" in b]
    # `language: system` runs `ndd-migrate` from PATH: this checkout's, as `pip install -e` gives.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "ndd-migrate"
    shim.write_text(
        f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(ROOT)!r})\nfrom ndd_migrate.cli import main\nmain()\n"
    )
    shim.chmod(0o755)
    repo = tmp_path / "project"
    repo.mkdir()
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PRE_COMMIT_HOME": str(tmp_path / "cache"),
    }
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True, env=env)
    (repo / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    (repo / "loader.py").write_text(LEFTOVER, encoding="utf-8")
    subprocess.run([*git, "add", "."], cwd=repo, check=True, env=env)
    run = subprocess.run(["pre-commit", "run"], cwd=repo, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "NDD103" in run.stdout
    (repo / "loader.py").write_text(LEFTOVER.replace("'mixed'", "'gpu'"), encoding="utf-8")
    subprocess.run([*git, "add", "."], cwd=repo, check=True, env=env)
    clean = subprocess.run(["pre-commit", "run"], cwd=repo, env=env, capture_output=True, text=True, timeout=120)
    assert clean.returncode == 0, clean.stdout + clean.stderr
