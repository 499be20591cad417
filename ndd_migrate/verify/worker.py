"""The worker process: runs one side and writes what it saw.

``python -m ndd_migrate.verify.worker JOB RESULT`` — ``JOB`` is a pickle written by
:mod:`ndd_migrate.verify.runner`; ``RESULT`` a pickle this process writes. Each step's outputs go to
their own file in the job's directory, so neither process ever holds all steps in memory.

Why a process per side: the two sides must not share DALI state (thread pools, the dynamic-mode
operator cache, our patches), a crash or hang in user code must not take the caller down, and
a timeout must be able to kill it. The migrated (ndd) side runs first: it records the random
states and reader seeds the pipeline side then receives (see :mod:`~ndd_migrate.verify.rng` and
:mod:`~ndd_migrate.verify.readers`). The sides themselves: :mod:`~ndd_migrate.verify.migrated_side`
and :mod:`~ndd_migrate.verify.original_side`, with what they share in :mod:`~ndd_migrate.verify.side`.

Diagnostics for a side that never writes its result: the current phase (``step 3``) is kept in a
status file, and ``faulthandler`` writes every thread's Python stack to a file on a fatal signal
and shortly before the parent's timeout, so a crash or a hang still points at a line of user code.
"""

from __future__ import annotations

import faulthandler
import os
import pickle
import sys
import traceback

from ndd_migrate.verify.errors import INSTALL_HINT, SetupError
from ndd_migrate.verify.loading import user_location
from ndd_migrate.verify.migrated_side import run_migrated
from ndd_migrate.verify.original_side import run_original
from ndd_migrate.verify.side import Status, write_pickle


def _error(result: dict, kind: str, message: str, **extra) -> None:
    result["ok"] = False
    result["error"] = {"kind": kind, "message": message, **extra}


def _wait_for_go(job: dict, status: Status) -> bool:
    """Pre-started workers (the original side starts while the migrated side runs, so that its
    DALI import overlaps) wait here for the rest of their job. False: the parent gave up."""
    import time

    status("waiting for the migrated side")
    path = job["go_path"]
    while not os.path.exists(path):
        time.sleep(0.02)
    with open(path, "rb") as f:
        go = pickle.load(f)
    if go.get("abort"):
        return False
    job.update(go)
    return True


def _arm_fault_dump(job: dict) -> None:
    """Dump every thread's stack shortly before the parent's deadline (``job["deadline"]``, wall
    clock), so that a hang is located even though the process gets killed."""
    import time

    timeout = job["settings"].timeout
    left = job.get("deadline", time.time() + timeout) - time.time()
    margin = min(1.5, timeout * 0.1)
    faulthandler.dump_traceback_later(max(0.1, left - margin), file=sys.stderr if _FAULTS is None else _FAULTS)


_FAULTS = None


#: ndd-migrate's own files: none of their frames is shown to a user
_OWN = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _format_user_traceback(tb: traceback.StackSummary, files: set) -> str | None:
    """The traceback's frames in user code (and DALI called by it), without verify's own; None
    when none of them is in the user's ``files`` (``f() missing 1 required positional argument``
    raised at the call: the message says it all, and frames of ndd-migrate or of DALI's
    wrappers are nothing a user can act on)."""
    frames = [f for f in tb if not os.path.abspath(f.filename).startswith(_OWN)]
    if not any(f.filename in files for f in frames):
        return None
    return "".join(["Traceback (most recent call last):\n", *traceback.format_list(frames)])


_WRAPPERS = ("An error happened during asynchronous execution",)


def _actionable(exc: BaseException) -> BaseException:
    """The exception that says what went wrong: dynamic mode re-raises an operator's error as
    "An error happened during asynchronous execution" *from* DALI's own message ("Slice can't be
    placed out of bounds ..."), which is the one a user can act on."""
    seen = 0
    while seen < 10 and any(w in str(exc) for w in _WRAPPERS):
        inner = exc.__cause__ or exc.__context__
        if inner is None:
            break
        exc, seen = inner, seen + 1
    return exc


def _user_frame(exc: BaseException, files: set) -> str | None:
    """The user's line in the traceback of the exception that says what went wrong: for a
    dynamic-mode operator error it starts with the call stack of the op's invocation."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename in files:
            return f"{frame.filename}:{frame.lineno}"
    return None


def run_job(job: dict) -> dict:
    side = job["side"]
    status = Status(job["status_path"])
    result: dict = {
        "ok": False,
        "side": side,
        "error": None,
        "notes": [],
        "user_files": [],
        "timing": None,
    }
    try:
        try:
            import nvidia.dali as dali
        except ImportError as e:
            _error(result, "missing-dali", f"DALI cannot be imported ({e}); {INSTALL_HINT}")
            return result
        result["dali_version"] = getattr(dali, "__version__", "?")
        if job.get("go_path"):
            import numpy  # noqa: F401 - warm up while waiting
            import nvidia.dali.fn  # noqa: F401
            import nvidia.dali.pipeline  # noqa: F401

            if not _wait_for_go(job, status):
                _error(result, "aborted", "the other side failed")
                return result
        _arm_fault_dump(job)
        if side == "migrated":
            run_migrated(job, result, status)
        else:
            run_original(job, result, status)
        result["ok"] = True
    except SetupError as e:
        _error(result, e.kind, str(e), location=e.location, phase=status.phase)
    except BaseException as e:  # user code: anything, SystemExit included
        from ndd_migrate.verify.lowering import NoCpuBackend, no_cpu_backend_from_error

        ncb = e if isinstance(e, NoCpuBackend) else None
        if ncb is None and result.get("lowered") and side == "migrated":
            ncb = no_cpu_backend_from_error(e)
        if ncb is not None:
            _error(result, "no-cpu-backend", str(ncb), ops=ncb.ops, phase=status.phase)
        else:
            tb = traceback.extract_tb(e.__traceback__)
            files = set(result["user_files"]) | {os.path.abspath(job["spec"].path)}
            shown = _actionable(e)
            _error(
                result,
                "exception",
                f"{type(shown).__name__}: {shown}".strip(),
                exception_type=type(e).__name__,
                location=(shown is not e and _user_frame(shown, files)) or user_location(tb, files, str(e)),
                traceback=_format_user_traceback(tb, files),
                phase=status.phase,
            )
    return result


def main(argv: list[str]) -> int:
    global _FAULTS
    job_path, result_path = argv
    with open(job_path, "rb") as f:
        job = pickle.load(f)
    with open(job["faults_path"], "w") as faults:
        _FAULTS = faults
        faulthandler.enable(file=faults, all_threads=True)
        result = run_job(job)
        faulthandler.cancel_dump_traceback_later()
        write_pickle(result_path, result)
        sys.stdout.flush()
        sys.stderr.flush()
        # DALI's thread pools and pipelines may take long to tear down; the result is written.
        os._exit(0)


if __name__ == "__main__":  # pragma: no cover - run as a subprocess
    sys.exit(main(sys.argv[1:]))
