"""The project's own code is formatted and linted as pyproject.toml's ``[tool.ruff]`` says (ruff is
pinned in the ``test`` extra): a change that skips ``ruff format`` or ``ruff check`` fails here."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT


def _ruff(*args: str) -> subprocess.CompletedProcess:
    command = [shutil.which("ruff")] if shutil.which("ruff") else [sys.executable, "-m", "ruff"]
    return subprocess.run([*command, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module", autouse=True)
def ruff_installed():
    if _ruff("--version").returncode != 0:
        pytest.fail("ruff is not installed: pip install -e '.[test]'")


def test_the_code_is_formatted():
    done = _ruff("format", "--check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_code_passes_the_lint():
    done = _ruff("check", "--output-format", "concise", ".")
    assert done.returncode == 0, done.stdout + done.stderr
