"""Running ``migrate`` or ``check`` over many files, paying for libcst only where DALI is mentioned.

A pre-commit hook must feel instant, and most files of a repository never mention DALI. So this
module, like everything it imports, is standard library only: each file is read once, as bytes,
and the byte prefilter (:func:`ndd_migrate.files.mentions_dali`) drops the ones that cannot
involve DALI. Only when some file is left is :mod:`ndd_migrate.engine` imported, and with it
libcst and the rules (about 0.5 s); the bytes already read are handed on, and kept for the
cross-file pass (within a memory budget), so they are not read again.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from ndd_migrate import crossfile, files
from ndd_migrate.diagnostics import FileError, FileResult
from ndd_migrate.policy import Policy


@dataclass
class RunSummary:
    """Every file's result, in the order the files were given."""

    results: list[FileResult]

    @property
    def changed(self) -> list[FileResult]:
        return [r for r in self.results if r.changed and not r.error]

    @property
    def failed(self) -> list[FileResult]:
        return [r for r in self.results if r.error]

    @property
    def manual(self) -> list:
        return [d for r in self.results for d in r.diagnostics if d.needs_human]


def run(paths: Iterable[str | os.PathLike[str]], policy: Policy, jobs: int | None = None) -> RunSummary:
    """Process many files: unreadable ones become errors, ones without DALI are skipped unparsed,
    the rest go through the engine (in worker processes when there are enough of them)."""
    results: list[FileResult | None] = []
    pending: list[tuple[int, str, bytes]] = []  # (position in results, path, bytes read)
    kept = _KeptBytes()
    for given in paths:
        path = os.fspath(given)
        try:
            with open(path, "rb") as stream:
                raw = stream.read()
        except OSError as exc:
            results.append(FileResult(path=path, error=FileError(path, f"cannot read: {exc.strerror or exc}")))
            continue
        kept.add(path, raw)
        if files.mentions_dali(raw):
            pending.append((len(results), path, raw))
            results.append(None)
        else:
            results.append(FileResult(path=path, skipped=True))
    if pending:
        from ndd_migrate import engine

        processed = engine.process_sources([(path, raw) for _, path, raw in pending], policy, jobs)
        for (index, _, _), result in zip(pending, processed):
            results[index] = result
        # Modules that import a pipeline another file migrated go through again (crossfile.py).
        crossfile.follow_imports(
            results, policy, lambda again, known: engine.process_sources(again, known, jobs), read=kept.read
        )
    return RunSummary(results)


class _KeptBytes:
    """The bytes of the files read, kept for the cross-file pass (which searches every file for
    imports of the pipelines the run found) up to :attr:`BUDGET` bytes in all; past it, that pass
    reads the files again."""

    BUDGET = 256 * 1024 * 1024

    def __init__(self) -> None:
        self._bytes: dict[str, bytes] = {}
        self._size = 0

    def add(self, path: str, raw: bytes) -> None:
        if self._size + len(raw) <= self.BUDGET:
            self._bytes[path] = raw
            self._size += len(raw)

    def read(self, path: str) -> bytes | None:
        raw = self._bytes.get(path)
        return raw if raw is not None else crossfile.read_bytes(path)
