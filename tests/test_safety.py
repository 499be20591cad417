""" "Nothing lost, the run goes on": what ``migrate`` and ``check`` do with odd files, links,
permissions, failing writes, concurrent edits, kills, newlines and whitespace (docs/safety.md)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ndd_migrate.io import files, writing
from ndd_migrate.io.discovery import discover
from ndd_migrate.io.files import SourceError, read_source
from ndd_migrate.io.indentation import split_indentation
from ndd_migrate.io.newlines import restore_newlines, split_newlines
from ndd_migrate.io.writing import write_refusal, write_source
from tests.conftest import ROOT, SMALL_PIPELINE

PIPELINE = SMALL_PIPELINE


def run_cli(*args, timeout=60, user=None):
    """The CLI in a subprocess (a hang fails the test instead of blocking the suite)."""
    command = [sys.executable, "-c", "from ndd_migrate.cli import main; main()", *map(str, args)]
    if user is not None:
        command = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *command]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env, check=False)


# ------------------------------------------------------------------------ 1. only regular files


def test_a_fifo_in_a_walked_tree_is_skipped_not_waited_for(tmp_path):
    (tmp_path / "p.py").write_text(PIPELINE)
    os.mkfifo(tmp_path / "fifo.py")
    (tmp_path / "zero.py").symlink_to("/dev/zero")
    assert [os.path.basename(p) for p in discover([tmp_path], root=tmp_path)] == ["p.py"]
    for command in ("check", "migrate"):
        result = run_cli(command, tmp_path)
        assert result.returncode in (0, 1), result.stderr
    assert "ndd" in (tmp_path / "p.py").read_text()


def test_a_named_fifo_or_device_is_a_per_file_error(tmp_path):
    (tmp_path / "p.py").write_text(PIPELINE)
    os.mkfifo(tmp_path / "fifo.py")
    (tmp_path / "zero.py").symlink_to("/dev/zero")
    result = run_cli("migrate", tmp_path / "fifo.py", tmp_path / "zero.py", tmp_path / "p.py")
    assert result.returncode == 2
    assert "not a regular file (a FIFO)" in result.stderr
    assert "not a regular file (a character device)" in result.stderr
    assert "ndd" in (tmp_path / "p.py").read_text()  # the others go on


def test_a_fifo_among_the_project_files_searched_for_importers_does_not_block(tmp_path):
    """The run looks through the project for files importing what it converts: a FIFO named
    `x.py` there, not given, is passed over, not opened."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "p.py").write_text(PIPELINE)
    os.mkfifo(tmp_path / "fifo.py")
    result = run_cli("migrate", tmp_path / "p.py")
    assert result.returncode == 0, result.stderr
    assert "ndd" in (tmp_path / "p.py").read_text()


def test_read_bytes_refuses_non_regular_files_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "fifo.py")
    for path in (tmp_path / "fifo.py", "/dev/zero", tmp_path):
        with pytest.raises(SourceError, match="not a regular file"):
            files.read_bytes(path)


# ------------------------------------------------------------------------------------ 2. links


def test_migrate_dir_never_rewrites_a_file_outside_it_through_a_symlink(tmp_path, cli):
    tree, outside = tmp_path / "tree", tmp_path / "outside.py"
    tree.mkdir()
    outside.write_text(PIPELINE)
    (tree / "link.py").symlink_to(outside)
    (tree / "inside.py").write_text(PIPELINE)
    (tree / "inner_link.py").symlink_to(tree / "inside.py")
    assert [os.path.basename(p) for p in discover([tree], root=tmp_path)] == ["inner_link.py"]
    result = cli("migrate", tree)
    assert result.exit_code == 0, result.output
    assert outside.read_text() == PIPELINE
    assert (tree / "link.py").is_symlink() and (tree / "inner_link.py").is_symlink()
    assert "ndd" in (tree / "inside.py").read_text()


def test_a_hard_linked_file_is_refused_not_split(tmp_path, cli):
    (tmp_path / "a.py").write_text(PIPELINE)
    os.link(tmp_path / "a.py", tmp_path / "b.py")
    (tmp_path / "c.py").write_text(PIPELINE)
    result = cli("migrate", tmp_path / "a.py", tmp_path / "c.py")
    assert result.exit_code == 2
    assert "hard links" in result.output
    assert (tmp_path / "a.py").read_text() == PIPELINE
    assert os.stat(tmp_path / "a.py").st_ino == os.stat(tmp_path / "b.py").st_ino
    assert "ndd" in (tmp_path / "c.py").read_text()


# ------------------------------------------------------------------------------ 3. permissions


def stat_of(mode=0o100644, uid=1000, nlink=1):
    return os.stat_result((mode, 1, 1, nlink, uid, uid, 10, 0, 0, 0))


def test_write_refusal_decides_on_permissions_links_and_owner():
    assert write_refusal(stat_of(), euid=1000, can_write=True) is None
    assert "not writable" in write_refusal(stat_of(), euid=1000, can_write=False)
    assert "not writable (mode 0444" in write_refusal(stat_of(0o100444), euid=0, can_write=True)
    assert "another user" in write_refusal(stat_of(uid=1001, mode=0o100666), euid=1000, can_write=True)
    assert write_refusal(stat_of(uid=1001), euid=0, can_write=True) is None  # root keeps the owner
    assert "2 hard links" in write_refusal(stat_of(nlink=2), euid=1000, can_write=True)
    assert write_refusal(stat_of(), euid=None, can_write=True) is None


def test_a_read_only_file_is_a_per_file_error_the_others_written(tmp_path, cli):
    (tmp_path / "a.py").write_text(PIPELINE)
    (tmp_path / "a.py").chmod(0o444)
    (tmp_path / "b.py").write_text(PIPELINE)
    result = cli("migrate", tmp_path)
    assert result.exit_code == 2
    assert "not writable (mode 0444" in result.output
    assert (tmp_path / "a.py").read_text() == PIPELINE
    assert "ndd" in (tmp_path / "b.py").read_text()


AS_NOBODY = """
import os, sys
from ndd_migrate.io import files, writing
os.setgroups([]); os.setresgid(65534, 65534, 65534); os.setresuid(65534, 65534, 65534)
for path in sys.argv[1:]:
    try:
        writing.write_source(path, "x = 2\\n", files.read_source(path))
        print(path, "written")
    except files.SourceError as error:
        print(path, "error:", error.message)
"""


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to become nobody")
def test_as_another_user_files_it_cannot_write_are_refused_though_the_directory_is_writable():
    # The kernel's own answer, as an unprivileged user: root would bypass the file modes.
    import shutil
    import tempfile

    directory = tempfile.mkdtemp(prefix="ndd-safety-")
    try:
        os.chmod(directory, 0o777)
        paths = {name: os.path.join(directory, name) for name in ("root.py", "mine.py", "shared.py")}
        for path in paths.values():
            Path(path).write_text("x = 1\n")
        os.chmod(paths["root.py"], 0o644)  # root's, not writable by nobody
        os.chown(paths["mine.py"], 65534, 65534)
        os.chmod(paths["shared.py"], 0o666)  # root's, writable by all: would become nobody's
        result = subprocess.run(
            [sys.executable, "-c", AS_NOBODY, *paths.values()],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        out = result.stdout
        assert f"{paths['root.py']} error: not writable" in out, result.stderr
        assert f"{paths['mine.py']} written" in out
        assert f"{paths['shared.py']} error: owned by another user" in out
        assert Path(paths["root.py"]).read_text() == "x = 1\n"
        assert Path(paths["shared.py"]).read_text() == "x = 1\n"
        assert os.stat(paths["shared.py"]).st_uid == 0
    finally:
        shutil.rmtree(directory)


# ------------------------------------------------------------------- 4. temporary file creation


def test_failing_to_create_the_temporary_file_is_a_per_file_error(tmp_path, cli, monkeypatch):
    (tmp_path / "full").mkdir()
    (tmp_path / "ok").mkdir()
    (tmp_path / "full/a.py").write_text(PIPELINE)
    (tmp_path / "ok/b.py").write_text(PIPELINE)
    real_mkstemp = writing.tempfile.mkstemp

    def mkstemp(*args, dir=None, prefix="", **kwargs):
        if dir.endswith("full") and prefix.startswith(".a.py."):  # not its support module's
            raise OSError(28, "No space left on device")
        return real_mkstemp(*args, dir=dir, prefix=prefix, **kwargs)

    monkeypatch.setattr(writing.tempfile, "mkstemp", mkstemp)
    result = cli("migrate", "--jobs", "1", tmp_path)
    assert result.exit_code == 2
    assert "cannot create a temporary file" in result.output and "No space left" in result.output
    assert (tmp_path / "full/a.py").read_text() == PIPELINE
    assert "ndd" in (tmp_path / "ok/b.py").read_text()


# ------------------------------------------------------------------ 5. edits during the write


@pytest.mark.parametrize("edit", ["content", "same-size", "touch"])
def test_an_edit_saved_while_the_temporary_file_is_written_is_kept(tmp_path, monkeypatch, edit):
    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1\n")
    source = read_source(path)
    real_fsync = os.fsync

    def edit_then_fsync(fd):
        real_fsync(fd)
        if edit == "content":
            path.write_bytes(b"x = 1  # saved meanwhile\n")
        elif edit == "same-size":
            before = path.stat()
            path.write_bytes(b"y = 1\n")
            os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # only the bytes differ
        else:
            os.utime(path, ns=(1, 1))

    monkeypatch.setattr(os, "fsync", edit_then_fsync)
    expected = path.read_bytes() if edit == "touch" else None
    with pytest.raises(SourceError, match="changed on disk while it was being written"):
        write_source(path, "x = 2\n", source)
    assert path.read_bytes() != b"x = 2\n"
    if expected is not None:
        assert path.read_bytes() == expected
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".ndd-tmp")]


# ---------------------------------------------------------------------- 6. after a SIGKILL


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_stale_temporary_files_of_a_killed_run_are_removed(tmp_path, monkeypatch):
    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1\n")
    dead = dead_pid()
    stale = tmp_path / f".a.py.{dead}.abcd_123{writing.TEMPORARY_SUFFIX}"
    alive = tmp_path / f".a.py.{os.getppid()}.abcd_123{writing.TEMPORARY_SUFFIX}"
    recent = tmp_path / f".b.py.{dead}.zzzz_123{writing.TEMPORARY_SUFFIX}"
    other = tmp_path / f".a.py.abcd_123{writing.TEMPORARY_SUFFIX}"  # not our pattern (no pid)
    for leftover in (stale, alive, recent, other):
        leftover.write_bytes(b"partial")
        os.utime(leftover, (1_000_000, 1_000_000))
    os.utime(recent, None)  # newer than this run
    monkeypatch.setattr(files, "STARTED", os.stat(recent).st_mtime - 1)
    names = []
    real_replace = os.replace
    monkeypatch.setattr(os, "replace", lambda src, dst: (names.append(src), real_replace(src, dst)))
    write_source(path, "x = 2\n", read_source(path))
    assert not stale.exists()
    assert alive.exists() and recent.exists() and other.exists()
    assert f".a.py.{os.getpid()}." in os.path.basename(names[0])  # the pid is in the name
    assert path.read_bytes() == b"x = 2\n"


WORKERS = """
import os, sys, time
from ndd_migrate.app import pool
from ndd_migrate.io.policy import Policy

def stuck(path, raw, policy):
    open(os.path.join(sys.argv[1], str(os.getpid())), "w").close()
    time.sleep(120)

pool.process_source = stuck
pool.process_sources([(f"{i}.py", b"x") for i in range(4)], Policy.check(), jobs=2)
"""


def running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stream:
            return stream.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_pool_workers_exit_when_the_main_process_is_killed(tmp_path):
    import signal
    import time

    main = subprocess.Popen(
        [sys.executable, "-c", WORKERS, str(tmp_path)], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}
    )
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
            workers = [int(p.name) for p in tmp_path.iterdir()]
        assert len(workers) == 2
        main.send_signal(signal.SIGKILL)
        main.wait()
        deadline = time.monotonic() + 10
        while any(map(running, workers)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(map(running, workers))
    finally:
        for pid in workers:  # ours: started by this test
            if running(pid):
                os.kill(pid, signal.SIGKILL)
        if main.poll() is None:
            main.kill()


def test_the_watchdog_fallback_exits_when_the_parent_is_gone():
    code = (
        "import os, threading\n"
        "from ndd_migrate.app import pool\n"
        "os._exit = lambda status: print('exit', status, flush=True) or threading.Event().set() or exit()\n"
        "pool._watch_parent(os.getppid() + 100000, interval=0.01)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert "exit 1" in result.stdout, result.stderr


# ------------------------------------------------------------------ 7. verify --base REV


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_verify_base_rejects_options_and_non_commits_before_git_sees_them(tmp_path):
    from ndd_migrate.verify.errors import SetupError
    from ndd_migrate.verify.gitbase import git_show

    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"}
    env.update(GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "one"], ["tag", "v1"]):
        if args[0] == "add":
            (tmp_path / "pipe.py").write_text("VERSION = 1\n")
            (tmp_path / "out:.").mkdir()  # where `git show --output=out:./pipe.py` would write
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True, env=env)
    path = str(tmp_path / "pipe.py")
    before = sorted(p.name for p in tmp_path.rglob("*"))
    for rev in (f"--output={tmp_path}/out", "-p", ""):
        with pytest.raises(SetupError, match="not a revision"):
            git_show(path, rev)
    for rev in ("HEAD:pipe.py", "no-such-rev", "HEAD~5"):
        with pytest.raises(SetupError, match="names no commit"):
            git_show(path, rev)
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing written
    assert git_show(path, "v1") == git_show(path, "HEAD") == "VERSION = 1\n"


# ------------------------------------------------------------------------------- 8. newlines


def test_restore_newlines_keeps_untouched_lines_breaks_and_gives_new_lines_the_dominant_one():
    text = "a\nb\r\nc\r\nd\re\r\n"
    normalized, newlines = split_newlines(text)
    assert normalized == "a\nb\nc\nd\ne\n" and newlines.dominant == "\r\n"
    new = "a\nb\nNEW\nc\nd\nE\n"
    assert restore_newlines(normalized, new, newlines) == "a\nb\r\nNEW\r\nc\r\nd\rE\r\n"
    assert split_newlines("x = 1")[1].dominant == "\n"
    assert split_newlines("a\rb\nc\r")[1].dominant == "\r"  # the most frequent, not the first


def test_generated_lines_take_the_dominant_newline_and_untouched_lines_keep_theirs(tmp_path, cli):
    lines = PIPELINE.replace("    data =", "    # kept as it is\n    data =").split("\n")
    # The first break is LF, most are CRLF, the untouched comment line ends with a lone LF.
    raw = lines[0] + "\n" + "\r\n".join(lines[1:5]) + "\r\n" + lines[5] + "\n" + "\r\n".join(lines[6:])
    path = tmp_path / "mixed.py"
    path.write_bytes(raw.encode())
    assert cli("migrate", path).exit_code == 0
    out = path.read_bytes()
    assert b"    # kept as it is\n    reader" in out  # its own LF, byte for byte
    assert b"\r\n\r\n\r\n@prefetching\r\ndef p(root" in out  # the untouched blank lines keep their CRLF
    assert b"    while True:\r\n" in out and out.endswith(b"yield data.evaluate(),\r\n")


def test_cr_only_files_keep_their_last_break_and_are_not_rewritten_for_nothing(tmp_path, cli):
    migrated = tmp_path / "cr.py"
    migrated.write_bytes(PIPELINE.replace("\n", "\r").encode())
    plain = tmp_path / "plain.py"
    plain.write_bytes(b"import nvidia.dali as dali\rx = 1\r")
    os.utime(plain, (1_000_000, 1_000_000))
    result = cli("migrate", tmp_path)
    assert result.exit_code == 0, result.output
    assert "1 changed" in result.stderr
    out = migrated.read_bytes()
    assert b"\n" not in out and out.endswith(b"yield data.evaluate(),\r")
    assert plain.read_bytes() == b"import nvidia.dali as dali\rx = 1\r"
    assert plain.stat().st_mtime == 1_000_000


# ---------------------------------------------------------------------------- 9. indentation

MIXED = (
    "from nvidia.dali import pipeline_def, fn\n"
    "\n"
    "if True:\n"
    "    x = 1\n"
    "    if x:\n"
    "\t    @pipeline_def(batch_size=2)\n"  # valid: 12 columns, and 5 > 4 with a tab as one
    "\t    def p(root):\n"
    "\t    \tdata = fn.readers.numpy(file_root=root)\n"
    "\t    \treturn data\n"
    "\t    z = 3\n"
    "    y = 2\n"
)


def test_a_valid_tab_and_space_mix_migrates_keeping_the_untouched_lines(tmp_path, cli):
    compile(MIXED, "mixed.py", "exec")
    path = tmp_path / "mixed.py"
    path.write_text(MIXED)
    check = cli("check", path)
    assert "cannot parse" not in check.output and "NDD" in check.output
    result = cli("migrate", path)
    assert result.exit_code == 0, result.output
    out = path.read_text()
    compile(out, "mixed.py", "exec")
    assert "ndd.readers.Numpy" in out
    assert "\t    def p(root, *, batch_size=2):\n\t    \treader = ndd" in out  # the file's own style
    assert "\n    x = 1\n    if x:\n" in out and out.endswith("\t    z = 3\n    y = 2\n")


def test_form_feeds_never_end_up_in_generated_indentation(tmp_path, cli):
    source = PIPELINE.replace("    data =", "\x0c    data =") + "\n\ndef other():\n\x0c    return 1\n"
    path = tmp_path / "ff.py"
    path.write_text(source)
    result = cli("migrate", path)
    assert result.exit_code == 0, result.output
    out = path.read_text()
    compile(out, "ff.py", "exec")
    assert "ndd.readers.Numpy" in out
    assert out.endswith("def other():\n\x0c    return 1\n")  # untouched: kept byte for byte
    assert "\x0c" not in out[: out.index("def other")]


def test_inconsistent_tabs_are_reported_at_their_line_and_normal_files_untouched(tmp_path, cli):
    bad = PIPELINE + "\n\ndef q():\n    if True:\n\tx = 1\n    return 2\n"
    path = tmp_path / "bad.py"
    path.write_text(bad)
    result = cli("migrate", path)
    assert result.exit_code == 2
    assert "bad.py:12: error: cannot parse: inconsistent use of tabs and spaces" in result.output.replace("\n", "")
    assert path.read_text() == bad
    assert split_indentation(PIPELINE) is None
    assert split_indentation("def f():\n\tx = 1\n\tif x:\n\t\ty = 2\n") is None  # libcst reads it
    assert split_indentation(MIXED)[1].culprit == 6
