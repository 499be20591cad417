"""Shared test helpers: run the engine on text, and on real files through the CLI."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ndd_migrate.cli import app
from ndd_migrate.engine.context import Policy
from ndd_migrate.engine.transform import transform

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"

# The smallest pipeline-mode module: one `@pipeline_def` with a reader (tests of files and the CLI).
SMALL_PIPELINE = (
    "from nvidia.dali import pipeline_def, fn\n"
    "\n"
    "\n"
    "@pipeline_def(batch_size=2)\n"
    "def p(root):\n"
    "    data = fn.readers.numpy(file_root=root)\n"
    "    return data\n"
)

HAS_DALI = importlib.util.find_spec("nvidia") is not None and importlib.util.find_spec("nvidia.dali") is not None


def calls_of(monkeypatch, owner, name: str) -> list[tuple]:
    """Replace ``owner.name`` (a module function or class) for this test by a wrapper that records
    the positional arguments of each call; the list of them. The cost tests count work with it."""
    seen: list[tuple] = []
    original = getattr(owner, name)

    def counted(*args, **kwargs):
        seen.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return seen


def migrate_text(source: str, path: str = "example.py", *, expect_error: bool = False, line_length: int | None = None):
    """(new text or the input when unchanged, result) of ``migrate`` on a source text.

    An engine error fails the calling test (a crash must never pass for "nothing to change"),
    unless ``expect_error``: then the error is required. ``line_length``: the one the command line
    would give (TODOs wrap, long rewritten lines are split); by default none, as for the library."""
    policy = Policy.migrate() if line_length is None else Policy(line_length=lambda _path: line_length)
    result = transform(source, path, policy)
    if expect_error:
        assert result.error is not None, "expected the engine to refuse this input"
    else:
        assert result.error is None, f"engine error: {result.error}"
    return (result.new_source if result.changed else source), result


@pytest.fixture
def cli():
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)

    return invoke


def kept_with_one_finding(source: str, text: str, diagnostics, code: str) -> None:
    """A pipeline kept because what blocks it is suppressed where it is: the file is the source
    plus one ``code`` TODO above the pipeline, and the run says so in one finding (not silence)."""
    (diag,) = diagnostics
    assert diag.code == code and "not migrated: at line" in diag.message, diag.message
    todo = [line for line in text.splitlines() if line.lstrip().startswith("# TODO(ndd-migrate):")]
    assert len(todo) == 1 and todo[0].lstrip().startswith(f"# TODO(ndd-migrate): {code} "), text
    assert "\n".join(line for line in text.splitlines() if line not in todo) == source.rstrip("\n"), text
