"""`check --watch` (ruff's): the report again after a file changes, exit 0 on Ctrl-C (SIGINT)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from tests.conftest import SMALL_PIPELINE

CLEAN = "x = 1\n"


def _wait_for(stream_lines: list[str], pipe, text: str, timeout: float = 60.0) -> None:
    """Read ``pipe`` line by line into ``stream_lines`` until a line holds ``text``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = pipe.readline()
        if not line:
            break
        stream_lines.append(line)
        if text in line:
            return
    raise AssertionError(f"no {text!r} in: {''.join(stream_lines)}")


def test_watch_reports_again_after_a_change_and_stops_on_ctrl_c(tmp_path):
    path = tmp_path / "loader.py"
    path.write_text(CLEAN)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen(
        [sys.executable, "-m", "ndd_migrate.cli", "check", "--watch", "--no-cache", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    seen: list[str] = []
    try:
        _wait_for(seen, process.stdout, "Starting linter in watch mode")
        _wait_for(seen, process.stdout, "All checks passed!")
        _wait_for(seen, process.stdout, "Watching for file changes")
        path.write_text(SMALL_PIPELINE + "\n\npipe = p('/data')\npipe.build()\nout = pipe.run()\n")
        _wait_for(seen, process.stdout, "File change detected")
        _wait_for(seen, process.stdout, "NDD001")
        _wait_for(seen, process.stdout, "Watching for file changes")
        (tmp_path / "new.py").write_text(CLEAN)  # a new file is a change too
        _wait_for(seen, process.stdout, "File change detected")
        _wait_for(seen, process.stdout, "Watching for file changes")
        # A configuration file that appears is read: NDD001 is no longer reported.
        (tmp_path / "ndd-migrate.toml").write_text('ignore = ["NDD0"]\n')
        _wait_for(seen, process.stdout, "File change detected")
        report = len(seen)
        _wait_for(seen, process.stdout, "Watching for file changes")
        assert "NDD001" not in "".join(seen[report:]), "".join(seen[report:])
        # One that becomes bad is said, and the watch goes on.
        (tmp_path / "ndd-migrate.toml").write_text('ignroe = ["NDD0"]\n')
        _wait_for(seen, process.stdout, "did you mean 'ignore'")
        (tmp_path / "ndd-migrate.toml").write_text('ignore = ["NDD0"]\n')
        _wait_for(seen, process.stdout, "Watching for file changes")
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0, "".join(seen)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert "Traceback" not in "".join(seen) + process.stdout.read()


def test_watch_refuses_standard_input_and_diff(cli, tmp_path):
    assert cli("check", "--watch", "-").exit_code == 2
    assert cli("check", "--watch", "--diff", tmp_path).exit_code == 2
