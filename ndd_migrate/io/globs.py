"""Glob patterns as regular expressions, in the two dialects a project's paths are written in.

``*`` (within a path segment), ``?`` and ``[...]`` (``[!...]`` negated) mean the same in both; they
differ on ``**`` and ``\\``:

* **ruff's** (``exclude`` and ``per-file-ignores`` of ``[tool.ndd-migrate]``, globset-like): ``**/``
  anywhere matches any number of whole directories, and ``**`` elsewhere anything at all;
* **git's** (``.gitignore``, gitignore(5)): ``**`` is special only as a whole segment — ``**/`` at
  the start or after ``/`` matches any directories, ``/**`` at the end everything inside, a lone
  ``**`` anything — and ``\\`` escapes the next character.
"""

from __future__ import annotations

import re


def to_regex(pattern: str, *, git: bool = False) -> str:
    """The regular expression (without anchors) that ``pattern`` stands for, in git's dialect when
    ``git`` is true, else in ruff's."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        double = _git_double_star(pattern, i) if git else _ruff_double_star(pattern, i)
        if double is not None:
            regex, length = double
            out.append(regex)
            i += length
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif git and pattern[i] == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : end]
            body = "^" + body[1:] if body.startswith("!") else body
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


def _ruff_double_star(pattern: str, i: int) -> tuple[str, int] | None:
    if pattern.startswith("**/", i):
        return "(?:[^/]*/)*", 3
    if pattern.startswith("**", i):
        return ".*", 2
    return None


def _git_double_star(pattern: str, i: int) -> tuple[str, int] | None:
    segment_start = i == 0 or pattern[i - 1] == "/"
    if pattern.startswith("**/", i) and segment_start:
        return "(?:.*/)?", 3
    if pattern.startswith("/**", i) and i + 3 == len(pattern):
        return "/.*", 3
    if pattern.startswith("**", i) and segment_start and i + 2 == len(pattern):
        return ".*", 2
    return None
