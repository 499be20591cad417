"""NDD801 (ruff's RUF100): `# noqa` directives that silence nothing, reported and removed; opt-in."""

from __future__ import annotations

import json

from ndd_migrate.engine.transform import transform
from ndd_migrate.io import noqa
from ndd_migrate.io.policy import Policy

SELECTED = lambda code, path=None: True  # noqa: E731

DYNAMIC = (
    "import nvidia.dali.experimental.dynamic as ndd\n\n"
    "reader = ndd.readers.File(file_root='/data')  # noqa: E501, NDD504\n"
    "lower = ndd.readers.file(file_root='/data')  # noqa: NDD504, NDD503\n"
    "x = 1  # noqa\n"
    "# ndd-migrate: noqa: NDD201\n"
    "y = 2  # noqa: NDD801, NDD104\n"
)


def _found(result):
    return [(d.line, d.message, d.fix.value, d.fixed) for d in result.diagnostics if d.code == "NDD801"]


def test_idle_directives_are_reported_and_used_ones_are_not():
    """A code that silenced a finding (NDD504 on `ndd.readers.file`) is used; the other codes of
    ours are reported, other tools' codes never; `# noqa: NDD801` silences the report."""
    result = transform(DYNAMIC, "t.py", Policy.check(is_enabled=SELECTED))
    assert result.error is None and not result.changed
    assert _found(result) == [
        (3, "Unused `noqa` directive (unused: `NDD504`)", "safe", False),
        (4, "Unused `noqa` directive (unused: `NDD503`)", "safe", False),
        (5, "Unused blanket `noqa` directive", "unsafe", False),
        (6, "Unused `noqa` directive (unused: `NDD201`)", "safe", False),
    ]


def test_off_by_default_as_ruffs_rule_is():
    assert _found(transform(DYNAMIC, "t.py", Policy.check())) == []


def test_fix_removes_our_codes_and_keeps_the_others():
    """Safe fixes: the NDD codes go, `E501` stays, a file-level directive alone on its line takes
    the line; the blanket `# noqa` (maybe another linter's) goes only with --unsafe-fixes."""
    result = transform(DYNAMIC, "t.py", Policy.check(fix=True, is_enabled=SELECTED))
    assert result.new_source == (
        "import nvidia.dali.experimental.dynamic as ndd\n\n"
        "reader = ndd.readers.File(file_root='/data')  # noqa: E501\n"
        "lower = ndd.readers.file(file_root='/data')  # noqa: NDD504\n"
        "x = 1  # noqa\n"
        "y = 2  # noqa: NDD801, NDD104\n"
    )
    assert [fixed for *_, fixed in _found(result)] == [True, True, False, True]
    unsafe = transform(DYNAMIC, "t.py", Policy.check(fix=True, unsafe_fixes=True, is_enabled=SELECTED))
    assert "x = 1\n" in unsafe.new_source
    again = transform(unsafe.new_source, "t.py", Policy.check(is_enabled=SELECTED))
    assert _found(again) == []


def test_removal_keeps_the_rest_of_the_comment():
    text = "a = 1  # type: ignore  # noqa: NDD101 the old reader\nb = 2  # NOQA:NDD101,E501\n# noqa\n"
    found = noqa.Suppressor(text)
    new, count = noqa.without_unused(text, noqa.unused(found), text)
    assert (new, count) == ("a = 1  # type: ignore  # the old reader\nb = 2  # NOQA:E501\n", 3)


def test_migrate_finds_the_directive_again_in_the_rewritten_text():
    """`migrate` moves lines (the pipeline becomes a generator, `build()` goes); the idle directives
    are found in the new text and removed there, a comment that is no directive stays."""
    source = (
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "@pipeline_def(batch_size=2)  # noqa: NDD201\n"
        "def p(root):\n"
        "    data = fn.readers.numpy(file_root=root)  # noqa: E501, NDD504\n"
        "    return data\n\n\n"
        "pipe = p('/data')\n"
        "pipe.build()\n"
        "(out,) = pipe.run()  # the first batch\n"
        "size = 2  # noqa: NDD104\n"
    )
    result = transform(source, "t.py", Policy(is_enabled=SELECTED))
    assert result.error is None
    assert "# noqa: NDD201" not in result.new_source
    assert "ndd.readers.Numpy(file_root=root)  # noqa: E501\n" in result.new_source
    assert result.new_source.endswith("(out,) = next(pipe)  # the first batch\nsize = 2\n")
    assert [line for line, *_ in _found(result)] == [4, 6, 13]


def test_check_command_selects_fixes_and_reports_it(cli, tmp_path):
    """Through the command line, on a real file: nothing by default; `--extend-select NDD801`
    reports it (json), `--fix` writes the file and a second run is clean."""
    path = tmp_path / "loader.py"
    path.write_text(DYNAMIC)
    assert cli("check", "--no-cache", path).exit_code == 0
    found = cli("check", "--no-cache", "--extend-select", "NDD801", "--output-format", "json", path)
    assert found.exit_code == 1
    assert [(d["code"], d["location"]["row"]) for d in json.loads(found.stdout)] == [
        ("NDD801", 3),
        ("NDD801", 4),
        ("NDD801", 5),
        ("NDD801", 6),
    ]
    fixed = cli("check", "--no-cache", "--extend-select", "NDD801", "--fix", "--unsafe-fixes", path)
    assert fixed.exit_code == 0, fixed.stdout
    assert "# noqa: E501\n" in path.read_text() and "x = 1\n" in path.read_text()
    assert cli("check", "--no-cache", "--select", "ALL", path).exit_code == 0


def test_a_file_without_dali_is_judged_only_when_a_directive_names_our_codes(cli, tmp_path):
    """A file that never mentions DALI skips the engine, but a `# noqa: NDD201` there silences
    nothing: with NDD801 selected it is reported (and its blanket `# noqa` too); a file whose
    directives never name our codes is left to the linters they are for."""
    ours = tmp_path / "plain.py"
    ours.write_text("import os  # noqa: NDD201, F401\nx = 1  # noqa\n")
    theirs = tmp_path / "other.py"
    theirs.write_text("y = 1  # noqa\n")
    assert cli("check", "--no-cache", tmp_path).exit_code == 0
    found = cli("check", "--no-cache", "--extend-select", "NDD801", "--output-format", "json", tmp_path)
    assert [(d["filename"].rsplit("/", 1)[-1], d["location"]["row"]) for d in json.loads(found.stdout)] == [
        ("plain.py", 1),
        ("plain.py", 2),
    ]
    cli("check", "--no-cache", "--extend-select", "NDD801", "--fix", tmp_path)
    assert ours.read_text() == "import os  # noqa: F401\nx = 1  # noqa\n"
    assert theirs.read_text() == "y = 1  # noqa\n"


def test_add_noqa_does_not_silence_the_unused_directives(cli, tmp_path):
    """`--add-noqa` with NDD801 selected adds no `# noqa: NDD801` beside an idle directive (it
    wants removing), and leaves the other findings silenced as usual."""
    path = tmp_path / "loader.py"
    source = "import nvidia.dali.experimental.dynamic as ndd\n\nx = ndd.readers.file(file_root='/d')\ny = 2  # noqa: NDD104\n"
    path.write_text(source)
    done = cli("check", "--no-cache", "--extend-select", "NDD801", "--add-noqa", path)
    assert done.exit_code == 0 and "Added 1 noqa directive." in done.stderr
    assert path.read_text() == source.replace("file_root='/d')\n", "file_root='/d')  # noqa: NDD504\n")


def test_a_text_that_cannot_be_tokenized_has_its_directives_honoured_and_none_judged():
    text = "x = fn.resize(  # noqa: NDD103\ny = 1  # noqa: NDD104\n"  # unclosed bracket
    found = noqa.Suppressor(text)
    assert found("NDD103", 1) and found("NDD104", 2) and not found("NDD104", 1)
    assert noqa.unused(found) == []


def test_a_cached_run_does_not_hide_the_idle_directives(cli, tmp_path):
    """The results cache answers another selection from the rules' stored findings; NDD801 judges
    the directives after the rules, so with it selected the file is checked again, not read."""
    (tmp_path / "pyproject.toml").write_text("[tool.ndd-migrate]\n")
    path = tmp_path / "loader.py"
    path.write_text(DYNAMIC)
    assert cli("check", path).exit_code == 0  # fills the cache, NDD801 off
    found = cli("check", "--extend-select", "NDD801", "--output-format", "json", path)
    assert [d["code"] for d in json.loads(found.stdout)] == ["NDD801"] * 4
