"""``ndd-migrate migrate`` on real files: what is written, what is left alone, exit codes.

"Nothing is lost": every file either stays byte-for-byte as it was or is replaced by output that
parses, with its encoding, BOM, line endings and permissions kept."""

from __future__ import annotations

import os
import stat

import pytest

from ndd_migrate.app import runner
from tests.conftest import FIXTURES

PIPELINE = (
    "from nvidia.dali import pipeline_def, fn\n"
    "\n"
    "\n"
    "@pipeline_def(batch_size=2)\n"
    "def p(root):\n"
    "    # note: é\n"
    "    data = fn.readers.numpy(file_root=root)\n"
    "    return data\n"
)
MIGRATED = (
    "import nvidia.dali.experimental.dynamic as ndd\n"
    "\n"
    "from ndd_support import prefetching\n"
    "\n"
    "\n"
    "@prefetching\n"
    "def p(root, *, batch_size=2):\n"
    "    # note: é\n"
    "    reader = ndd.readers.Numpy(file_root=root)\n"
    "    while True:\n"
    "        for (data,) in reader.next_epoch(batch_size=batch_size):\n"
    "            yield data.evaluate(),\n"
)


def write(path, text, encoding="utf-8", bom=False, newline="\n"):
    data = text.replace("\n", newline).encode(encoding)
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + data)
    return path


def test_rewrites_in_place_and_exits_0(tmp_path, cli):
    f = write(tmp_path / "p.py", PIPELINE)
    result = cli("migrate", tmp_path)
    assert result.exit_code == 0, result.output
    assert f.read_text(encoding="utf-8") == MIGRATED
    assert "1 changed" in result.stderr


def test_crlf_encoding_cookie_bom_and_permissions_are_kept(tmp_path, cli):
    crlf = write(tmp_path / "crlf.py", PIPELINE, newline="\r\n")
    latin = write(tmp_path / "latin.py", "# -*- coding: latin-1 -*-\n" + PIPELINE, encoding="latin-1")
    bom = write(tmp_path / "bom.py", PIPELINE, bom=True)
    os.chmod(crlf, 0o755)
    assert cli("migrate", tmp_path).exit_code == 0
    assert crlf.read_bytes() == MIGRATED.replace("\n", "\r\n").encode()
    assert stat.S_IMODE(crlf.stat().st_mode) == 0o755
    assert latin.read_bytes() == ("# -*- coding: latin-1 -*-\n" + MIGRATED).encode("latin-1")
    assert bom.read_bytes() == b"\xef\xbb\xbf" + MIGRATED.encode()


def test_diff_and_check_write_nothing(tmp_path, cli):
    f = write(tmp_path / "p.py", PIPELINE)
    diff = cli("migrate", "--diff", f)
    assert diff.exit_code == 1  # a diff: exit 1, as `ruff format --diff` (it was 0)
    assert (
        "-@pipeline_def(batch_size=2)" in diff.stdout
        and "+import nvidia.dali.experimental.dynamic as ndd" in diff.stdout
    )
    check = cli("migrate", "--check", f)
    assert check.exit_code == 1
    assert f.read_text(encoding="utf-8") == PIPELINE
    assert cli("migrate", f).exit_code == 0
    assert cli("migrate", "--diff", f).exit_code == 0  # nothing left to show


def test_bad_files_are_reported_and_left_untouched_while_others_go_on(tmp_path, cli):
    broken = write(tmp_path / "broken.py", "import nvidia.dali.fn as fn\ndef f(:\n    pass\n")
    undecodable = tmp_path / "undecodable.py"
    undecodable.write_bytes(b"import nvidia.dali\nx = '\xff\xfe'\n")
    good = write(tmp_path / "good.py", PIPELINE)
    before = {p: p.read_bytes() for p in (broken, undecodable)}
    result = cli("migrate", tmp_path)
    assert result.exit_code == 2
    assert good.read_text(encoding="utf-8") == MIGRATED
    for path, data in before.items():
        assert path.read_bytes() == data
    assert "broken.py:2" in result.stderr
    assert "undecodable.py" in result.stderr


def test_a_missing_path_is_its_error_and_the_other_paths_still_run(tmp_path, cli):
    """Before, a missing path stopped the run: the other files were not looked at, and `check`'s
    json or sarif printed nothing (an empty report uploaded by `... > x.sarif || true`)."""
    pipeline = tmp_path / "p.py"
    pipeline.write_text(
        "from nvidia.dali import fn, pipeline_def\n\n\n@pipeline_def(batch_size=2)\ndef p():\n"
        "    return fn.random.uniform()\n",
        encoding="utf-8",
    )
    migrated = cli("migrate", tmp_path / "nope.py", pipeline)
    assert migrated.exit_code == 2 and "nope.py" in migrated.stderr and "No such file" in migrated.stderr
    assert "ndd." in pipeline.read_text(encoding="utf-8")
    checked = cli("check", "--output-format", "sarif", tmp_path / "nope.py", tmp_path)
    assert checked.exit_code == 2 and '"results"' in checked.stdout and "nope.py" in checked.stdout


def test_a_rule_that_crashes_leaves_the_file_untouched(tmp_path, cli, monkeypatch):
    from ndd_migrate.rules import ndd104_batch_size

    def boom(self, original, updated):
        raise RuntimeError("rule bug")

    monkeypatch.setattr(ndd104_batch_size.Impl, "leave_Call", boom)
    f = write(tmp_path / "p.py", PIPELINE.replace("return data", "return fn.random.uniform()"))
    data = f.read_bytes()
    result = cli("migrate", "--jobs", "1", f)
    assert result.exit_code == 2
    assert "internal error" in result.stderr and "rule bug" in result.stderr
    assert f.read_bytes() == data


@pytest.mark.parametrize(
    "text",
    [
        "# this project once used nvidia.dali pipelines: @pipeline_def, fn.readers.file, pipe.run()\nx = 1\n",
        "DOC = 'call pipe.build() then pipe.run() with device=\"mixed\" (nvidia.dali)'\n",
        "def pipeline_def(f):\n    return f\n\n\n@pipeline_def\ndef p():\n    fn = object()\n    return fn\n# dali\n",
        "import nvidia.dali.experimental.dynamic as ndd\n\nr = ndd.readers.File(file_root='x')\n"
        "for images, labels in r.next_epoch(batch_size=4):\n    x = ndd.flip(images)\n",
    ],
    ids=["comment", "string", "local-pipeline_def", "ndd-code"],
)
def test_files_that_merely_mention_dali_are_byte_for_byte_unchanged(tmp_path, cli, text):
    f = write(tmp_path / "m.py", text)
    data = f.read_bytes()
    result = cli("migrate", f)
    assert result.exit_code == 0, result.output
    assert f.read_bytes() == data


def test_manual_work_exits_1_and_todo_is_never_added_twice(tmp_path, cli):
    # A second reader with other arguments: their epochs need not line up (NDD001).
    source = PIPELINE.replace(
        "    return data\n",
        "    other = fn.readers.numpy(file_root=root, file_filter='*.npz')\n    return data, other\n",
    )
    f = write(tmp_path / "two.py", source)
    first = cli("migrate", f)
    assert first.exit_code == 1
    assert "NDD001" in first.stderr and "two.py:" in first.stderr
    once = f.read_text(encoding="utf-8")
    assert once.count("TODO(ndd-migrate): NDD001") == 1
    second = cli("migrate", f)
    assert second.exit_code == 1
    assert f.read_text(encoding="utf-8") == once


def test_parallel_run_gives_the_same_output_as_serial(tmp_path):
    from ndd_migrate.engine.context import Policy

    paths = []
    for i in range(10):
        for fixture in sorted(FIXTURES.glob("*/pipeline.py")):
            target = tmp_path / f"{fixture.parent.name}_{i}.py"
            target.write_bytes(fixture.read_bytes())
            paths.append(target)
    serial = runner.run(paths, Policy.migrate(), jobs=1)
    parallel = runner.run(paths, Policy.migrate(), jobs=2)
    assert [r.new_source for r in serial.results] == [r.new_source for r in parallel.results]
    assert all(r.changed for r in parallel.results)


RANDOM = PIPELINE.replace("    return data\n", "    return fn.random.coin_flip(), data\n").replace(
    "@pipeline_def(batch_size=2)", "@pipeline_def(batch_size=2, seed=3)"
)


@pytest.mark.parametrize("flags", [(), ("--diff",)])
def test_random_draws_are_said_once_per_run(tmp_path, cli, flags):
    """What changes by design is said once, where the user reads: in the summary, not per file."""
    write(tmp_path / "a.py", RANDOM)
    write(tmp_path / "b.py", RANDOM.replace("def p(", "def q("))
    result = cli("migrate", *flags, tmp_path)
    assert result.stderr.count("random operators now draw from `ndd.random.RNG`") == 1, result.stderr


def test_no_word_on_random_draws_without_random_operators(tmp_path, cli):
    write(tmp_path / "a.py", PIPELINE)
    assert "ndd.random.RNG" not in cli("migrate", tmp_path).stderr


def test_the_users_syntax_warnings_do_not_leak_into_the_output(tmp_path):
    """`device is 'gpu'` in the user's code: Python's SyntaxWarning was printed among migrate's own
    lines (once per compile of the file)."""
    import subprocess
    import sys

    source = PIPELINE.replace("@pipeline_def", "x = 1 is 'gpu'\n\n\n@pipeline_def", 1)
    path = write(tmp_path / "p.py", source)
    for command in (["migrate", "--diff"], ["check"], ["migrate"]):
        done = subprocess.run(
            [sys.executable, "-m", "ndd_migrate.cli", *command, str(path)], capture_output=True, text=True, check=False
        )
        assert "SyntaxWarning" not in done.stderr + done.stdout, (command, done.stderr)


@pytest.mark.parametrize("command", ["check", "migrate"])
def test_a_named_file_without_dali_that_does_not_parse_is_an_error(tmp_path, cli, command):
    """``check bad.py`` said "All checks passed!" for a file that does not mention DALI and does not
    parse (pre-commit names every staged file). Named, it is the file's error, as a DALI file's
    would be; found under a folder it is not parsed (every linter's syntax check reports it)."""
    (tmp_path / "pkg").mkdir()
    bad = write(tmp_path / "pkg" / "bad.py", "def f(:\n    return 1\n")
    write(tmp_path / "pkg" / "fine.py", "x = 1\n")
    named = cli(command, bad)
    assert named.exit_code == 2, named.stderr
    assert "bad.py:1: error: cannot parse" in named.stdout + named.stderr
    assert cli(command, tmp_path / "pkg" / "fine.py").exit_code == 0
    assert cli(command, tmp_path / "pkg").exit_code == 0
    assert bad.read_text() == "def f(:\n    return 1\n"  # nothing written


@pytest.mark.parametrize("command", ["check", "migrate"])
@pytest.mark.parametrize(
    ("data", "error"),
    [
        (b"x = 1\r\ny = 2\r\n", None),  # CRLF
        (b"# -*- coding: latin-1 -*-\ns = 'caf\xe9'\n", None),  # declared encoding
        (b"s = 'caf\xe9'\n", "cannot decode byte 0xe9"),  # Python refuses it too
        (b"def f(:\r\n    pass\r\n", "cannot parse"),
        (b"\xef\xbb\xbfimport numpy as np\n", None),  # BOM, an import alias
    ],
)
def test_a_named_file_without_dali_is_read_as_python_reads_it(tmp_path, cli, command, data, error):
    """The named file's bytes decide, as CPython's would: only a file Python refuses is an error,
    and none is touched."""
    path = tmp_path / "m.py"
    path.write_bytes(data)
    done = cli(command, path)
    assert done.exit_code == (2 if error else 0), done.stdout + done.stderr
    assert error is None or error in done.stdout + done.stderr
    assert path.read_bytes() == data


@pytest.mark.parametrize("command", ["check", "migrate"])
def test_what_a_run_did_not_look_at_is_said(tmp_path, cli, command):
    """An empty folder and a file named explicitly but marked @generated passed in silence ("All
    checks passed!")."""
    (tmp_path / "empty").mkdir()
    generated = write(tmp_path / "gen.py", "# @generated by a tool\n" + PIPELINE)
    empty = cli(command, tmp_path / "empty")
    assert empty.exit_code == 0 and "warning: No Python files found under the given path(s)" in empty.stderr
    named = cli(command, generated)
    assert named.exit_code == 0 and "gen.py: marked @generated, not looked at" in named.stderr
    assert generated.read_text(encoding="utf-8").endswith(PIPELINE)
    walked = cli(command, tmp_path)  # found by walking a folder: skipped as the configuration says
    assert "marked @generated" not in walked.stderr


def test_a_finding_at_line_100_is_printed_as_written_not_as_an_emoji(tmp_path, cli):
    """`file.py:100:` holds rich's emoji code `:100:`; the summary prints the location as it is."""
    head = "from nvidia.dali import fn, pipeline_def\n" + "\n" * 96
    source = head + "@pipeline_def(batch_size=2)\ndef p():\n    return fn.external_source(name='x')\n"
    path = tmp_path / "x.py"
    path.write_text(source)
    result = cli("migrate", "--diff", path)
    assert "x.py:100:" in result.stderr and "\U0001f4af" not in result.stderr, result.stderr
