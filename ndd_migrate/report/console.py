"""The command line's consoles and progress bar (rich, imported only when something is shown).

They live apart from :mod:`ndd_migrate.cli` so that the command definitions stay short; nothing
here decides what a command does.
"""

from __future__ import annotations


def console(*, stderr: bool = False, highlight: bool = False):
    """A rich console. rich is imported here, not at start-up: it costs about 60 ms, and a clean
    ``check`` prints nothing through it. Off a terminal nothing wraps (a log or a pipe has no width)
    and there is no colour; rich itself honours ``NO_COLOR`` and ``FORCE_COLOR``."""
    import sys

    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    if isatty(stream):
        return Console(stderr=stderr, highlight=highlight, emoji=False)
    return Console(stderr=stderr, highlight=highlight, soft_wrap=True, width=10_000, emoji=False)


def isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class progress:
    """A progress bar on stderr for runs over many files, or over few that take a while: only on a
    terminal, never with ``--quiet``; gone when the run ends. Used as ``with progress(n, quiet) as
    advance``, where ``advance(k)`` counts ``k`` more files done (``None`` when there is no bar)."""

    #: From this many files the bar shows from the start.
    MIN_FILES = 50
    #: A run over fewer files shows it once it has run this long (seconds): a DALI file can take a
    #: second, and 38 of them ran half a minute on a blank screen.
    DELAY = 1.0

    def __init__(self, total: int, quiet: bool) -> None:
        import sys

        self.total = total
        self.bar = None
        self._timer = None
        if not quiet and total > 0 and isatty(sys.stderr):
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(
                TextColumn("ndd-migrate"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console(stderr=True),
                transient=True,
            )

    def __enter__(self):
        if self.bar is None:
            return None
        task = self.bar.add_task("files", total=self.total)
        if self.total >= self.MIN_FILES:
            self.bar.start()
        else:  # the bar draws what was done meanwhile when it starts
            import threading

            self._timer = threading.Timer(self.DELAY, self.bar.start)
            self._timer.daemon = True
            self._timer.start()
        done = [0]

        def advance(k: int = 1) -> None:  # a file can be looked at twice (cross-file pass)
            k = min(k, self.total - done[0])
            done[0] += k
            self.bar.advance(task, k)

        return advance

    def __exit__(self, *exc) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer.join()  # a start already under way finishes before the stop
        if self.bar is not None:
            self.bar.stop()
