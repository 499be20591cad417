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
def test_a_golden_that_imports_the_support_module_has_it_beside_it_as_migrate_writes_it(name):
    """The goldens run (tests/test_fixtures_run.py, tests/test_verify_shapes.py) with the support
    module ``migrate`` writes beside them; regenerate it with ``ndd-migrate migrate`` on a copy."""
    golden = (FIXTURES / name / "migrated.py").read_text(encoding="utf-8")
    beside = FIXTURES / name / support.FILE_NAME
    if "from ndd_support import" in golden:
        assert beside.read_text(encoding="utf-8") == support.text()
    else:
        assert not beside.exists()


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
