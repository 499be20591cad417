"""The command line as a user meets it, through the real console script in a fresh interpreter:
one configuration for ``migrate`` and ``check``, repeatable options, ``--version``/``-h``,
standard input, option values rejected before anything runs, user text never read as rich markup,
colour only on a terminal, and a progress bar only on a terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT, SMALL_PIPELINE

PIPELINE = SMALL_PIPELINE
# A pipeline whose output goes to code the migration cannot follow: NDD008, with a hint that
# contains `data.tensors[i]` (rich markup, were it not escaped).
MANUAL = PIPELINE + (
    "\n\npipe = p('x', num_threads=1, device_id=0)\npipe.build()\n(data,) = pipe.run()\n"
    "import somewhere\nsomewhere.show(data)\n"
)
LEFTOVER = "import nvidia.dali.experimental.dynamic as ndd\n\n\ndef decode(jpegs):\n    return ndd.decoders.image(jpegs, device='mixed')\n"


def ndd(*args, cwd, stdin: bytes | None = None, env: dict | None = None):
    """``ndd-migrate ARGS`` as the console script runs it (``[project.scripts]`` → ``cli:main``)."""
    base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS")}
    base["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-c", "from ndd_migrate.cli import main; main()", *map(str, args)],
        cwd=cwd,
        input=stdin if stdin is not None else b"",
        capture_output=True,
        env={**base, **(env or {})},
        timeout=120,
    )


def out(done) -> str:
    return done.stdout.decode()


def err(done) -> str:
    return done.stderr.decode()


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# 1. One configuration for both commands --------------------------------------------------------


def test_migrate_honours_the_pyproject_table_as_check_does(tmp_path):
    write(
        tmp_path / "pyproject.toml",
        ('[tool.ndd-migrate]\nextend-exclude = ["vendored"]\nper-file-ignores = { "legacy/*" = ["ALL"] }\n'),
    )
    vendored = write(tmp_path / "vendored" / "a.py", PIPELINE)
    legacy = write(tmp_path / "legacy" / "b.py", PIPELINE)
    mine = write(tmp_path / "src" / "c.py", PIPELINE)
    check = ndd("check", "--output-format", "json", ".", cwd=tmp_path)
    assert {f["filename"] for f in json.loads(out(check))} == {"src/c.py"}
    done = ndd("migrate", ".", cwd=tmp_path)
    assert done.returncode == 0, err(done)
    assert vendored.read_text() == PIPELINE and legacy.read_text() == PIPELINE
    assert mine.read_text() != PIPELINE
    assert "2 files scanned, 1 changed" in err(done)


def test_migrate_honours_ignore_and_select_from_the_file_and_the_command_line(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.ndd-migrate]\nignore = ["NDD001"]\n')
    f = write(tmp_path / "p.py", PIPELINE)
    assert ndd("migrate", "--check", f, cwd=tmp_path).returncode == 0  # NDD001 off: nothing to do
    assert f.read_text() == PIPELINE
    assert ndd("migrate", "--check", "--select", "ALL", f, cwd=tmp_path).returncode == 1


# 2. Repeated options accumulate; --exclude is a list and means the same in both commands ---------


def test_repeated_select_accumulates(tmp_path):
    write(tmp_path / "p.py", PIPELINE)
    done = ndd("check", "--output-format", "json", "--select", "NDD001", "--select", "NDD301", ".", cwd=tmp_path)
    assert {f["code"] for f in json.loads(out(done))} == {"NDD001", "NDD301"}
    both = ndd("check", "--output-format", "json", "--select", "NDD001,NDD301", ".", cwd=tmp_path)
    assert out(both) == out(done)


@pytest.mark.parametrize("flags", [["--exclude", "a", "--exclude", "b"], ["--exclude", "a,b"]])
def test_exclude_accumulates_and_means_the_same_in_both_commands(tmp_path, flags):
    for name in "abc":
        write(tmp_path / name / "p.py", PIPELINE)
    check = ndd("check", "--output-format", "json", *flags, ".", cwd=tmp_path)
    assert {f["filename"] for f in json.loads(out(check))} == {"c/p.py"}
    migrate = ndd("migrate", *flags, ".", cwd=tmp_path)
    assert migrate.returncode == 0, err(migrate)
    assert [(tmp_path / n / "p.py").read_text() == PIPELINE for n in "abc"] == [True, True, False]


# 3. --version, -h, standard input ------------------------------------------------------------------


def test_version_and_short_help(tmp_path):
    from ndd_migrate import __version__

    version = ndd("--version", cwd=tmp_path)
    assert version.returncode == 0 and out(version).strip() == f"ndd-migrate {__version__}"
    for args in (["-h"], ["check", "-h"], ["migrate", "-h"]):
        done = ndd(*args, cwd=tmp_path)
        assert done.returncode == 0 and "Usage" in out(done), args
        assert out(done) == out(ndd(*[a.replace("-h", "--help") for a in args], cwd=tmp_path))


def test_check_reads_standard_input_with_a_file_name(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.ndd-migrate]\nper-file-ignores = { "quiet.py" = ["ALL"] }\n')
    done = ndd("check", "-", "--stdin-filename", "src/dec.py", cwd=tmp_path, stdin=LEFTOVER.encode())
    assert done.returncode == 1, err(done)
    assert out(done).startswith("src/dec.py:5:") and "NDD103" in out(done)
    ignored = ndd("check", "-", "--stdin-filename", "quiet.py", cwd=tmp_path, stdin=LEFTOVER.encode())
    assert ignored.returncode == 0 and "All checks passed!" in out(ignored)


def test_check_fix_on_standard_input_prints_the_fixed_text(tmp_path):
    done = ndd("check", "--fix", "-", cwd=tmp_path, stdin=LEFTOVER.encode())
    assert out(done) == LEFTOVER.replace("'mixed'", "'gpu'")
    assert done.returncode == 0 and "1 fixed" in err(done)


def test_migrate_reads_standard_input_and_prints_the_migrated_text(tmp_path):
    f = write(tmp_path / "p.py", PIPELINE)
    on_disk = ndd("migrate", "--diff", f, cwd=tmp_path)
    done = ndd("migrate", "-", "--stdin-filename", "p.py", cwd=tmp_path, stdin=PIPELINE.encode())
    assert done.returncode == 0, err(done)
    assert out(done).startswith("import nvidia.dali.experimental.dynamic as ndd\n")
    assert "+" + out(done).splitlines()[0] in out(on_disk)
    diff = ndd("migrate", "--diff", "-", "--stdin-filename", "p.py", cwd=tmp_path, stdin=PIPELINE.encode())
    # the same diff of the module (on disk, the support module it imports comes first)
    module_diff = out(on_disk)[out(on_disk).index(f"--- a/{f}") :]
    assert out(diff) == module_diff.replace(f"{f}", "p.py")
    plain = ndd("migrate", "-", cwd=tmp_path, stdin=b"import os\n")
    assert plain.returncode == 0 and out(plain) == "import os\n"  # nothing to migrate: as it was
    assert ndd("migrate", "-", f, cwd=tmp_path).returncode == 2


# 4. Bad option values are rejected before anything is done ------------------------------------


def test_bad_check_output_format_is_rejected_before_fixing(tmp_path):
    f = write(tmp_path / "dec.py", LEFTOVER)
    done = ndd("check", "--fix", "--output-format", "pylint", f, cwd=tmp_path)
    assert done.returncode == 2
    assert "pylint" in err(done) and "concise" in err(done) and "Traceback" not in err(done)
    assert f.read_text() == LEFTOVER  # nothing written


@pytest.mark.parametrize("command", [["rules"], ["verify", "a.py", "b.py"]])
def test_bad_text_or_json_output_format_is_rejected(tmp_path, command):
    done = ndd(*command, "--output-format", "yaml", cwd=tmp_path)
    assert done.returncode == 2 and "yaml" in err(done) and out(done) == ""


# 5. User and rule text is never rich markup ------------------------------------------------------


def test_rules_table_keeps_brackets(tmp_path):
    assert ".tensors[i]" in out(ndd("rules", cwd=tmp_path, env={"COLUMNS": "400"}))


def test_migrate_hints_and_paths_keep_brackets(tmp_path):
    f = write(tmp_path / "x[" / "]b.py", MANUAL)  # the path x[/]b.py
    done = ndd("migrate", "--check", tmp_path, cwd=tmp_path)
    assert done.returncode == 1, err(done)
    assert "x[/]b.py:" in err(done) and "data.tensors[i]" in err(done)
    assert "MarkupError" not in err(done)
    assert f.read_text() == MANUAL
    failing = write(tmp_path / "y[red]" / "c.py", "import nvidia.dali\ndef f(:\n")
    broken = ndd("migrate", failing, cwd=tmp_path)
    assert broken.returncode == 2 and "y[red]/c.py" in err(broken)


@pytest.mark.parametrize(
    "args", [["check", "--select", "[/]", "."], ["explain", "[/]"], ["migrate", "--ignore", "[/]", "."]]
)
def test_arguments_with_markup_are_shown_as_given(tmp_path, args):
    done = ndd(*args, cwd=tmp_path)
    assert done.returncode == 2 and "'[/]'" in err(done) and "Traceback" not in err(done)


def test_config_errors_keep_the_table_name_and_keys(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.ndd-migrate]\n"[/]" = 1\n')
    write(tmp_path / "p.py", PIPELINE)
    for command in ("check", "migrate"):
        done = ndd(command, ".", cwd=tmp_path)
        assert done.returncode == 2 and "Traceback" not in err(done)
        assert "'[/]'" in err(done) and "[tool.ndd-migrate]" in err(done)


# 7. Colour only on a terminal; a progress bar only on a terminal, hidden by --quiet -------------


def test_no_colour_when_piped_or_with_no_color(tmp_path):
    f = write(tmp_path / "dec.py", LEFTOVER)
    p = write(tmp_path / "p.py", PIPELINE)
    for env in ({}, {"NO_COLOR": "1", "FORCE_COLOR": "1"}):
        assert "\x1b[" not in out(ndd("check", f, cwd=tmp_path, env=env))
        assert "\x1b[" not in out(ndd("migrate", "--diff", p, cwd=tmp_path, env=env))
    coloured = ndd("check", f, cwd=tmp_path, env={"FORCE_COLOR": "1"})
    assert "\x1b[1;31mNDD103\x1b[0m" in out(coloured)
    diff = out(ndd("migrate", "--diff", p, cwd=tmp_path, env={"FORCE_COLOR": "1"}))
    assert "\x1b[32m+import nvidia.dali.experimental.dynamic as ndd\x1b[0m\n" in diff


def _stderr_on_a_terminal(args, cwd) -> str:
    """Run with stderr on a pseudo-terminal (stdout piped) and return what reached the terminal."""
    import pty

    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.Popen(
        [sys.executable, "-c", "from ndd_migrate.cli import main; main()", *map(str, args)],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=follower,
        env=env,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(leader)
    return b"".join(chunks).decode(errors="replace")


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_progress_bar_on_a_terminal_only_and_not_with_quiet(tmp_path):
    for i in range(60):
        write(tmp_path / f"m{i}.py", "import os\n" if i % 2 else LEFTOVER)
    shown = _stderr_on_a_terminal(["check", "-j", "1", "."], tmp_path)
    assert "━" in shown and "/60" in shown
    assert "━" not in _stderr_on_a_terminal(["check", "-j", "1", "--quiet", "."], tmp_path)
    assert "━" not in err(ndd("check", "-j", "1", ".", cwd=tmp_path))  # not a terminal


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_a_few_files_that_take_a_while_get_the_bar_too(tmp_path):
    """One large DALI file (seconds of work) showed nothing until the report: the bar waited for 50
    files. It now shows once a run has taken a second; a quick run over a few files shows none."""
    pipelines = "".join(
        f"\n\n@pipeline_def(batch_size=2)\ndef p{i}(root):\n    return fn.cast(fn.readers.numpy(file_root=root), dtype=1)\n"
        for i in range(400)
    )
    write(tmp_path / "slow" / "big.py", "from nvidia.dali import pipeline_def, fn\n" + pipelines)
    shown = _stderr_on_a_terminal(["check", "-j", "1", "--no-cache", "slow"], tmp_path)
    assert "━" in shown and "/1" in shown
    for i in range(3):
        write(tmp_path / "quick" / f"m{i}.py", "import os\n")
    assert "━" not in _stderr_on_a_terminal(["check", "-j", "1", "quick"], tmp_path)


@pytest.mark.parametrize("args", [["--tolerance", "[/]"], ["--report", "no[/]dir/r.json"]])
def test_verify_errors_with_markup_are_shown_as_given(tmp_path, args):
    for name in ("a.py", "b.py"):
        write(tmp_path / name, "def f():\n    pass\n")
    done = ndd("verify", "a.py", "b.py", "--pipeline", "f", *args, cwd=tmp_path)
    assert done.returncode == 2 and "[/]" in err(done) + out(done) and "MarkupError" not in err(done)


@pytest.mark.parametrize("command", ["check", "migrate"])
def test_every_option_of_check_and_migrate_says_what_it_does(tmp_path, command):
    """`-j/--jobs` had no help text (an empty column in `--help`); now no option of these commands
    lacks one, the new ones (`--watch`, `--exit-non-zero-on-todo`, `--config`) included."""
    import typer.core
    import typer.main

    from ndd_migrate.cli import app

    group = typer.main.get_command(app)
    found = group.commands[command]
    options = [param for param in found.params if isinstance(param, typer.core.TyperOption)]
    assert options and [p.opts for p in options if not (p.help or "").strip()] == []
    named = {opt for p in options for opt in p.opts}
    assert {"-j", "--jobs", "--config"} <= named
    assert ("--watch" in named) is (command == "check")
    assert ("--exit-non-zero-on-todo" in named) is (command == "migrate")
    shown = out(ndd(command, "--help", cwd=tmp_path, env={"COLUMNS": "200"}))
    assert "Parallel worker processes" in shown
