"""``.gitignore`` files, read as git reads them, for walking a directory (ruff's default).

No git is needed, nor run: the files are parsed here (the pre-commit path must stay fast, and a
checkout may have no ``git`` on its ``PATH``). What counts, as with git and ripgrep, is only inside a
git repository (a directory with ``.git`` at or above the walked one): every ``.gitignore`` from
the repository's root down to the file's directory, and the root's ``.git/info/exclude``. A deeper
file's patterns come after a shallower one's, and the last pattern that matches decides (``!``
re-includes). Not read: git's global excludes file (``core.excludesFile``), which is the user's,
not the project's.

Pattern syntax (gitignore(5)): ``#`` comments, blank lines, ``!`` negation, ``\\`` escapes, a
trailing ``/`` for directories only, a ``/`` at the start or in the middle anchoring the pattern
to its file's directory (else it matches a name at any depth), ``*``, ``?``, ``[...]`` and ``**``.
A directory that is ignored is not entered, so nothing below it can be re-included (as in git).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass

from ndd_migrate.io import globs


@dataclass(frozen=True)
class Pattern:
    regex: re.Pattern
    negated: bool
    directories_only: bool


def parse(text: str) -> list[Pattern]:
    """The patterns of one ``.gitignore`` file, in order."""
    patterns = []
    for line in text.splitlines():
        pattern = _compile(line)
        if pattern is not None:
            patterns.append(pattern)
    return patterns


def _compile(line: str) -> Pattern | None:
    if not line or line.startswith("#"):
        return None
    # Trailing spaces are ignored unless escaped with a backslash.
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(line):
        stripped += " "
    line = stripped
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    elif line.startswith("\\!") or line.startswith("\\#"):
        line = line[1:]
    directories_only = line.endswith("/") and not line.endswith("\\/")
    line = line.rstrip("/") if directories_only else line
    if not line:
        return None
    anchored = "/" in line
    line = line[1:] if line.startswith("/") else line
    body = globs.to_regex(line, git=True)
    regex = body if anchored else f"(?:.*/)?{body}"
    try:
        return Pattern(re.compile(regex + r"\Z", re.DOTALL), negated, directories_only)
    except re.error:
        return None  # git ignores a pattern it cannot read


def repository_root(directory: str) -> str | None:
    """The nearest directory at or above ``directory`` holding ``.git`` (a directory, or the file
    of a worktree or submodule), or None outside any repository."""
    current = os.path.abspath(directory)
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _never(name: str) -> bool:
    return False


class Ignored:
    """``ignored(path, is_dir)``: is an absolute path below the walked directory ignored by the
    repository's ``.gitignore`` files? Each file is read once (cached by directory)."""

    def __init__(self, top: str) -> None:
        self.root = repository_root(top)
        self._files: dict[str, list[Pattern]] = {}

    def _patterns(self, directory: str) -> list[Pattern]:
        found = self._files.get(directory)
        if found is None:
            found = []
            names = [".gitignore"]
            if directory == self.root:
                names.insert(0, os.path.join(".git", "info", "exclude"))
            for name in names:
                try:
                    with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as handle:
                        found += parse(handle.read())
                except OSError:
                    pass
            self._files[directory] = found
        return found

    def names_in(self, directory: str) -> Callable[[str], bool]:
        """``ignored(os.path.join(directory, name), False)`` for the files directly in
        ``directory`` (absolute), asked by name: which ``.gitignore`` files apply, and what is
        below each of their directories up to the file's name, are found here once; a file costs
        the matches of its name, where :meth:`__call__` would cost a ``relpath`` and the walk
        from the root again (a tenth of a second over 10,000 files)."""
        if self.root is None:
            return _never
        relative = os.path.relpath(directory, self.root)
        if relative.startswith(os.pardir):
            return _never
        parts = [] if relative == os.curdir else relative.split(os.sep)
        layers = []  # (what is between the .gitignore's directory and the name, its file patterns)
        current = self.root
        for depth in range(len(parts) + 1):
            patterns = [p for p in self._patterns(current) if not p.directories_only]
            if patterns:
                layers.append(("".join(part + "/" for part in parts[depth:]), patterns))
            if depth < len(parts):
                current = os.path.join(current, parts[depth])
        if not layers:
            return _never

        def ignored(name: str) -> bool:
            if not parts and name.startswith(os.pardir):
                return False  # as __call__ takes it: outside the repository
            decision = False
            for between, patterns in layers:
                below = between + name
                for pattern in patterns:
                    if pattern.regex.match(below):
                        decision = not pattern.negated
            return decision

        return ignored

    def __call__(self, path: str, is_dir: bool) -> bool:
        if self.root is None:
            return False
        relative = os.path.relpath(path, self.root)
        if relative.startswith(os.pardir):
            return False
        parts = relative.split(os.sep)
        decision = False
        directory = self.root
        for depth in range(len(parts)):  # the root's file first, then each deeper one
            patterns = self._patterns(directory)
            if patterns:
                below = "/".join(parts[depth:])
                for pattern in patterns:
                    if pattern.directories_only and not is_dir:
                        continue
                    if pattern.regex.match(below):
                        decision = not pattern.negated
            directory = os.path.join(directory, parts[depth])
        return decision
