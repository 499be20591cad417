"""The exclude matcher asked by name (discovery's per-file question) says what it says by path."""

from __future__ import annotations

import itertools
import os

import pytest

from ndd_migrate.io.path_globs import Excludes, PathGlob

PATTERNS = [
    ("build", "/proj"),
    ("*_pb2.py", "/proj"),
    ("src/gen", "/proj"),
    ("**/fixtures", "/proj"),
    ("src/*/keep.py", "/proj"),
    ("./third_party/", "/proj"),
    ("legacy", "/proj/sub"),
    ("tests/*", "/proj/sub"),
    (".", "/proj/only"),
    ("/abs/x.py", "/anywhere"),
]
DIRECTORIES = [
    "/proj",
    "/proj/src",
    "/proj/src/gen",
    "/proj/src/gen/deep",
    "/proj/src/other",
    "/proj/a/fixtures",
    "/proj/sub",
    "/proj/sub/tests",
    "/proj/sub/tests/unit",
    "/proj/sub/legacy/x",
    "/proj/only",
    "/proj/only/inner",
    "/projection",
    "/abs",
    "/",
]
NAMES = [
    "a.py",
    "x_pb2.py",
    "keep.py",
    "build",
    "legacy",
    "fixtures",
    "gen",
    "x.py",
    "tests",
    "only",
]  # as listed: never "."


@pytest.mark.parametrize("chosen", [PATTERNS, PATTERNS[:1], PATTERNS[2:3], PATTERNS[6:9], []])
def test_names_in_a_directory_are_excluded_as_their_paths_are(chosen):
    excludes = Excludes(PathGlob.compile(pattern, base) for pattern, base in chosen)
    for directory in DIRECTORIES:
        by_name = excludes.names_in(directory)
        for name in NAMES:
            assert by_name(name) == excludes.matches(os.path.join(directory, name)), (directory, name)


def test_a_directory_excluded_excludes_every_name_in_it():
    excludes = Excludes([PathGlob.compile("src/gen", "/proj"), PathGlob.compile("legacy", "/proj")])
    for directory, name in itertools.product(["/proj/src/gen", "/proj/legacy/deep"], NAMES):
        assert excludes.names_in(directory)(name)
    assert not excludes.names_in("/proj/src")("a.py")
