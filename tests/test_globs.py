"""The two glob dialects of ndd_migrate/io/globs.py: ruff's (``exclude``, ``per-file-ignores``) and
git's (``.gitignore``). They agree on ``*``, ``?`` and ``[...]`` and differ on ``**`` and ``\\``."""

from __future__ import annotations

import re

import pytest

from ndd_migrate.io.globs import to_regex


def matches(pattern: str, path: str, *, git: bool = False) -> bool:
    return re.fullmatch(to_regex(pattern, git=git), path) is not None


@pytest.mark.parametrize("git", [False, True])
@pytest.mark.parametrize(
    "pattern, path, expected",
    [
        ("*.py", "a.py", True),
        ("*.py", "d/a.py", False),  # `*` stays within one path segment
        ("a?.py", "ab.py", True),
        ("a?.py", "a/.py", False),
        ("[ab].py", "b.py", True),
        ("[!ab].py", "b.py", False),
        ("[!ab].py", "c.py", True),
        ("a.py", "a-py", False),  # other characters are literal
    ],
)
def test_both_dialects_agree_on_single_stars_and_classes(pattern, path, expected, git):
    assert matches(pattern, path, git=git) is expected


@pytest.mark.parametrize(
    "pattern, path, ruff, git",
    [
        ("**/x.py", "x.py", True, True),
        ("**/x.py", "a/b/x.py", True, True),
        ("a/**", "a/b/c.py", True, True),
        ("a**b", "a/x/b", True, False),  # git: `**` inside a segment is two `*`
        ("a/**b", "a/x/b", True, False),
        ("\\*.py", "*.py", False, True),  # git escapes with a backslash
    ],
)
def test_the_dialects_differ_on_double_stars_and_escapes(pattern, path, ruff, git):
    assert matches(pattern, path) is ruff
    assert matches(pattern, path, git=True) is git
