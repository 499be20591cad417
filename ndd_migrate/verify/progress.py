"""What a verify run is doing, for a person watching a terminal (10–20 s pass per pipeline).

The workers write their phase to a status file (:class:`~ndd_migrate.verify.side.Status`); while
the parent waits for one (:meth:`~ndd_migrate.verify.runner.SideProcess.wait`), it hands the phase
to the reporter set with :func:`reporting`, about four times a second. The command line sets one
that shows a spinner on a terminal and nothing in a pipe; the Python API sets none."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

#: (side, pipeline, phase) → None; None: nobody is told
_reporter: Callable[[str, str, str], None] | None = None


@contextlib.contextmanager
def reporting(reporter: Callable[[str, str, str], None]) -> Iterator[None]:
    """Tell ``reporter`` each phase of the workers run inside the block."""
    global _reporter
    previous, _reporter = _reporter, reporter
    try:
        yield
    finally:
        _reporter = previous


def tell(side: str, pipeline: str, phase: str) -> None:
    if _reporter is not None:
        _reporter(side, pipeline, phase)


def wanted() -> bool:
    return _reporter is not None
