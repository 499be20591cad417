"""Many files in parallel: a pool of worker processes (forked where the platform allows it, so each
shares the imported libcst and rules), only when there are enough files to pay for it. A worker that
dies takes only the file that killed it, and no worker outlives the main process.
"""

from __future__ import annotations

import multiprocessing
import os
import sys

from ndd_migrate.engine.dispatch import rule_impls
from ndd_migrate.engine.source_file import process_source
from ndd_migrate.io.diagnostics import FileError, FileResult
from ndd_migrate.io.policy import Policy

#: Files per worker below which a worker process does not pay for itself. Measured on 2 busy cores:
#: a pool of two forked workers (libcst and the rules already imported) starts, takes four tasks and
#: stops in about 0.15 s, while one DALI file costs 0.15-1 s of CPU; a spawned worker (no ``fork``:
#: macOS, Windows) first starts an interpreter and imports the engine again, about 0.5 s.
MIN_FILES_PER_FORKED_WORKER = 2


MIN_FILES_PER_SPAWNED_WORKER = 8


def process_sources(
    sources: list[tuple[str, bytes]], policy: Policy, jobs: int | None = None, progress=None
) -> list[FileResult]:
    """Run the rules over many files already read, ``(path, bytes)``; results in the same order.

    Worker processes are used only when there are enough files for them to pay off. They are
    forked where the platform allows it (Linux), explicitly, since Python 3.14 no longer forks by
    default: a forked worker shares the already imported libcst and rules instead of importing
    them again. ``progress(1)``, when given, is called as each file is done.
    """
    tick = progress or (lambda k: None)
    rule_impls()  # import every rule now, before forking, so each worker inherits them
    context = _fork_context()
    workers = worker_count(len(sources), jobs, forked=context is not None)
    if workers <= 1:
        out = []
        for path, raw in sources:
            out.append(process_source(path, raw, policy))
            tick(1)
        return out
    # Largest files first: a file costs roughly in proportion to its size, and the run ends when
    # the busiest worker does (in the given order one worker could be left with a long tail alone).
    order = sorted(range(len(sources)), key=lambda i: -len(sources[i][1]))
    results: list[FileResult | None] = [None] * len(sources)
    isolated = False
    while order:
        _pool_pass(sources, order, results, policy, min(workers, len(order)), context, isolated, tick)
        order = [i for i in order if results[i] is None]
        if order and isolated:  # cannot happen (an isolated crash is a result); never loop on it
            for i in order:
                results[i] = _crashed(sources[i][0], "the worker process died")
            break
        isolated = True
    return results  # type: ignore[return-value]


def _pool_pass(sources, order, results, policy, workers, context, isolated, tick) -> None:
    """Fill ``results`` at ``order`` from a pool of ``workers``. A worker that dies (libcst's
    native parser can overflow its stack) breaks the pool, and the files not done are left None:
    the caller runs them again, ``isolated``, each in a process of its own inside the workers, so
    that only the file that kills its process fails (:func:`_isolated`)."""
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_set_worker_policy,
        initargs=(policy, os.getpid(), isolated),
    ) as pool:
        futures = {pool.submit(_process_in_worker, *sources[i]): i for i in order}
        try:
            for future in as_completed(futures):
                results[futures[future]] = future.result()
                tick(1)
        except BrokenProcessPool:
            pass


def _crashed(path: str, how: str) -> FileResult:
    return FileResult(path=path, error=FileError(path, f"{how} on this file; file left unchanged, please report it"))


#: The policy of the run, set once in each worker process: it holds the project's configuration,
#: which costs milliseconds to unpickle, too much to send along with every file.
_worker_policy: Policy | None = None


#: Whether this worker runs each file in a process of its own (after a worker died).
_worker_isolates = False


def _set_worker_policy(policy: Policy, parent: int | None = None, isolated: bool = False) -> None:
    global _worker_policy, _worker_isolates
    _worker_policy = policy
    _worker_isolates = isolated
    if parent is not None:
        _die_with_parent(parent)


#: Linux's ``prctl`` option: the signal a process gets when the thread that forked it ends.
_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    """Make this worker exit when the main process ``parent`` dies, even by SIGKILL (which no
    handler sees): else the pool's workers would go on running, orphaned. On Linux the kernel
    does it (``prctl(PR_SET_PDEATHSIG, SIGKILL)``; the pool forks from the main thread, which
    lives as long as the process); elsewhere, or where ``prctl`` fails, a daemon thread polls
    ``os.getppid()`` once a second."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0:
                if os.getppid() != parent:  # it died before prctl took effect
                    os._exit(1)
                return
        except (OSError, AttributeError):
            pass
    import threading

    threading.Thread(target=_watch_parent, args=(parent,), name="ndd-parent-watch", daemon=True).start()


def _watch_parent(parent: int, interval: float = 1.0) -> None:
    import time

    while True:
        if os.getppid() != parent:
            os._exit(1)
        time.sleep(interval)


def _process_in_worker(path: str, raw: bytes) -> FileResult:
    if _worker_isolates:
        return _isolated(path, raw)
    return process_source(path, raw, _worker_policy)


def _isolated(path: str, raw: bytes) -> FileResult:
    """``process_source`` in a forked child, whose result comes back through a pipe: a crash of
    the child (a signal, no result) is this file's error, and the worker goes on. Where there is
    no ``fork``, the worker's own process: the pool then breaks again at the same file, which
    :func:`process_sources` reports as that file's error."""
    import pickle

    if not hasattr(os, "fork"):
        return process_source(path, raw, _worker_policy)
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the child: never returns into the worker's code
        status = 1
        try:
            os.close(read)
            with os.fdopen(write, "wb") as out:
                out.write(pickle.dumps(process_source(path, raw, _worker_policy)))
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(child, 0)
    if status == 0 and data:
        return pickle.loads(data)
    how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit status {os.WEXITSTATUS(status)}"
    return _crashed(path, f"the parser's process died ({how})")


def worker_count(count: int, jobs: int | None, *, forked: bool) -> int:
    """How many worker processes ``count`` files pay for: at most ``jobs`` (default: the usable
    CPUs), and none beyond one per :data:`MIN_FILES_PER_FORKED_WORKER` (or spawned) files."""
    per_worker = MIN_FILES_PER_FORKED_WORKER if forked else MIN_FILES_PER_SPAWNED_WORKER
    return max(1, min(jobs or _available_cpus(), count // per_worker))


def _fork_context():
    """The ``fork`` start method on Linux, else None (the platform's default)."""
    if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return None


def _available_cpus() -> int:
    """CPUs this process may run on (a container or ``taskset`` may allow fewer than exist)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1
