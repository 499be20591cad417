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


def test_one_cause_in_several_places_is_said_once():
    """A reader in each branch of an `if` was said twice (four times in a real file), with the same
    words: once now, at the first, naming the other lines."""
    source = (
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def p(root, train=True):\n"
        "    if train:\n"
        "        jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)\n"
        "    else:\n"
        "        jpegs, labels = fn.readers.file(file_root=root)\n"
        "    return jpegs, labels\n\n\n"
        "pipe = p('/d')\npipe.build()\nout = pipe.run()\n"
    )
    out, result = migrate_text(source)
    (found,) = [d for d in result.diagnostics if d.needs_human]
    assert found.line == 7 and found.message.endswith("before the batch loop (the same at line 9)")
    assert out.count("TODO(ndd-migrate)") == 1 and "(the same in 1 more place)" in out


def test_two_findings_of_one_rule_at_one_statement_are_one_todo():
    """Two pipelines blocked at one statement (NDD008 for each) were two TODOs of NDD008 above it
    (found by benchmarks/fuzz_fixed_points.py): one now, saying how many more there are."""
    source = (
        "from nvidia.dali.pipeline import Pipeline\n\n\n"
        "class TrainPipe(Pipeline):\n    def define_graph(self):\n        return [a, b]\n\n\n"
        "class ValPipe(Pipeline):\n    def define_graph(self):\n        return [a, b]\n\n"
        "    loader = Loader(size=int(pipe.epoch_size('Reader')))\n"
    )
    out, result = migrate_text(source)
    assert _stacked(out) == [], out
    assert len([d for d in result.diagnostics if d.code == "NDD008"]) == 2
    assert "(and 1 more NDD008 finding here: `ndd-migrate check` lists them)" in " ".join(
        line.strip("# ") for line in out.splitlines()
    )
    assert migrate_text(out)[0] == out
