"""Path patterns relative to a directory (``exclude``, ``per-file-ignores``), and the matcher that
asks the exclude patterns about a whole tree.

The syntax is the configuration's (:mod:`ndd_migrate.io.config`): a pattern without ``/`` matches
any single component below its base, one with ``/`` matches from the base, and matching a
directory covers everything below it. Discovery asks about every file of a tree, so
:class:`Excludes` answers for a directory once (its own path matched, or not) and then for each
file by its name alone: ten thousand files cost ten thousand matches of a name, not ten thousand
splits and matches of a path.

Standard library only (the pre-commit path).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ndd_migrate.io import globs


@dataclass(frozen=True)
class PathGlob:
    """A path pattern and the directory it is relative to (see the module docstring)."""

    pattern: str
    base: str
    regex: re.Pattern = field(compare=False, repr=False)
    anywhere: bool = field(compare=False, repr=False)

    @classmethod
    def compile(cls, pattern: str, base: str | os.PathLike) -> PathGlob:
        base = os.path.abspath(base)
        text = pattern
        if os.path.isabs(pattern):  # matched from the filesystem root
            anchor = Path(pattern).anchor
            base, text = anchor, pattern[len(anchor) :]
        text = text.replace(os.sep, "/") if os.sep != "/" else text
        while text.startswith("./"):
            text = text[2:]
        text = text.rstrip("/") or "."
        return cls(pattern, base, re.compile(globs.to_regex(text)), "/" not in text)

    def matches(self, path: str | os.PathLike) -> bool:
        return self.matches_parts(relative_parts(os.path.abspath(path), self.base))

    def matches_parts(self, parts: list[str] | None) -> bool:
        """Does the pattern match a path given as its parts below :attr:`base` (None: outside)?"""
        if parts is None:
            return False
        if self.anywhere:
            return any(self.regex.fullmatch(part) for part in parts)
        return any(self.regex.fullmatch("/".join(parts[:k])) for k in range(1, len(parts) + 1))


def relative_parts(absolute: str, base: str) -> list[str] | None:
    """The parts of an absolute, normalised path below ``base`` (``["."]`` for ``base`` itself),
    or None when it is not below it. Lexical, like ``os.path.relpath``, and much cheaper: discovery
    asks this for every directory of the tree and every exclude pattern."""
    path, root = os.path.normcase(absolute), os.path.normcase(base)
    if path == root:
        return ["."]
    prefix = root if root.endswith(os.sep) else root + os.sep
    if not path.startswith(prefix):
        return None
    return absolute[len(prefix) :].split(os.sep)


def _never(name: str) -> bool:
    return False


def _always(name: str) -> bool:
    return True


class Excludes:
    """Exclude patterns, grouped by base directory: those that match a name anywhere joined into
    one expression (the default list is twenty of them, asked about every file of a tree)."""

    def __init__(self, patterns: Iterable[PathGlob]) -> None:
        groups: dict[str, tuple[list[str], list[PathGlob]]] = {}
        for glob in patterns:
            anywhere, anchored = groups.setdefault(glob.base, ([], []))
            if glob.anywhere:
                anywhere.append(glob.regex.pattern)
            else:
                anchored.append(glob)
        self._groups = [
            (base, re.compile("|".join(f"(?:{p})" for p in anywhere)) if anywhere else None, anchored)
            for base, (anywhere, anchored) in groups.items()
        ]

    def matches(self, path: str | os.PathLike) -> bool:
        """Whether ``path`` (a file or a directory) is excluded."""
        absolute = os.path.abspath(path)
        for base, anywhere, anchored in self._groups:
            parts = relative_parts(absolute, base)
            if parts is None:
                continue
            if anywhere is not None and any(anywhere.fullmatch(part) for part in parts):
                return True
            if any(glob.matches_parts(parts) for glob in anchored):
                return True
        return False

    @staticmethod
    def _base_matches(anywhere: re.Pattern | None, anchored: list[PathGlob]) -> bool:
        """Does a group exclude its base directory itself (a pattern ``.``)?"""
        return (anywhere is not None and anywhere.fullmatch(".") is not None) or any(
            glob.matches_parts(["."]) for glob in anchored
        )

    def names_in(self, directory: str) -> Callable[[str], bool]:
        """:meth:`matches` for the entries directly in ``directory``, asked by name: ``test(name)``
        is ``matches(os.path.join(directory, name))``. A file's parts are its directory's and its
        name, so what the directory's parts match is settled here, once; the name is matched by
        the patterns of a single component, and the anchored ones by the directory's relative
        path and the name."""
        absolute = os.path.abspath(directory)
        tests: list[Callable[[str], object]] = []  # each a match (truthy) or not
        for base, anywhere, anchored in self._groups:
            parts = relative_parts(absolute, base)
            if parts is None:  # not below the base, and nothing in it is but the base itself
                if os.path.dirname(base) == absolute and self._base_matches(anywhere, anchored):
                    own = os.path.basename(base)
                    tests.append(lambda name, own=own: name == own)
                continue
            parts = [] if parts == ["."] else parts  # the base itself: its files' parts are their names
            if anywhere is not None and any(anywhere.fullmatch(part) for part in parts):
                return _always
            if any(glob.matches_parts(parts) for glob in anchored):
                return _always
            if anywhere is not None:
                tests.append(anywhere.fullmatch)
            prefix = "".join(part + "/" for part in parts)
            tests += [lambda name, match=glob.regex.fullmatch, prefix=prefix: match(prefix + name) for glob in anchored]
        if not tests:
            return _never
        if len(tests) == 1:
            return lambda name: bool(tests[0](name))
        return lambda name: any(test(name) for test in tests)
