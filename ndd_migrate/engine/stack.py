"""How the engine runs: on a deep stack (deeply nested but valid code is migrated, not refused) and
with the cyclic garbage collector off while a file is processed (a large file's trees are millions
of live objects that a full collection would walk for nothing).
"""

from __future__ import annotations

import functools
import gc
import sys

#: The message for code nested deeper than the engine can follow, even on its deep stack.
TOO_DEEP = "nested too deeply for ndd-migrate: file left unchanged"


#: The stack and recursion limit the engine runs with. libcst's parser is native but its visitors
#: and ours are Python, several frames per level of nesting: a 400-term sum (each ``+`` one level)
#: or a list nested 150 deep exceeds Python's default limit of 1000 frames. A thread's stack is
#: only reserved, not committed, so a large one costs nothing until it is used.
DEEP_STACK_BYTES = 512 * 1024 * 1024


DEEP_RECURSION_LIMIT = 200_000


def on_deep_stack(function, *args):
    """``function(*args)`` in a thread with :data:`DEEP_STACK_BYTES` of stack, under a recursion
    limit of :data:`DEEP_RECURSION_LIMIT` (restored after): deep but valid code is migrated, not
    refused. Where the platform refuses such a stack, in this thread as it is."""
    import threading

    outcome: list = []

    def target() -> None:
        try:
            outcome.append((True, function(*args)))
        except BaseException as exc:  # handed to the caller's thread, raised there
            outcome.append((False, exc))

    limit = sys.getrecursionlimit()
    try:
        previous = threading.stack_size(DEEP_STACK_BYTES)
    except (ValueError, RuntimeError):
        return function(*args)
    try:
        sys.setrecursionlimit(max(limit, DEEP_RECURSION_LIMIT))
        worker = threading.Thread(target=target, name="ndd-engine")
        worker.start()
        worker.join()
    finally:
        threading.stack_size(previous)
        sys.setrecursionlimit(limit)
    ok, value = outcome[0]
    if not ok:
        raise value
    return value


def without_cycle_collection(work):
    """Run ``work`` with the cyclic garbage collector off, and back on after.

    A large file's trees and model are millions of live objects, and every full collection walks
    all of them: a third of the time of a 400 KB file went to collections that found next to
    nothing (a few dozen objects per file; the trees hold no cycles and are freed by reference
    counting). What a file does leave in cycles is collected after it, as before.
    """

    @functools.wraps(work)
    def run(*args, **kwargs):
        if not gc.isenabled():
            return work(*args, **kwargs)
        gc.disable()
        try:
            return work(*args, **kwargs)
        finally:
            gc.enable()

    return run
