"""`migrate` in CI: `--check` tells "would change" from "only TODOs remain" (exit status and
summary), and `--output-format json` gives the changed files and the places that need a human."""

from __future__ import annotations

import json

from tests.conftest import SMALL_PIPELINE

# A pipeline that stays (it is serialized): migrate leaves a TODO, and nothing else to change.
SERIALIZED = SMALL_PIPELINE + "\n\npipe = p('/data')\npipe.build()\nblob = pipe.serialize()\n"
CONVERTS = SMALL_PIPELINE + "\n\npipe = p('/data')\npipe.build()\nout = pipe.run()\n"


def test_check_fails_on_a_file_that_would_change_not_on_todos_already_there(cli, tmp_path):
    path = tmp_path / "loader.py"
    path.write_text(SERIALIZED)
    first = cli("migrate", "--check", path)
    assert first.exit_code == 1 and "1 would change" in first.stderr  # the TODO is not written yet
    assert cli("migrate", path).exit_code == 1  # written; a human must act
    marked = path.read_text()
    assert "# TODO(ndd-migrate): NDD902" in marked
    again = cli("migrate", "--check", path)
    assert again.exit_code == 0, again.stderr  # it was 1, with "0 would change"
    assert "0 would change" in again.stderr
    assert "Needs a human (1; all marked with TODOs already, in files that would not change)" in again.stderr
    strict = cli("migrate", "--check", "--exit-non-zero-on-todo", path)
    assert strict.exit_code == 1
    assert cli("migrate", "--diff", path).exit_code == 0 and path.read_text() == marked


def test_check_counts_todos_in_place_beside_a_file_that_would_change(cli, tmp_path):
    (tmp_path / "a.py").write_text(SERIALIZED)
    assert cli("migrate", tmp_path / "a.py").exit_code == 1
    (tmp_path / "b.py").write_text(CONVERTS.replace("def p(", "def q(").replace("p('/data')", "q('/data')"))
    result = cli("migrate", "--check", tmp_path)
    assert result.exit_code == 1
    assert "1 would change, 1 unchanged" in result.stderr and "all marked with TODOs already" in result.stderr


def test_json_lists_changed_files_and_the_places_for_a_human(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(SERIALIZED)
    (tmp_path / "b.py").write_text(CONVERTS.replace("def p(", "def q(").replace("p('/data')", "q('/data')"))
    result = cli("migrate", "--check", "--output-format", "json", ".")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert document["wrote"] is False and document["would_change"] is True
    assert document["changed"] == ["a.py", "b.py"]
    assert document["counts"] == {"scanned": 2, "changed": 2, "unchanged": 0, "failed": 0, "needs_human": 1}
    (item,) = document["needs_human"]
    assert (item["code"], item["filename"], item["location"]["row"]) == ("NDD902", "a.py", 12)
    assert item["message"] and item["hint"] and item["file_changes"] is True
    assert document["behaviour"] == {"random_draws": False, "sample_order": []}
    assert result.stderr == ""  # the summary is the document
    written = cli("migrate", "--output-format", "json", ".")
    assert written.exit_code == 1 and json.loads(written.stdout)["wrote"] is True
    after = json.loads(cli("migrate", "--check", "--output-format", "json", ".").stdout)
    assert after["changed"] == [] and after["would_change"] is False
    assert [(i["filename"], i["file_changes"]) for i in after["needs_human"]] == [("a.py", False)]


def test_json_reports_errors_and_refuses_diff_and_stdin(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.py").write_text("import nvidia.dali\ndef f(:\n")
    result = cli("migrate", "--output-format", "json", "bad.py")
    assert result.exit_code == 2
    (error,) = json.loads(result.stdout)["errors"]
    assert error["filename"] == "bad.py" and error["row"] == 2 and "cannot parse" in error["message"]
    assert cli("migrate", "--output-format", "json", "--diff", "bad.py").exit_code == 2
    assert cli("migrate", "--output-format", "json", "-").exit_code == 2
    assert cli("migrate", "--output-format", "xml", "bad.py").exit_code == 2


def test_json_says_what_changes_in_behaviour(cli, tmp_path, monkeypatch):
    """The summary's "What changes in behaviour" is in the document too: random draws."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.py").write_text(
        "from nvidia.dali import fn, pipeline_def\n\n\n@pipeline_def(batch_size=2, seed=3)\n"
        "def p():\n    return fn.random.uniform(range=[0, 1])\n\n\npipe = p()\npipe.build()\nout = pipe.run()\n"
    )
    document = json.loads(cli("migrate", "--check", "--output-format", "json", ".").stdout)
    assert document["changed"] == ["r.py"] and document["behaviour"]["random_draws"] is True
