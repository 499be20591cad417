"""At most one TODO per construct: no statement gets two TODOs of one rule, over every whole program
and every blocked legacy class of the tests."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT, migrate_text
from tests.test_legacy import BLOCKED

TODO = re.compile(r"\s*# TODO\(ndd-migrate\): (NDD\d{3})")
SOURCES = {
    f"program {p.name}": p.read_text(encoding="utf-8") for p in sorted((ROOT / "tests" / "programs").glob("*.py"))
}
SOURCES.update({f"legacy {name}": source for name, (source, _) in BLOCKED.items()})


def _stacked(text: str) -> list[list[str]]:
    """The codes of each run of TODO lines (the TODOs above one statement) that repeats a code."""
    found, run = [], []
    for line in [*text.splitlines(), ""]:
        match = TODO.match(line)
        if match:
            run.append(match.group(1))
            continue
        if len(run) != len(set(run)):
            found.append(run)
        run = []
    return found


def test_the_checker_sees_a_repeated_code():
    assert _stacked("# TODO(ndd-migrate): NDD108 a\n# TODO(ndd-migrate): NDD108 b\nx = 1\n") == [["NDD108", "NDD108"]]
    assert _stacked("# TODO(ndd-migrate): NDD108 a\n# TODO(ndd-migrate): NDD401 b\nx = 1\n") == []


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_no_statement_gets_two_todos_of_one_rule(name):
    out, _ = migrate_text(SOURCES[name])
    assert _stacked(out) == [], out
