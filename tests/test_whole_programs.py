"""Whole programs (tests/programs/*.py) migrated and run end to end: what ``migrate`` promises about a
program, not only about a pipeline function (see tests/programs/README.md)."""

from __future__ import annotations

import re

import pytest

from tests.conftest import HAS_DALI, ROOT, migrate_text

PROGRAMS = ROOT / "tests" / "programs"
CASES = sorted(p.name for p in PROGRAMS.glob("*.py"))
TODO = re.compile(r"^[ \t]*# TODO\(ndd-migrate\): .*\n", re.MULTILINE)


def _header(text: str, key: str) -> str:
    found = re.search(rf"^# {key}: (.+)$", text, re.MULTILINE)
    assert found, f"the program has no `# {key}:` line"
    return found.group(1).strip()


def test_every_program_declares_what_it_expects():
    assert CASES, "no whole programs"
    for name in CASES:
        text = (PROGRAMS / name).read_text(encoding="utf-8")
        assert re.match(r"(converted|blocked NDD\d{3}|marked NDD\d{3})$", _header(text, "expect")), name
        _header(text, "data")


@pytest.mark.parametrize("name", CASES)
def test_migration_keeps_its_promise(name):
    source = (PROGRAMS / name).read_text(encoding="utf-8")
    expect = _header(source, "expect")
    migrated, result = migrate_text(source, f"tests/programs/{name}")
    human = [d for d in result.diagnostics if d.needs_human]
    if expect == "converted":
        assert human == [], [f"{d.code}:{d.line} {d.message}" for d in human]
        assert migrated != source
    else:
        kind, code = expect.split()
        assert code in {d.code for d in human}, [f"{d.code}:{d.line} {d.message}" for d in human]
        if kind == "blocked":
            assert TODO.sub("", migrated) == source, "a blocked pipeline's file changed beyond its TODOs"
        else:
            assert migrated != source and f"TODO(ndd-migrate): {code}" in migrated
    again, second = migrate_text(migrated, f"tests/programs/{name}")
    assert again == migrated, "a second migration changed the output"


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize(
    "name",
    [
        n
        for n in CASES
        if re.search(r"^# (expect: converted|prints: the same)$", (PROGRAMS / n).read_text(), re.MULTILINE)
    ],
)
def test_converted_program_prints_the_same(name, programs):
    from fixtures import datasets

    source = (PROGRAMS / name).read_text(encoding="utf-8")
    needs = re.search(r"^# needs: (\w+)$", source, re.MULTILINE)  # a framework beyond DALI and PyTorch
    if needs:
        pytest.importorskip(needs.group(1))
    made = programs.dataset(datasets.make_all)
    data = {**made, "none": made["jpeg"].parent}[_header(source, "data")]  # "none": the folder of them all
    # As the command line migrates it: at a line length, so long rewritten lines are split too.
    migrated, _ = migrate_text(source, f"tests/programs/{name}", line_length=88)
    again, _ = migrate_text(migrated, f"tests/programs/{name}", line_length=88)
    assert again == migrated, "a second migration changed the output"
    expected, got = programs.both(source, migrated, [data], name=name, timeout=300)
    assert expected.stdout.strip(), "the original program printed nothing: it proves nothing"
    assert got.stdout == expected.stdout
