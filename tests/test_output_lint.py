"""What `migrate` writes passes the linters its input passed: ruff (pinned in the test extra) over
every fixture and whole program of tests/programs, before and after the migration, finds nothing
new of what a reviewer sends back — an unused or duplicate import (F401, F811), an unused local
(F841), an undefined name (F821), trailing whitespace (W291).

Long created lines (E501) are measured on the dev corpus by ``benchmarks/output_lint.py`` rather
than asserted here: a long f-string, or a statement the user wrote on several lines and the
migration nested one level deeper, is left as a formatter leaves it."""

from __future__ import annotations

import importlib.util
import shutil

import pytest

from tests.conftest import FIXTURES, ROOT, migrate_text

_spec = importlib.util.spec_from_file_location("output_lint", ROOT / "benchmarks" / "output_lint.py")
output_lint = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(output_lint)

SOURCES = sorted([*FIXTURES.glob("*/pipeline.py"), *(ROOT / "tests" / "programs").glob("*.py")])


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is pinned in the test extra")
def test_the_output_has_no_finding_its_input_did_not_have(tmp_path):
    before, after = tmp_path / "before", tmp_path / "after"
    before.mkdir()
    after.mkdir()
    for index, source in enumerate(SOURCES):
        name = f"{index:03d}_{source.parent.name if source.name == 'pipeline.py' else source.stem}.py"
        text = source.read_text(encoding="utf-8")
        (before / name).write_text(text, encoding="utf-8")
        (after / name).write_text(migrate_text(text, str(source), line_length=88)[0], encoding="utf-8")
    old, new = output_lint.findings(before), output_lint.findings(after)
    added = [
        f"{name}: {code} {message} (+{count - old.get(name, {}).get((code, message), 0)})"
        for name, counts in sorted(new.items())
        for (code, message), count in counts.items()
        if count > old.get(name, {}).get((code, message), 0)
    ]
    assert added == []
    assert len(SOURCES) > 100  # every fixture and program was looked at
