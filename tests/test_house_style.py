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


def test_the_engine_does_not_import_libcst_matchers():
    """``libcst.matchers`` (thousands of generated classes) took 150 ms to import, half of the
    engine's import, which a cold ``check`` pays before it forks its workers and a pre-commit run
    over one DALI file pays whole; one rule used it to list a function's names
    (``syntax.tree.walk`` does)."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\nfrom ndd_migrate.engine.dispatch import rule_impls\nrule_impls()\n"
            "import ndd_migrate.engine.transform, ndd_migrate.app.pool\nprint('libcst.matchers' in sys.modules)",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "False", done.stderr
