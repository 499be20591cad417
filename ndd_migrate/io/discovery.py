"""Finding the files to process: the files under the paths given, as the excludes, the
``.gitignore`` files and the kinds of files that are never rewritten leave them.

Standard library only (see :mod:`ndd_migrate.io.files`): discovery runs before ``libcst`` is
imported.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from pathlib import PurePath
from typing import TYPE_CHECKING

from ndd_migrate.io import files
from ndd_migrate.io.config import DEFAULT_EXCLUDE
from ndd_migrate.io.files import SourceError
from ndd_migrate.io.path_globs import Excludes, PathGlob

if TYPE_CHECKING:
    from ndd_migrate.io.gitignore import Ignored

DEFAULT_EXTENSIONS = (".py", ".ipynb")

#: Directories never entered when walking a tree, unless the caller's ``is_excluded`` takes over:
#: version control, environments, caches and build output hold copies of code, or other people's
#: code, which must not be rewritten (``.ipynb_checkpoints`` holds autosaved copies of notebooks).
#: The same list as the configuration's default ``exclude``, so both say the same thing.
SKIPPED_DIRS = frozenset(DEFAULT_EXCLUDE)


def discover(
    paths: Iterable[str | os.PathLike[str]],
    exclude: Iterable[str] = (),
    extensions: Iterable[str] = DEFAULT_EXTENSIONS,
    *,
    root: str | os.PathLike[str] | None = None,
    is_excluded: Callable[[str], bool] | None = None,
    names_excluded: Callable[[str], Callable[[str], bool]] | None = None,
    force_exclude: bool = False,
    respect_gitignore: bool | Callable[[str], bool] = False,
) -> list[str]:
    """The files to process under ``paths``, sorted and without duplicates, each as pathlib shows
    it (``./src/`` gives ``src/a.py``; a path given as it is), in pathlib's order.

    Directories are walked recursively for files with one of ``extensions``. Left out: directories
    named in :data:`SKIPPED_DIRS`, and paths matching an ``exclude`` pattern, in the
    configuration's glob syntax (:class:`~ndd_migrate.io.path_globs.PathGlob`: ``legacy`` and
    ``*_pb2.py`` match a name anywhere, ``src/generated`` or ``**/fixtures`` match from ``root``,
    the current directory by default). An excluded directory is not entered.

    ``is_excluded`` plugs in the project's configuration (``Configuration.is_excluded``, which
    applies each ``pyproject.toml``'s excludes and defaults); when it is given it replaces
    :data:`SKIPPED_DIRS`, so that a project whose ``exclude`` replaces the default list (ruff's
    semantics) gets what it asked for. ``names_excluded(directory)``, when given, is
    ``is_excluded`` for the files directly in ``directory`` (absolute), asked by their names, found
    once per directory walked (``Configuration.names_excluded``: the settings that govern a file
    are its directory's).

    A file named explicitly is always included, whatever its extension (the user asked for it), and
    also when excluded, unless ``force_exclude`` is set: pre-commit passes every staged file by
    name, and the project's excludes must still hold there (ruff's ``--force-exclude``).

    Only regular files are walked (see :func:`_walk`); a symlink is followed only to a regular file
    inside the walked directory, and symlinked directories are not entered (no loops, no rewriting
    code outside the tree). A file named explicitly is taken as it is, and read by
    :func:`~ndd_migrate.io.files.read_bytes`, which refuses one that is not a regular file. Files
    reached twice (``a.py`` and a symlink to it, or a file named alone and within its directory)
    are returned once.

    ``respect_gitignore`` (a bool, or a function of the directory walked): leave out what the
    repository's ``.gitignore`` files ignore (:mod:`ndd_migrate.io.gitignore`) below a walked
    directory; files named explicitly are taken all the same. A path that does not exist is
    returned as it is: reading it fails, which becomes that path's error while the other paths are
    still checked, as ruff does. Raises :class:`SourceError` for a directory that cannot be listed:
    silently skipping it would leave code unmigrated without a word.
    """
    base = os.path.abspath(root if root is not None else os.getcwd())
    patterns = Excludes(PathGlob.compile(pattern, base) for pattern in exclude)
    suffixes = tuple(extensions)

    def excluded(path: str) -> bool:
        """Excluded by a pattern or by the caller, itself or through an excluded ancestor."""
        return patterns.matches(path) or (is_excluded is not None and is_excluded(path))

    def excluded_in(directory: str) -> Callable[[str], bool]:
        """:func:`excluded` for the files directly in ``directory``, by name."""
        ours = patterns.names_in(directory)
        if names_excluded is not None:
            own = names_excluded(directory)
        elif is_excluded is not None:
            own = lambda name: is_excluded(os.path.join(directory, name))  # noqa: E731
        else:
            return ours
        return lambda name: ours(name) or own(name)

    def skipped_by_default(path: str) -> bool:
        """``path`` lies in a :data:`SKIPPED_DIRS` directory below ``base`` (for explicit paths)."""
        parts = os.path.relpath(os.path.abspath(path), base).split(os.sep)
        return is_excluded is None and parts[0] != ".." and not SKIPPED_DIRS.isdisjoint(parts)

    found: list[tuple[tuple[str, ...], str, str | None]] = []  # (pathlib's parts, path, real path when known)
    for given in paths:
        top = os.fspath(given)
        if not os.path.lexists(top):
            found.append(_as_given(top))  # its read fails: that path's error, the others are still run
            continue
        if force_exclude and (skipped_by_default(top) or excluded(top)):
            continue
        if os.path.isdir(top):
            respect = respect_gitignore(top) if callable(respect_gitignore) else respect_gitignore
            if respect:
                from ndd_migrate.io.gitignore import Ignored

                ignored = Ignored(top)
            else:
                ignored = None
            found.extend(_walk(top, suffixes, excluded, excluded_in, skip_default=is_excluded is None, ignored=ignored))
        else:
            # A file named explicitly, whatever it is: one that is not a regular file (a FIFO, a
            # device, a socket, a dangling link) becomes that file's error when it is read.
            found.append(_as_given(top))

    unique: list[str] = []
    seen: set[str] = set()
    real_dirs: dict[str, str] = {}
    found.sort(key=lambda item: item[0])  # pathlib's order, without its objects
    for _, path, real in found:
        real = real or files.real_path(path, real_dirs)
        if real not in seen:
            seen.add(real)
            unique.append(path)
    return unique


def _as_given(path: str) -> tuple[tuple[str, ...], str, None]:
    """A path named explicitly, as :func:`discover` returns it (its real path found later)."""
    shown = PurePath(path)
    return shown.parts, str(shown), None


def _walk(
    top: str,
    suffixes: tuple[str, ...],
    excluded: Callable[[str], bool],
    excluded_in: Callable[[str], Callable[[str], bool]],
    *,
    skip_default: bool,
    ignored: Ignored | None = None,
) -> list[tuple[tuple[str, ...], str, str | None]]:
    """The regular files with one of ``suffixes`` below the directory ``top``, each as
    ``(pathlib's parts, path as pathlib shows it, real path)`` (the real path None for a symlink:
    resolved by :func:`~ndd_migrate.io.files.real_path`).

    Only regular files: a FIFO named ``x.py`` would block the reader forever, a link to
    ``/dev/zero`` would be read until memory runs out, so neither is ever opened. A symlink is
    followed only to a regular file inside ``top`` (once its links are resolved): a link to a file
    outside the tree is left out, so that ``migrate DIR`` never rewrites a file outside ``DIR``.
    Symlinked directories are not entered (no loops, nothing outside the tree), so below ``top``
    a real path is its directory's plus the name. Exclusion is tested on absolute paths, cheaper
    to match than relative ones (each costs a ``getcwd``): a directory's with ``excluded``, a
    file's by name with ``excluded_in`` its directory, and with ``ignored.names_in`` it.

    Plain strings throughout: a ``pathlib`` object per file cost more than the rest of the walk.
    A path is shown as pathlib shows ``Path(top, *names)``: ``top`` as pathlib normalises it, then
    the names, each after a separator.
    """
    real_top = os.path.realpath(top)
    shown_top = PurePath(top)
    found: list[tuple[tuple[str, ...], str, str | None]] = []
    # (as walked, absolute, pathlib's parts, what its names are joined to as shown and as real paths)
    pending = [(top, os.path.abspath(top), shown_top.parts, _prefix(str(shown_top)), _prefix(real_top))]
    while pending:
        directory, absolute, parts, shown, real = pending.pop()
        try:
            with os.scandir(directory) as entries:
                listed = list(entries)
        except OSError as error:
            raise SourceError(error.filename or directory, f"cannot list directory: {error.strerror}") from error
        file_excluded = file_ignored = None
        for entry in listed:
            name = entry.name
            kind = _kind(entry, suffixes, real_top)
            if kind is None:
                continue
            if kind == "dir":
                inner = os.path.join(absolute, name)
                if not (skip_default and name in SKIPPED_DIRS) and not excluded(inner):
                    if ignored is None or not ignored(inner, True):
                        walked = os.path.join(directory, name)
                        pending.append((walked, inner, (*parts, name), shown + name + os.sep, real + name + os.sep))
                continue
            file_excluded = file_excluded or excluded_in(absolute)
            if file_excluded(name):
                continue
            if ignored is not None:
                file_ignored = file_ignored or ignored.names_in(absolute)
                if file_ignored(name):
                    continue
            found.append(((*parts, name), shown + name, None if kind == "link" else real + name))
    return found


def _prefix(directory: str) -> str:
    """What a name is joined to below ``directory`` (a path as pathlib shows it, or a real path):
    nothing below ``.``, else a separator unless it ends with one (``/``)."""
    if directory == ".":
        return ""
    return directory if directory.endswith(os.sep) else directory + os.sep


def _kind(entry: os.DirEntry, suffixes: tuple[str, ...], real_top: str) -> str | None:
    """``"dir"`` for a directory (not a symlink), ``"file"`` for a regular file with one of
    ``suffixes``, ``"link"`` for a symlink to a regular file inside ``real_top``; None for what
    is not walked (and for an entry that vanished while listed)."""
    try:
        if entry.is_dir(follow_symlinks=False):
            return "dir"
        if not entry.name.endswith(suffixes):
            return None
        if entry.is_symlink():
            return "link" if _link_to_regular_file_inside(entry.path, real_top) else None
        return "file" if entry.is_file(follow_symlinks=False) else None  # not a FIFO, socket or device
    except OSError:
        return None


def _link_to_regular_file_inside(link: str, real_top: str) -> bool:
    """Does the symlink ``link`` lead, through all its links, to a regular file below
    ``real_top`` (a real path)?"""
    target = os.path.realpath(link)
    try:
        if not stat.S_ISREG(os.stat(target).st_mode):
            return False
    except OSError:
        return False  # dangling
    return os.path.commonpath([real_top, target]) == real_top
