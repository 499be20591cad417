"""``migrate --diff``'s diff: difflib's own for ordinary files, linear for large ones, and always a
patch that turns the old text into the new one."""

from __future__ import annotations

import difflib
import random
import re

import pytest

from ndd_migrate.report import line_diff
from ndd_migrate.report.summary import unified_diff

_HUNK = re.compile(rb"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@\n")


def apply(old: list[bytes], diff: list[bytes]) -> list[bytes]:
    """The lines of ``old`` with the unified diff applied, checking every context and removed line
    and every hunk's counts."""
    out, at, rows = [], 0, iter(diff[2:])
    for header in rows:
        start, length, _, new_length = (int(g) if g is not None else 1 for g in _HUNK.fullmatch(header).groups())
        first = start - 1 if length else start
        assert first >= at
        out += old[at:first]
        at, taken, given = first, 0, 0
        while taken < length or given < new_length:
            line = next(rows)
            if line[:1] in (b" ", b"-"):
                assert old[at] == line[1:]
                at, taken = at + 1, taken + 1
            if line[:1] in (b" ", b"+"):
                out.append(line[1:])
                given += 1
        assert (taken, given) == (length, new_length)
    return out + old[at:]


def _edited(rng: random.Random, alphabet: int, n: int) -> tuple[list[bytes], list[bytes]]:
    old = [b"line %d\n" % rng.randrange(alphabet) for _ in range(n)]
    new = list(old)
    for _ in range(rng.randint(0, 12)):
        place = rng.randint(0, len(new))
        if rng.random() < 0.4:
            new[place:place] = [b"new %d\n" % rng.randrange(4)] * rng.randint(1, 3)
        elif new:
            del new[place : place + rng.randint(1, 4)]
    return old, new


def test_an_ordinary_file_gets_difflibs_own_diff():
    rng = random.Random(7)
    for _ in range(300):
        old, new = _edited(rng, rng.choice((3, 30, 3000)), rng.randint(0, 400))
        expected = list(difflib.diff_bytes(difflib.unified_diff, old, new, fromfile=b"a/f", tofile=b"b/f"))
        assert line_diff.unified(old, new, b"a/f", b"b/f") == expected


@pytest.mark.parametrize("alphabet", [2, 20, 10_000])
def test_the_diff_between_anchors_applies(monkeypatch, alphabet):
    monkeypatch.setattr(line_diff, "SMALL", 8)  # every stretch over 8 lines is split at its anchors
    rng = random.Random(alphabet)
    for _ in range(300):
        old, new = _edited(rng, alphabet, rng.randint(0, 300))
        diff = line_diff.unified(old, new, b"a/f", b"b/f")
        assert apply(old, diff) == new
        assert (diff == []) == (old == new)


def test_a_large_repetitive_file_is_diffed_in_short_stretches(monkeypatch):
    """Many repeated lines (every pipeline's `pipe.build()`) made difflib quadratic; no stretch
    given to SequenceMatcher may be long."""
    unit = [
        b"def run_%d(data):\n",
        b"    pipe = p_%d(data)\n",
        b"    pipe.build()\n",
        b"    out = pipe.run()\n",
        b"    return out\n",
        b"\n",
        b"\n",
    ]
    old = [line % i if b"%d" in line else line for i in range(3000) for line in unit]
    new = [
        b"    out = next(pipe)\n" if line == b"    out = pipe.run()\n" else line
        for line in old
        if line != b"    pipe.build()\n"
    ]
    longest = []
    real = difflib.SequenceMatcher

    def recorded(isjunk, a, b):
        longest.append(len(a) + len(b))
        return real(isjunk, a, b)

    monkeypatch.setattr(line_diff.difflib, "SequenceMatcher", recorded)
    diff = unified_diff("f.py", b"".join(old), b"".join(new))
    assert max(longest) <= line_diff.SMALL
    assert apply(old, diff.splitlines(keepends=True)) == new
