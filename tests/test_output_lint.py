"""What `migrate` writes passes the linters its input passed: ruff (pinned in the test extra) over
every fixture and whole program of tests/programs, before and after the migration, finds nothing
new of what a reviewer sends back — an unused or duplicate import (F401, F811), an unused local
(F841), an undefined name (F821), trailing whitespace (W291).

Long created lines (E501) are measured on the dev corpus by ``benchmarks/output_lint.py`` rather
than asserted here: a long f-string, or a statement the user wrote on several lines and the
migration nested one level deeper, is left as a formatter leaves it."""

from __future__ import annotations

import collections
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, ROOT, migrate_text

CODES = "F401,F811,F841,F821,W291"
SOURCES = sorted([*FIXTURES.glob("*/pipeline.py"), *(ROOT / "tests" / "programs").glob("*.py")])


def _findings(folder: Path) -> dict[str, collections.Counter]:
    """Per file name: ruff's findings of :data:`CODES`, counted by code and message (line numbers
    in messages blanked: the migration moves lines)."""
    done = subprocess.run(
        ["ruff", "check", "--isolated", "--select", CODES, "--output-format", "json", "--exit-zero", str(folder)],
        capture_output=True,
        text=True,
        check=True,
    )
    found: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for finding in json.loads(done.stdout):
        found[Path(finding["filename"]).name][(finding["code"], re.sub(r"\d+", "N", finding["message"]))] += 1
    return found


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
    old, new = _findings(before), _findings(after)
    added = [
        f"{name}: {code} {message} (+{count - old[name][(code, message)]})"
        for name, counts in sorted(new.items())
        for (code, message), count in counts.items()
        if count > old[name][(code, message)]
    ]
    assert added == []
    assert len(SOURCES) > 100  # every fixture and program was looked at
