"""Snapshot tests: every fixture migrates to its golden output, idempotently, leaving no
pipeline-mode construct that is neither rewritten nor marked with a TODO."""

from __future__ import annotations

import re

import pytest

from ndd_migrate import support
from tests.conftest import FIXTURES, migrate_text

CASES = sorted(p.parent.name for p in FIXTURES.glob("*/pipeline.py"))
LEFTOVER = re.compile(r"pipeline_def|\bPipeline\b|\bfn\.|\.build\(\)|\.run\(\)|[\"']mixed[\"']")


@pytest.mark.parametrize("name", CASES)
def test_what_a_golden_imports_from_the_support_module_is_there(name):
    """A golden runs beside the support module `migrate` writes (tests/harness.py writes it next to
    the copies tests/test_verify_shapes.py runs): each function it imports must be defined there."""
    golden = (FIXTURES / name / "migrated.py").read_text(encoding="utf-8")
    for line in golden.splitlines():
        if line.startswith("from ndd_support import "):
            assert set(line.split(" import ", 1)[1].split(", ")) <= support.names()


@pytest.mark.parametrize("name", CASES)
def test_fixture_matches_golden(name):
    source = (FIXTURES / name / "pipeline.py").read_text(encoding="utf-8")
    got, result = migrate_text(source, f"fixtures/{name}/pipeline.py")
    assert result.error is None
    assert got == (FIXTURES / name / "migrated.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", CASES)
def test_migrating_golden_again_changes_nothing(name):
    golden = (FIXTURES / name / "migrated.py").read_text(encoding="utf-8")
    got, result = migrate_text(golden, f"fixtures/{name}/migrated.py")
    assert result.error is None
    assert got == golden
    assert [d for d in result.diagnostics if d.needs_human] == []


@pytest.mark.parametrize("name", CASES)
def test_no_unmarked_pipeline_construct_left(name):
    lines = (FIXTURES / name / "migrated.py").read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines):
        code = line.split("#", 1)[0]
        if LEFTOVER.search(code):
            previous = lines[number - 1] if number else ""
            assert "TODO(ndd-migrate)" in previous, f"{name}:{number + 1}: {line.strip()}"


def test_target_shape_page_example_is_engine_output():
    """docs/target-shape.md's first Before/After pair is what the engine really produces."""
    text = (FIXTURES.parent / "docs" / "target-shape.md").read_text(encoding="utf-8")
    before, after = re.findall(r"```python\n(.*?)```", text, re.DOTALL)[:2]
    assert migrate_text(before)[0] == after


def test_each_consumer_side_by_side_is_engine_output():
    """docs/target-shape.md, "Each consumer, side by side": every After is what `migrate` writes
    (line length 88) for its Before, so the page cannot drift from the tool."""
    text = (FIXTURES.parent / "docs" / "target-shape.md").read_text(encoding="utf-8")
    section = text.split("## Each consumer, side by side", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    assert len(blocks) >= 10 and len(blocks) % 2 == 0
    for before, after in zip(blocks[::2], blocks[1::2]):
        assert migrate_text(before, line_length=88)[0] == after
