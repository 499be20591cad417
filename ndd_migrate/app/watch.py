"""``check --watch``: the check again whenever a file changes, until Ctrl-C (ruff's ``--watch``).

ndd-migrate has no file-watcher dependency (ruff's is built in; Python's ``watchdog`` would be one
more package to install): it polls. Every :data:`INTERVAL` seconds it lists the files the run
covers again (so a new file counts, and a deleted one) and compares their modification times and
sizes with the last look, and the configuration files that may govern them (their coming and
going too: the configuration is read again after any change). Listing a tree costs milliseconds where a check costs far more, and the
results cache makes the run after a change re-check only the files that changed.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable

#: Seconds between two looks at the files.
INTERVAL = 0.5


def snapshot(paths: Iterable[str | os.PathLike]) -> dict[str, tuple[int, int]]:
    """Each file's modification time (ns) and size; a file that cannot be looked at is left out
    (its going away is a change)."""
    state = {}
    for path in paths:
        try:
            status = os.stat(path)
        except OSError:
            continue
        state[os.fspath(path)] = (status.st_mtime_ns, status.st_size)
    return state


def configuration_files(roots: Iterable[str | os.PathLike]) -> list[str]:
    """Where a configuration file that governs ``roots`` can be, there or not: each configuration
    file name (:data:`~ndd_migrate.io.config.CONFIG_FILES`) in each root's directory and the
    directories above it. One that appears, changes or goes is a change to watch."""
    from ndd_migrate.io.config import CONFIG_FILES

    found = {}
    for root in roots:
        directory = os.path.abspath(root)
        if not os.path.isdir(directory):
            directory = os.path.dirname(directory)
        while True:
            for name in CONFIG_FILES:
                found.setdefault(os.path.join(directory, name), None)
            parent = os.path.dirname(directory)
            if parent == directory:
                break
            directory = parent
    return list(found)


def watch(files: Callable[[], Iterable], run: Callable[[bool], None], interval: float = INTERVAL) -> int:
    """``run(False)``, then ``run(True)`` each time the files ``files()`` lists (asked again at
    every look) change; returns 0 when interrupted (Ctrl-C), as ruff's watch mode exits. A change
    made while ``run`` runs is seen at the next look: the state is taken before each run."""
    try:
        seen = snapshot(files())
        run(False)
        while True:
            time.sleep(interval)
            now = snapshot(files())
            if now != seen:
                seen = now
                run(True)
    except KeyboardInterrupt:
        return 0
