""""Nothing lost, the run goes on": what ``migrate`` and ``check`` do with odd files, links,
permissions, failing writes, concurrent edits, kills, newlines and whitespace (docs/safety.md)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ndd_migrate import files
from ndd_migrate.files import SourceError, discover, read_source, write_source

ROOT = Path(__file__).resolve().parent.parent

PIPELINE = (
    "from nvidia.dali import pipeline_def, fn\n"
    "\n"
    "\n"
    "@pipeline_def(batch_size=2)\n"
    "def p(root):\n"
    "    data = fn.readers.numpy(file_root=root)\n"
    "    return data\n"
)


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
    assert [p.name for p in discover([tmp_path], root=tmp_path)] == ["p.py"]
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


def test_read_bytes_refuses_non_regular_files_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "fifo.py")
    for path in (tmp_path / "fifo.py", "/dev/zero", tmp_path):
        with pytest.raises(SourceError, match="not a regular file"):
            files.read_bytes(path)
