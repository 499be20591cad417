"""Parent side: start a worker process for one side, wait with a timeout, read what it wrote.

A worker that does not come back with a result is still turned into a useful error: a timeout
names the phase it was in (``step 3``) and, from the ``faulthandler`` dump the worker writes just
before the deadline, the line of user code it was stuck in; a crash names the signal and the same
location; the tail of its stderr comes along.
"""

from __future__ import annotations

import os
import pickle
import re
import signal
import subprocess
import sys
import time

from ndd_migrate.verify.model import Settings, SideSpec

_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _tail(path: str, limit: int = 4000) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - limit))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def _location_from_dump(dump: str, user_files: set[str]) -> str | None:
    """The first (innermost) frame of a user file in a faulthandler dump. faulthandler lists the
    innermost frame first, thread by thread; the main thread's frames come last or first
    depending on the thread, so any user frame is good evidence."""
    for m in _FRAME.finditer(dump):
        if m.group(1) in user_files:
            return f"{m.group(1)}:{m.group(2)}"
    return None


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    proc.wait()


def run_side(side: str, spec: SideSpec, settings: Settings, workdir: str, **extra) -> dict:
    """Run one side (``"migrated"`` or ``"original"``) and return the worker's result dict
    (see :mod:`ndd_migrate.verify.worker`), synthesised for timeouts and crashes."""
    tag = side
    job = {
        "side": side,
        "spec": spec,
        "settings": settings,
        "dir": workdir,
        "status_path": os.path.join(workdir, f"{tag}.status"),
        "faults_path": os.path.join(workdir, f"{tag}.faults"),
        **extra,
    }
    job_path = os.path.join(workdir, f"{tag}.job")
    result_path = os.path.join(workdir, f"{tag}.result")
    stdout_path = os.path.join(workdir, f"{tag}.stdout")
    stderr_path = os.path.join(workdir, f"{tag}.stderr")
    with open(job_path, "wb") as f:
        pickle.dump(job, f, protocol=pickle.HIGHEST_PROTOCOL)

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH", "")) if p
    )
    env.setdefault("PYTHONFAULTHANDLER", "1")
    cmd = [sys.executable, "-m", "ndd_migrate.verify.worker", job_path, result_path]
    start = time.monotonic()
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        proc = subprocess.Popen(
            cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env, start_new_session=True
        )
        timed_out = False
        try:
            proc.wait(timeout=settings.timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc)
    wall = time.monotonic() - start

    user_files = {os.path.abspath(spec.path)} | ({spec.display} if spec.display else set())
    if not timed_out and os.path.exists(result_path):
        with open(result_path, "rb") as f:
            result = pickle.load(f)
        result["wall_s"] = wall
        return result

    phase = _read(job["status_path"]) or "starting"
    dump = _read(job["faults_path"])
    location = _location_from_dump(dump, user_files)
    if timed_out:
        message = f"timed out after {settings.timeout:g} s (in phase: {phase})"
        kind = "timeout"
    else:
        code = proc.returncode
        if code is not None and code < 0:
            try:
                how = f"killed by signal {signal.Signals(-code).name}"
            except ValueError:
                how = f"killed by signal {-code}"
        else:
            how = f"exited with code {code} without a result"
        message = f"the worker process {how} (in phase: {phase})"
        kind = "crash"
    return {
        "ok": False,
        "side": side,
        "wall_s": wall,
        "notes": [],
        "timing": None,
        "error": {
            "kind": kind,
            "message": message,
            "location": location,
            "phase": phase,
            "traceback": dump.strip() or None,
            "stderr_tail": _tail(stderr_path),
        },
    }
