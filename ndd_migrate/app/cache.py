"""A cache of ``check`` results, so a second run over an unchanged repository costs little more
than reading its files (ruff's ``.ruff_cache`` is the model).

An entry is the result of one file, stored under a key that covers everything the result depends
on: the digest of the file's bytes and its path, this ndd-migrate (its version and the size and modification time of
every one of its source files, so an edited checkout never reads stale results), the Python and
libcst versions, and the run's policy for that file (what other files of the project define:
:class:`~ndd_migrate.io.policy.Policy`). A key that differs in anything is another entry; nothing
is ever invalidated in place.

The selection (``--select``, ``--ignore``, the configuration's, per file) is not part of the key: an
entry holds every rule's findings (:class:`~ndd_migrate.io.findings.Findings`), and each run reads
its own report from them. Only when that report needs a pass of the rules the entry has not got
(whether a finding is fixable can depend on which rules are selected) is the file checked again,
and that pass added to the entry. A result whose findings depend on the selection (a family of
``Pipeline`` subclasses) is stored for its selection only.

Only ``check`` without ``--fix`` uses it: a run that writes files always runs the rules.

Concurrent runs are safe: an entry is written to a temporary file in its directory and renamed
into place (atomic), so a reader sees a whole entry or none; an entry that cannot be read or
parsed is a miss. The directory holds a ``CACHEDIR.TAG`` and a ``.gitignore`` of ``*``, as
ruff's does; deleting it at any time is safe.

Which files are unchanged is told from their ``os.stat`` stamps (:mod:`ndd_migrate.app.stamps`):
a file whose stamp is the one recorded is not even read.

Standard library only: a run whose files are all cached never imports libcst.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

from ndd_migrate.app import stamps
from ndd_migrate.app.stamps import FileIndex, write_atomic
from ndd_migrate.engine.unused_noqa import CODE as UNUSED_NOQA
from ndd_migrate.io.diagnostics import Diagnostic, FileError, FileResult, FixSafety
from ndd_migrate.io.findings import Findings, Missing
from ndd_migrate.io.policy import Policy

#: The default cache directory, in the project root (the directory of the ``pyproject.toml``
#: that configures ndd-migrate, else the current directory).
DEFAULT_DIR = ".ndd_migrate_cache"
#: Bumped when the entry format changes.
FORMAT = 6
_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# This directory is a cache of ndd-migrate check results.\n"


class Cache:
    """``check`` results by key, under ``directory``."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self._tool = _tool_fingerprint()
        self._codes: tuple[str, ...] | None = None
        self._ready = False

    def files(self) -> FileIndex:
        """The stamps of the files runs from the current directory have seen, and their facts
        (:mod:`~ndd_migrate.app.stamps`); one index per tool, since the facts are its findings."""
        where = hashlib.sha256(f"{self._tool}\0{os.getcwd()}".encode("utf-8", "surrogateescape")).hexdigest()
        return FileIndex(self.directory / f"v{FORMAT}" / "files" / where[:32])

    def key(self, path: str, digest: str, policy: Policy) -> str:
        """The entry's key: a digest of the file's digest (:func:`stamps.digest`), the tool and the
        policy as they bear on ``path`` (the selection aside: :meth:`get`)."""
        context = json.dumps(
            [
                FORMAT,
                self._tool,
                os.path.abspath(path),
                policy.mode,
                policy.fix,
                policy.unsafe_fixes,
                sorted(policy.imported_pipelines.items()),
                sorted(policy.outside_pipelines.items()),
                sorted(policy.migrated_on_disk.items()),
                sorted(policy.kept_pipelines.items()),
                sorted(policy.imported_call_args.items()),
                sorted(policy.epoch_requests.items()),
                sorted(policy.imported_epochs),
                sorted(policy.kept_helpers.items()),
                sorted(policy.imported_helpers.items()),
                sorted(policy.kept_iterator_classes.items()),
                sorted(policy.imported_iterator_classes.items()),
                sorted(policy.rebased_iterator_classes.items()),
                policy.support_imports.get(os.path.abspath(path)),
                sorted(policy.shared_functions.items()),
            ]
        )
        return hashlib.sha256(f"{context}\0{digest}".encode()).hexdigest()

    def _rule_codes(self) -> tuple[str, ...]:
        if self._codes is None:
            from ndd_migrate.engine.catalog import rule_codes  # standard library only

            self._codes = rule_codes()
        return self._codes

    def _selection(self, path: str, policy: Policy) -> str:
        """The selection for ``path``, one digit per rule."""
        return "".join("1" if policy.is_enabled(code, path) else "0" for code in self._rule_codes())

    def _entry(self, key: str) -> Path:
        return self.directory / f"v{FORMAT}" / key[:2] / key

    def _read(self, path: str, digest: str, policy: Policy) -> tuple[dict, Findings | None] | None:
        try:
            data = json.loads(self._entry(self.key(path, digest, policy)).read_bytes())
            findings = Findings.from_dict(data["findings"], path) if data.get("findings") else None
        except (OSError, ValueError, TypeError, KeyError):
            return None
        return data, findings

    def get(self, path: str, digest: str, policy: Policy, read: Callable[[], bytes | None]) -> FileResult | None:
        """The cached result of ``path`` (the digest of its bytes ``digest``) under ``policy``, or
        None: the file was not seen so, or its report under this selection needs a pass the entry
        has not got. ``read()`` gives the bytes, read only for the snippets of a result with findings.
        With NDD801 selected the file is checked again: the stored findings are the rules', and
        which ``# noqa`` directives are idle is judged after them (engine.unused_noqa)."""
        if policy.is_enabled(UNUSED_NOQA, path):
            return None
        found = self._read(path, digest, policy)
        if found is None:
            return None
        data, findings = found
        try:
            result = _result(path, data)
        except (ValueError, TypeError, KeyError):
            return None
        if findings is not None:
            selected = findings.select(lambda code: policy.is_enabled(code, path), self._rule_codes())
            if isinstance(selected, Missing):
                return None
            result.diagnostics = selected
        elif data.get("selection") is not None and data["selection"] != self._selection(path, policy):
            return None
        if data.get("text") and result.diagnostics:  # the text the rules saw, for `full`'s snippets
            from ndd_migrate.io import files

            raw = read()
            if raw is None or digest != stamps.digest(raw):
                return None  # changed since its stamp was taken: checked again
            try:
                result.old_source = files.decode_source(raw, path).text
            except files.SourceError:
                pass
        return result

    def put(self, path: str, digest: str, policy: Policy, result: FileResult) -> None:
        """Store ``result`` (with the passes an entry stored before has: :meth:`Findings.merged`);
        a cache that cannot be written is no error (the run goes on)."""
        if result.changed:
            return  # only findings are cached, never a rewrite
        data = _data(result)
        if isinstance(result.findings, Findings):
            before = self._read(path, digest, policy)
            data["findings"] = result.findings.merged(before[1] if before else None).to_dict()
            data["diagnostics"] = []  # read from the findings under each selection
        elif result.diagnostics:
            data["selection"] = self._selection(path, policy)
        entry = self._entry(self.key(path, digest, policy))
        try:
            self._prepare()
            write_atomic(entry, json.dumps(data, separators=(",", ":")).encode("utf-8"))
        except OSError:
            pass

    def _prepare(self) -> None:
        if self._ready:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        for name, text in (("CACHEDIR.TAG", _TAG), (".gitignore", "# Automatically created by ndd-migrate.\n*\n")):
            target = self.directory / name
            if not target.exists():
                with _quiet():
                    target.write_text(text, encoding="utf-8")
        self._ready = True


class _quiet:
    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback) -> bool:
        return kind is not None and issubclass(kind, OSError)


def clean(roots: list[Path], configured: list[Path] = ()) -> list[Path]:
    """Removes the caches under ``roots`` (any folder named :data:`DEFAULT_DIR`, symbolic links
    not followed) and the ``configured`` ones, each only when its ``CACHEDIR.TAG`` says it is one
    of ours; returns those removed (ruff's ``clean``)."""
    import shutil

    found = [*configured]
    for root in roots:
        for folder, dirs, _ in os.walk(root):
            if DEFAULT_DIR in dirs:
                found.append(Path(folder, DEFAULT_DIR))
            dirs[:] = [d for d in dirs if d != DEFAULT_DIR and not os.path.islink(os.path.join(folder, d))]
    removed = []
    for directory in dict.fromkeys(Path(os.path.abspath(d)) for d in found):
        try:
            ours = (directory / "CACHEDIR.TAG").read_text(encoding="utf-8") == _TAG
        except OSError:
            continue
        if ours:
            shutil.rmtree(directory, ignore_errors=True)
            removed.append(directory)
    return removed


def _data(result: FileResult) -> dict:
    return {
        "diagnostics": [d.to_dict() for d in result.diagnostics],
        "error": dataclasses.asdict(result.error) if result.error else None,
        "skipped": result.skipped,
        "pipelines": result.pipelines,
        # what the passes over other modules read (ndd_migrate.model.importers)
        "kept_imports": result.kept_imports,
        "imported_call_args": {name: list(args) for name, args in result.imported_call_args.items()},
        "epoch_requests": result.epoch_requests,
        "epochs": list(result.epochs),
        "helpers": result.helpers,
        "helper_calls": result.helper_calls,
        "followed_functions": list(result.followed_functions),
        "exported_values": {k: [list(a), list(p)] for k, (a, p) in result.exported_values.items()},
        "iterator_classes": result.iterator_classes,
        "iterator_class_sources": {k: list(v) for k, v in result.iterator_class_sources.items()},
        "iterator_class_calls": result.iterator_class_calls,
        "text": result.old_source is not None,
    }


def _result(path: str, data: dict) -> FileResult:
    diagnostics = []
    for item in data["diagnostics"]:
        item = dict(item, path=path, fix=FixSafety(item["fix"]))
        diagnostics.append(Diagnostic(**item))
    error = data["error"]
    return FileResult(
        path=path,
        diagnostics=diagnostics,
        error=FileError(**dict(error, path=path)) if error else None,
        skipped=bool(data["skipped"]),
        pipelines={str(k): bool(v) for k, v in data["pipelines"].items()},
        kept_imports={str(k): str(v) for k, v in data["kept_imports"].items()},
        imported_call_args={str(k): tuple(v) for k, v in data["imported_call_args"].items()},
        epoch_requests={str(k): str(v) for k, v in data.get("epoch_requests", {}).items()},
        epochs=tuple(str(name) for name in data.get("epochs", ())),
        helpers={str(k): bool(v) for k, v in data["helpers"].items()},
        helper_calls={str(k): bool(v) for k, v in data["helper_calls"].items()},
        followed_functions=tuple(str(name) for name in data.get("followed_functions", ())),
        exported_values={
            str(k): (tuple(map(str, a)), tuple(map(str, p))) for k, (a, p) in data.get("exported_values", {}).items()
        },
        iterator_classes={str(k): bool(v) for k, v in data.get("iterator_classes", {}).items()},
        iterator_class_sources={
            str(k): (str(v[0]), str(v[1])) for k, v in data.get("iterator_class_sources", {}).items()
        },
        iterator_class_calls={str(k): bool(v) for k, v in data.get("iterator_class_calls", {}).items()},
    )


def _tool_fingerprint() -> str:
    """This ndd-migrate: its version, the Python and libcst versions, and the size and modification
    time of its source files (about a hundred ``stat`` calls: an edited checkout is another tool)."""
    import ndd_migrate
    from ndd_migrate import __version__

    package = Path(ndd_migrate.__file__).resolve().parent
    digest = hashlib.sha256(f"{__version__}\0{sys.version}\0{_libcst_version()}".encode())
    for root, dirs, names in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if name.endswith((".py", ".json")):
                status = os.stat(os.path.join(root, name))
                digest.update(
                    f"{os.path.relpath(os.path.join(root, name), package)}\0{status.st_size}\0{status.st_mtime_ns}\0".encode()
                )
    return digest.hexdigest()


def _libcst_version() -> str:
    """libcst's version, as its build wrote it into the package (``libcst/_version.py``: the file
    is part of the key, so any version in it counts), found without importing libcst. Asking
    ``importlib.metadata`` instead (imported, with ``email``, and every installed distribution
    searched) cost a warm run more than the check of all its files that the cache answers; it is
    asked only when that file is not there."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("libcst")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.origin:
        return "?"  # not installed: the tool's files still count
    try:
        with open(os.path.join(os.path.dirname(spec.origin), "_version.py"), "rb") as handle:
            return handle.read().decode("utf-8", "replace")
    except OSError:
        pass
    try:
        from importlib.metadata import version

        return version("libcst")
    except Exception:  # not installed as a distribution: the tool's files still count
        return "?"
