"""A TODO an earlier run wrote goes once its cause is gone: the user removed the use that kept the
pipeline, the next run converts it, and the TODO above the statement that is left no longer says
something false. Before, it stayed, above code that was now dynamic mode."""

from __future__ import annotations

from ndd_migrate.engine.transform import transform
from ndd_migrate.io.policy import Policy
from tests.conftest import migrate_text

SOURCE = (
    "import nvidia.dali.fn as fn\nfrom nvidia.dali import pipeline_def\n\n\n"
    "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
    "def train(root):\n    jpegs, labels = fn.readers.file(file_root=root)\n    return jpegs, labels\n\n\n"
    "pipe = train('/data')\npipe.build()\nprint(len(pipe.serialize()))\nprint(pipe.run())\n"
)


def todos(text: str) -> list[str]:
    return [line for line in text.splitlines() if "TODO(ndd-migrate)" in line]


def test_a_todo_whose_cause_the_user_removed_goes_on_the_next_run():
    first, _ = migrate_text(SOURCE, line_length=88)
    assert len(todos(first)) == 1 and "@pipeline_def" in first
    edited = first.replace("print(len(pipe.serialize()))\n", "")  # the user drops the use, not the TODO
    second, _ = migrate_text(edited, line_length=88)
    assert "def train(root, *" in second and todos(second) == []
    assert "#   dynamic mode has no graph" not in second  # the TODO's continuation lines go with it


def test_a_todo_that_still_holds_stays_as_it_is():
    first, _ = migrate_text(SOURCE, line_length=88)
    again, _ = migrate_text(first, line_length=88)
    assert again == first


def test_the_users_own_comments_beside_a_stale_todo_stay():
    first, _ = migrate_text(SOURCE, line_length=88)
    edited = first.replace("print(len(pipe.serialize()))\n", "").replace(
        "pipe.build()\n", "pipe.build()\n# the user's note\n"
    )
    second, _ = migrate_text(edited, line_length=88)
    assert "# the user's note\n" in second and todos(second) == []


def test_a_todo_of_a_rule_not_selected_is_left_alone():
    first, _ = migrate_text(SOURCE, line_length=88)
    edited = first.replace("print(len(pipe.serialize()))\n", "print(1)\n")
    policy = Policy(is_enabled=lambda code, _path: code != "NDD902", line_length=lambda _path: 88)
    result = transform(edited, "example.py", policy)
    assert result.error is None
    assert len(todos(result.new_source if result.changed else edited)) == 1


def _definer_and_importer(folder) -> None:
    """``pipes.noise``, kept because ``main.py`` hands it to a class the run does not follow."""
    folder.mkdir(parents=True)
    (folder / "setup.cfg").write_text("")
    (folder / "pipes.py").write_text(
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def noise():\n    return fn.random.uniform(range=[0, 1], seed=1)\n"
    )
    (folder / "main.py").write_text(
        "from feeders import Feeder\n\nfrom pipes import noise\n\npipe = noise()\nfeeder = Feeder(pipe)\n"
    )


def test_a_todo_naming_another_module_is_not_written_again_from_another_folder(tmp_path, cli, monkeypatch):
    """The TODO above `noise` names the use in main.py by the path the run was given: a second run
    started in the project's folder names it `main.py`, the first `project/main.py`. Before, the
    second run wrote the same TODO again beside the first."""
    _definer_and_importer(tmp_path / "project")
    monkeypatch.chdir(tmp_path)
    cli("migrate", "project")
    first = (tmp_path / "project" / "pipes.py").read_text()
    assert len(todos(first)) == 1 and "project/main.py:6" in " ".join(first.split()), first
    monkeypatch.chdir(tmp_path / "project")
    cli("migrate", ".")
    assert (tmp_path / "project" / "pipes.py").read_text() == first


def test_a_todo_naming_a_line_that_moved_is_not_written_again():
    """A TODO naming a line of another module: that module's own TODOs, written by the same run, move
    the line down, and the next run names the new line. The TODO there already says it."""
    import libcst as cst

    from ndd_migrate.engine.todos import add_todo_comments

    said = "# TODO(ndd-migrate): NDD008 not migrated: data/train.py:160 (`pipe`) uses it as a pipeline"
    stmt = cst.parse_module(f"x = 1\n{said}\nclass P:\n    pass\n").body[1]  # (a file's first comment is its header)
    again = add_todo_comments(stmt, [said.replace("data/train.py:160", "train.py:169")], width=88)
    assert again is stmt
    other = add_todo_comments(stmt, [said.replace("(`pipe`) uses it", "(`loader`) uses it")], width=88)
    assert len(todos(cst.Module(body=[other]).code)) == 2  # another cause is written
