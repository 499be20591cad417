"""Running ``migrate`` or ``check`` over many files, paying for libcst only where DALI is mentioned.

A pre-commit hook must feel instant, and most files of a repository never mention DALI. So this
module, like everything it imports, is standard library only: each file is read once, as bytes,
and the byte prefilter (:func:`ndd_migrate.io.files.mentions_dali`) drops the ones that cannot
involve DALI. Only when some file is left is :mod:`ndd_migrate.engine.transform` imported, and with it
libcst and the rules (about 0.5 s); the bytes already read are handed on, and kept for the
cross-file pass (within a memory budget), so they are not read again.

A file without DALI can still use a pipeline: ``from pkg.pipes import train_pipe``, then
``pipe.build()``, ``pipe.run()``. When ``pkg/pipes.py`` is in the run the cross-file pass finds
it; when it is not (pre-commit passes only the staged files) :class:`crossfile.ProjectImports`
resolves the file's imports on disk and reads the project modules they name. Only a file that
imports a module defining a pipeline goes through the engine; the others stay on the fast path
(a byte search for import lines and a cached directory listing per search directory).
"""

from __future__ import annotations

import gc
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from ndd_migrate.app import stamps
from ndd_migrate.app.cache import Cache
from ndd_migrate.io import files
from ndd_migrate.io.diagnostics import FileError, FileResult
from ndd_migrate.io.policy import Policy
from ndd_migrate.model import crossfile, importers, namespaces
from ndd_migrate.support import SupportFile, plan
from ndd_migrate.syntax import pyparse


@dataclass
class RunSummary:
    """Every file's result, in the order the files were given, and what to do to the support
    modules the migrated ones import (:mod:`ndd_migrate.support`)."""

    results: list[FileResult]
    support: list[SupportFile] = field(default_factory=list)

    @property
    def changed(self) -> list[FileResult]:
        return [r for r in self.results if r.changed and not r.error]

    @property
    def failed(self) -> list[FileResult]:
        return [r for r in self.results if r.error]

    @property
    def manual(self) -> list:
        return [d for r in self.results for d in r.diagnostics if d.needs_human]


def run(
    paths: Iterable[str | os.PathLike[str]],
    policy: Policy,
    jobs: int | None = None,
    roots: Iterable[str | os.PathLike[str]] = (),
    progress: Callable[[int], None] | None = None,
    cache: Cache | None = None,
    include_generated: bool = True,
) -> RunSummary:
    """Process many files: unreadable ones become errors, ones without DALI are skipped unparsed
    unless they import a project module that defines a pipeline, the rest go through the engine
    (in worker processes when there are enough of them). ``roots`` are the paths the user gave
    (directories, or files whose directory counts): imports are also resolved against them.
    ``progress(k)``, when given, is told each time ``k`` more files are done (the CLI's bar).
    ``cache`` (``check`` only) gives the results of files seen before, unchanged, under the same
    policy (:mod:`ndd_migrate.app.cache`): only the others go through the engine. Unless
    ``include_generated``, files marked generated (:func:`files.is_generated`) are skipped."""
    paths = [os.fspath(p) for p in paths]
    kept = _KeptBytes()
    facts = _frozen(lambda: _Facts(kept, cache.files() if cache is not None else None))
    try:
        return _run(paths, policy, jobs, roots, progress, cache, include_generated, kept, facts)
    finally:
        gc.unfreeze()  # what has become garbage meanwhile is collected as before (`check --watch`)


def _frozen(make: Callable[[], _Facts]) -> _Facts:
    """``make()``, made with the garbage collector paused, then frozen (``gc.freeze``) with all
    that is alive: the paths, and the index of a warm run (:mod:`~ndd_migrate.app.stamps`: some
    200,000 objects for 10,000 files) live as long as the run and hold no garbage cycles. The
    passes their making set off, and the later ones walking them again as they aged, were half of
    a warm run's collecting, and a tenth of its time. The caller unfreezes when the run ends."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        made = make()
        gc.freeze()
        return made
    finally:
        if enabled:
            gc.enable()


def _run(paths, policy, jobs, roots, progress, cache, include_generated, kept, facts) -> RunSummary:
    """:func:`run`, with the bytes ``kept`` and the ``facts`` of its files."""
    project = crossfile.ProjectImports(paths, roots, read=kept.read)
    named = frozenset(os.path.normpath(os.fspath(r)) for r in roots)
    results, pending, readable = _prefiltered(paths, facts, include_generated, policy, named)
    if progress is not None:
        progress(len(paths) - len(pending))  # unreadable or without DALI: done
    _learn_imports(project, readable, facts, policy, jobs, cache)
    pending += _using_pipelines(project, results)
    if pending:
        pending.sort()
        if policy.fix:  # the import of the support module a migrated member of a namespace package writes
            forms = namespaces.support_imports([path for _, path, _ in pending], paths, facts.lines, kept.read)
            policy = replace(policy, support_imports={**forms, **policy.support_imports}) if forms else policy
        process = lambda sources, known, done=None: _process(sources, known, project, jobs, done, cache, facts)  # noqa: E731
        processed = process([(path, raw) for _, path, raw in pending], policy, progress)
        for (index, _, _), result in zip(pending, processed):
            if results[index] is None or result.changed or result.diagnostics:
                results[index] = result  # a file without DALI stays skipped unless it uses a pipeline
        # Modules that import a pipeline another file migrated go through again (crossfile.py); a
        # pipeline that a project file outside the run imports stays (importers.py).
        found_bytes = importers.RunBytes(facts.lines, kept.read)
        shared = importers.shared_functions(results, paths, found_bytes)
        if shared:  # a function taking a pipeline that other modules import: what they pass is not seen
            policy = replace(policy, shared_functions={**shared, **policy.shared_functions})
            importers.rerun_sharing(results, shared, policy, process, kept.read)
        outside, outside_helpers = importers.outside_importers(results, paths)
        passed_on = {
            **importers.exported_values_kept(results, paths, found_bytes),
            **importers.reexported(results, paths, found_bytes),
        }
        following = replace(
            policy,
            kept_pipelines={**passed_on, **outside, **policy.kept_pipelines},
            kept_helpers={**outside_helpers, **policy.kept_helpers},
        )
        importers.follow_imports(results, following, process, read=kept.read, lines=facts.lines)
        importers.settle_iterator_classes(results, following, process, kept.read, paths, lines=facts.lines)
    facts.save()
    return RunSummary(results, support_files(results, policy))


def support_files(results: list[FileResult], policy: Policy) -> list[SupportFile]:
    """What to do to each support module the changed files import: write, update or keep it; the
    files that need a function a refused one lacks become errors (left unchanged)."""
    needs: dict[str, list[FileResult]] = {}  # by file: a script and a namespace member import one differently
    for result in results:
        if result.changed and not result.error and result.support:
            needs.setdefault(result.support_at[0], []).append(result)
    found = []
    for path, users in needs.items():
        module = users[0].support_at[1]
        support = plan(path, module, {n for r in users for n in r.support}, [r.path for r in users])
        if support.refused:
            for result in users:
                result.error = FileError(result.path, f"not migrated: {support.refused}")
                result.changed = False
        found.append(support)
    return found


def _prefiltered(paths: list[str], facts: _Facts, include_generated: bool, policy: Policy, named: frozenset[str]):
    """Each file read once, or not at all when the results cache knows it unchanged (``facts``):
    ``(results, pending, readable)``. ``results`` holds, per path, an error for an unreadable file,
    a skipped result for a generated one (unless ``include_generated``) or one that does not
    mention DALI (nor, with NDD801 selected, has a ``# noqa`` naming our codes: :func:`_judges_noqa`),
    unless it is ``named`` and does not parse (:func:`_refused`), and None for the others, which
    are ``pending`` as ``(position in results, path, bytes or None when not read)``; ``readable``:
    the paths read or known."""
    results: list[FileResult | None] = []
    pending: list[tuple[int, str, bytes | None]] = []
    readable: list[str] = []
    for given in paths:
        path = os.fspath(given)
        try:
            raw, found = facts.take(path)  # regular files only: a FIFO or /dev/zero is an error
        except files.SourceError as exc:
            results.append(FileResult(path=path, error=exc.to_file_error()))
            continue
        readable.append(path)
        if not include_generated and found[_GENERATED]:
            results.append(FileResult(path=path, skipped=True, generated=True))
        elif found[_DALI] or (found[_OURS] and policy.is_enabled("NDD801", path)):
            pending.append((len(results), path, raw))
            results.append(None)
        else:
            error = _refused(path, raw) if os.path.normpath(path) in named else None
            results.append(FileResult(path=path, error=error) if error else FileResult(path=path, skipped=True))
    return results, pending, readable


def _refused(path: str, raw: bytes | None) -> FileError | None:
    """Why a file named on the command line (or by pre-commit) that does not mention DALI cannot
    be read as Python (CPython's verdict, as for a DALI file), or None. Such a file passed as
    "All checks passed!" though it does not parse; parsing it costs milliseconds. Files found
    under a folder are not parsed: a syntax error there is every linter's to report (ruff's E9),
    and parsing every file would cost a cold run more than its DALI files do. Notebooks are left to
    the notebook reader."""
    if not path.endswith(".py"):
        return None
    try:
        source = files.decode_source(raw if raw is not None else files.read_bytes(path), path)
        pyparse.parse(source.text)
    except files.SourceError as exc:
        return exc.to_file_error()
    except pyparse.Refused as refused:
        return FileError(path, refused.message, refused.line)
    return None


_NOQA = re.compile(rb"(?i)noqa")


def _judges_noqa(raw: bytes) -> bool:
    """May a file without DALI have to go through the engine for NDD801 (unused ``# noqa``,
    opt-in)? When the rule is selected for it (the caller asks) and its bytes hold a directive of
    ours (``noqa`` and ``NDD`` or ``ndd-migrate``): a ``# noqa: NDD201`` there silences nothing,
    while the blanket ``# noqa`` of other linters, in files that never name our codes, are not
    ours to judge."""
    return (b"NDD" in raw or b"ndd-migrate" in raw) and _NOQA.search(raw) is not None


# The facts of a file (a tuple, as the results cache keeps it: ndd_migrate.app.stamps).
_DALI, _GENERATED, _OURS, _IMPORTS, _LINES, _DIGEST = range(6)


class _Facts:
    """What the run draws from the bytes of each file it was given, from those bytes or, for a
    file the results cache knows unchanged (``index``, :mod:`~ndd_migrate.app.stamps`), from what
    it recorded: whether the file mentions DALI, is generated or names our ``noqa`` codes, its
    imports (:func:`crossfile.import_facts`) and import lines (:func:`importers.import_lines`), and
    the digest of its bytes (once a cache key needed it). Without a cache only the first three
    are drawn (the others come from the bytes when asked for)."""

    def __init__(self, kept: _KeptBytes, index: stamps.FileIndex | None) -> None:
        self._kept = kept
        self._index = index
        self._facts: dict[str, tuple] = {}
        self._stamps: dict[str, tuple | None] = {}

    def take(self, path: str) -> tuple[bytes | None, tuple]:
        """``(bytes, facts)`` of a file of the run (its bytes None when the cache knows it, unread);
        raises :class:`files.SourceError` for a file that cannot be read."""
        stamp, found = self._index.lookup(path) if self._index is not None else (None, None)
        self._stamps[path] = stamp
        if found is not None:  # recorded already
            self._facts[path] = found
            return None, found
        raw = files.read_bytes(path)
        self._kept.add(path, raw)
        full = self._index is not None
        imports = crossfile.import_facts(raw) if full else None
        lines = importers.import_lines(raw) if full else None
        found = (files.mentions_dali(raw), files.is_generated(raw), _judges_noqa(raw), imports, lines, None)
        self._remember(path, stamp, found)
        return raw, found

    def _remember(self, path: str, stamp: tuple | None, found: tuple) -> None:
        self._facts[path] = found
        if stamp is not None and self._index is not None:
            self._index.record(path, stamp, found)  # the same facts again: no change to write

    def read(self, path: str) -> bytes | None:
        """The file's bytes: those kept, else read now (None: unreadable)."""
        return self._kept.read(path)

    def imports(self, path: str):
        """The file's :func:`crossfile.import_facts`, or None when they were not drawn."""
        found = self._facts.get(path)
        return found[_IMPORTS] if found is not None else None

    def lines(self, path: str) -> bytes | None:
        """What ``importers.follow_imports`` searches for imports: the import lines when drawn,
        else the bytes (None: unreadable)."""
        found = self._facts.get(path)
        if found is not None and found[_LINES] is not None:
            return found[_LINES]
        return self._kept.read(path)

    def digest(self, path: str, raw: bytes | None) -> str | None:
        """The digest of the file's bytes (``raw`` when given, else those the cache knows or read
        now), kept with its facts; None when it cannot be read."""
        found = self._facts.get(path)
        if raw is None and found is not None and found[_DIGEST] is not None:
            return found[_DIGEST]
        raw = raw if raw is not None else self._kept.read(path)
        if raw is None:
            return None
        digest = stamps.digest(raw)
        if found is not None and found[_DIGEST] != digest:
            self._remember(path, self._stamps.get(path), (*found[:_DIGEST], digest))
        return digest

    def save(self) -> None:
        if self._index is not None:
            self._index.save()


def _learn_imports(
    project: crossfile.ProjectImports, readable: list[str], facts: _Facts, policy: Policy, jobs, cache
) -> None:
    """What the files import from the project: each file's imports scanned, and the project modules
    they name that the run was not given checked (``check``) to learn the pipelines they define."""
    # After every file is read, so that a module the run was given is read from the bytes kept.
    for path in readable:
        imports = facts.imports(path)
        raw = facts.read(path) if imports is None else None
        if imports is not None or raw is not None:
            project.scan(path, raw, imports)
    unknown = project.unknown()
    if unknown:
        checking = replace(policy, mode="check", fix=False)
        project.learn(_process(unknown, checking, None, jobs, cache=cache, facts=facts))


def _using_pipelines(project: crossfile.ProjectImports, results: list) -> list[tuple[int, str, None]]:
    """The skipped files (no DALI) that import a pipeline whose uses the engine must look at, as
    ``(position in results, path, None)``: their bytes are read when the cache has no result."""
    return [
        (index, result.path, None)
        for index, result in enumerate(results)
        if result is not None and result.skipped and _uses_pipelines(project, result.path)
    ]


def _uses_pipelines(project: crossfile.ProjectImports, path: str) -> bool:
    """Does a file without DALI import a pipeline that the engine must look at its uses of? Not
    when every one it imports stays in pipeline mode anyway (those uses are right as they are)."""
    imported, outside, _, helpers, _ = project.policy_for(path)
    return bool(outside) or bool(helpers) or any(imported.values())


def _process(
    sources: list[tuple[str, bytes | None]],
    policy: Policy,
    project,
    jobs,
    progress=None,
    cache: Cache | None = None,
    facts: _Facts | None = None,
) -> list[FileResult]:
    """``pool.process_sources``, each file with what its imports define on disk added to the
    policy (files importing the same get one call, so workers still share the work). Results the
    ``cache`` has are taken from it (a file's bytes may be None then: read only when it has not),
    and the engine (libcst) is imported only for the others."""
    groups: dict[tuple, list[int]] = {}
    for position, (path, _) in enumerate(sources):
        key = tuple(tuple(sorted(found.items())) for found in project.policy_for(path)) if project else ((),) * 5
        groups.setdefault(key, []).append(position)
    out: list[FileResult | None] = [None] * len(sources)
    for (imported, outside, on_disk, helpers, epochs), positions in groups.items():
        known = policy
        if imported or outside or helpers:
            known = replace(
                policy,
                imported_pipelines={**dict(imported), **policy.imported_pipelines},
                outside_pipelines={**dict(outside), **policy.outside_pipelines},
                migrated_on_disk={**dict(on_disk), **policy.migrated_on_disk},
                imported_helpers={**dict(helpers), **policy.imported_helpers},
                imported_epochs=policy.imported_epochs | {key for key, _ in epochs},
            )
        if cache is not None:
            found = [(p, _cached(cache, facts, *sources[p], known)) for p in positions]
            for position, result in found:
                out[position] = result
            positions = [p for p, result in found if result is None]
            if progress is not None and len(found) > len(positions):
                progress(len(found) - len(positions))
        readable = _read_missing(sources, positions, out, facts)
        if not readable:
            continue
        from ndd_migrate.app import pool

        checked = pool.process_sources([(path, raw) for _, path, raw in readable], known, jobs, progress=progress)
        for (position, path, raw), result in zip(readable, checked):
            out[position] = result
            if cache is not None:
                cache.put(path, stamps.digest(raw), known, result)
    return out


def _read_missing(sources, positions: list[int], out: list, facts: _Facts | None) -> list[tuple[int, str, bytes]]:
    """``(position, path, bytes)`` of the sources at ``positions``, where a source's bytes were not
    given, those the run kept or read now; one that cannot be read any more gets its error in ``out``."""
    readable = []
    for position in positions:
        path, raw = sources[position]
        if raw is None and facts is not None:
            raw = facts.read(path)
        try:
            readable.append((position, path, raw if raw is not None else files.read_bytes(path)))
        except files.SourceError as exc:  # gone since the run began
            out[position] = FileResult(path=path, error=exc.to_file_error())
    return readable


def _cached(cache: Cache, facts: _Facts | None, path: str, raw: bytes | None, policy: Policy) -> FileResult | None:
    """The cache's result of a file (bytes ``raw``, or None when the cache knows them unread)."""
    digest = facts.digest(path, raw) if facts is not None else stamps.digest(raw) if raw is not None else None
    if digest is None:
        return None
    return cache.get(path, digest, policy, lambda: raw if raw is not None else crossfile.read_bytes(path))


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
