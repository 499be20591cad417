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

from ndd_migrate.verify import progress
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


class SideProcess:
    """One worker process. With ``pre_start=True`` it imports DALI right away and then waits for
    :meth:`release` to hand it the rest of its job (what the migrated side found): on a 2-core
    machine the import then overlaps with the other side's run. The timeout counts from
    :meth:`release`."""

    def __init__(
        self,
        side: str,
        spec: SideSpec,
        settings: Settings,
        workdir: str,
        *,
        pre_start: bool = False,
        **extra,
    ) -> None:
        self.side, self.spec, self.settings = side, spec, settings
        self.paths = {
            k: os.path.join(workdir, f"{side}.{k}")
            for k in ("job", "result", "stdout", "stderr", "status", "faults", "go")
        }
        job = {
            "side": side,
            "spec": spec,
            "settings": settings,
            "dir": workdir,
            "status_path": self.paths["status"],
            "faults_path": self.paths["faults"],
            "go_path": self.paths["go"] if pre_start else None,
            "deadline": time.time() + settings.timeout,
            **extra,
        }
        with open(self.paths["job"], "wb") as f:
            pickle.dump(job, f, protocol=pickle.HIGHEST_PROTOCOL)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH", "")) if p)
        cmd = [
            sys.executable,
            "-m",
            "ndd_migrate.verify.worker",
            self.paths["job"],
            self.paths["result"],
        ]
        self._out = open(self.paths["stdout"], "wb")
        self._err = open(self.paths["stderr"], "wb")
        self.proc = subprocess.Popen(
            cmd,
            stdout=self._out,
            stderr=self._err,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,  # so a timeout can kill what user code started, too
        )
        self.started = time.monotonic()

    def release(self, **extra) -> None:
        extra["deadline"] = time.time() + self.settings.timeout
        tmp = self.paths["go"] + ".tmp"
        with open(tmp, "wb") as f:
            pickle.dump(extra, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, self.paths["go"])
        self.started = time.monotonic()

    def abort(self) -> None:
        if self.proc.poll() is None:
            _kill_group(self.proc)
        self._close()

    def _close(self) -> None:
        for f in (self._out, self._err):
            if not f.closed:
                f.close()

    def wait(self) -> dict:
        """The worker's result dict (see :mod:`ndd_migrate.verify.worker`), synthesised for
        timeouts and crashes."""
        timed_out = False
        try:
            timed_out = not self._waited()
        except BaseException:  # Ctrl-C: the worker is in its own session, take it down too
            self.abort()
            raise
        if timed_out:
            _kill_group(self.proc)
        self._close()
        wall = time.monotonic() - self.started
        if not timed_out and os.path.exists(self.paths["result"]):
            with open(self.paths["result"], "rb") as f:
                result = pickle.load(f)
            result["wall_s"] = wall
            return result
        return self._failure(timed_out, wall)

    def _waited(self) -> bool:
        """Wait for the worker until its timeout, telling :mod:`~ndd_migrate.verify.progress` its
        phase meanwhile: whether it ended in time."""
        while True:
            remaining = self.settings.timeout - (time.monotonic() - self.started)
            step = min(remaining, 0.25) if progress.wanted() else remaining
            try:
                self.proc.wait(timeout=max(step, 0.01))
                return True
            except subprocess.TimeoutExpired:
                if step >= remaining:
                    return False
                progress.tell(self.side, self.spec.function, _read(self.paths["status"]) or "starting")

    def _failure(self, timed_out: bool, wall: float) -> dict:
        spec = self.spec
        user_files = {os.path.abspath(spec.path)} | ({spec.display} if spec.display else set())
        phase = _read(self.paths["status"]) or "starting"
        dump = _read(self.paths["faults"])
        location = _location_from_dump(dump, user_files)
        if timed_out:
            message = f"timed out after {self.settings.timeout:g} s (in phase: {phase})"
            kind = "timeout"
        else:
            code = self.proc.returncode
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
            "side": self.side,
            "wall_s": wall,
            "notes": [],
            "timing": None,
            "error": {
                "kind": kind,
                "message": message,
                "location": location,
                "phase": phase,
                "traceback": dump.strip() or None,
                "stderr_tail": _tail(self.paths["stderr"]),
            },
        }
