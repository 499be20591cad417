"""A unified diff of two lists of lines whose cost grows with the files, not with their square.

``difflib.SequenceMatcher`` looks for the longest matching block over the whole of both texts,
then again on each side of it: for every line of the old text it visits every place the line
occurs in the new one. In a migrated module many lines repeat (``pipe.build()``, blank lines, the
same decoder call in every pipeline), so that is quadratic: 2 s for a 400 KB module, a minute
for 2 MB. Lines that occur exactly once in each text, in the same order in both, are matched
first (the longest increasing run of them, as patience diff does); ``SequenceMatcher`` then works
only on the stretches between them. Texts of up to :data:`SMALL` lines (old and new together,
some 150 KB) go to ``SequenceMatcher`` whole, so their diff is the very one ``difflib`` prints;
beyond that the anchors may pair lines differently than it would (the diff is as valid, and
applies the same). The hunks are grouped and printed as ``difflib.unified_diff`` does (three
lines of context).
"""

from __future__ import annotations

import bisect
import difflib

#: Stretches at most this long (old + new lines) go to ``SequenceMatcher`` without looking for
#: anchors: a few hundredths of a second each.
SMALL = 5000
CONTEXT = 3


def unified(a: list[bytes], b: list[bytes], fromfile: bytes, tofile: bytes) -> list[bytes]:
    """The lines of ``difflib.unified_diff`` (``n=3``, ``lineterm="\\n"``) of ``a`` and ``b``."""
    out: list[bytes] = []
    for group in _grouped(opcodes(a, b), CONTEXT):
        if not out:
            out += [b"--- " + fromfile + b"\n", b"+++ " + tofile + b"\n"]
        first, last = group[0], group[-1]
        out.append(b"@@ -%s +%s @@\n" % (_range(first[1], last[2]), _range(first[3], last[4])))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [b" " + line for line in a[i1:i2]]
                continue
            out += [b"-" + line for line in a[i1:i2]]
            out += [b"+" + line for line in b[j1:j2]]
    return out


def opcodes(a: list, b: list) -> list[tuple[str, int, int, int, int]]:
    """``SequenceMatcher(None, a, b).get_opcodes()``, found between anchors."""
    codes: list[tuple[str, int, int, int, int]] = []
    # Stretches still to diff, last first: (a_lo, a_hi, b_lo, b_hi), with anchors as 1-line stretches.
    todo = [(0, len(a), 0, len(b))]
    while todo:
        alo, ahi, blo, bhi = todo.pop()
        if alo == ahi and blo == bhi:
            continue
        anchors = _anchors(a, alo, ahi, b, blo, bhi) if ahi - alo + bhi - blo > SMALL else []
        if not anchors:
            matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi])
            for tag, i1, i2, j1, j2 in matcher.get_opcodes():
                _add(codes, tag, alo + i1, alo + i2, blo + j1, blo + j2)
            continue
        parts = []
        i0, j0 = alo, blo
        for i, j in anchors:
            parts += [(i0, i, j0, j), (i, i + 1, j, j + 1)]
            i0, j0 = i + 1, j + 1
        parts.append((i0, ahi, j0, bhi))
        todo += reversed(parts)
    return codes


def _anchors(a: list, alo: int, ahi: int, b: list, blo: int, bhi: int) -> list[tuple[int, int]]:
    """Pairs ``(i, j)`` with ``a[i] == b[j]`` occurring once in ``a[alo:ahi]`` and once in
    ``b[blo:bhi]``: the longest run of them increasing in both ``i`` and ``j``."""
    count: dict = {}
    for i in range(alo, ahi):
        line = a[i]
        count[line] = -1 if line in count else i
    in_b: dict = {}
    for j in range(blo, bhi):
        line = b[j]
        if count.get(line, -1) >= 0:
            in_b[line] = -1 if line in in_b else j
    pairs = [(count[line], j) for line, j in in_b.items() if j >= 0]
    pairs.sort()
    # The longest increasing subsequence by j (patience sorting): tails[k] is the smallest j that
    # ends an increasing run of k + 1 pairs, back[n] the pair before pairs[n] in its run.
    tails: list[int] = []
    tail_at: list[int] = []
    back: list[int] = []
    for n, (_, j) in enumerate(pairs):
        k = bisect.bisect_left(tails, j)
        back.append(tail_at[k - 1] if k else -1)
        if k == len(tails):
            tails.append(j)
            tail_at.append(n)
        else:
            tails[k] = j
            tail_at[k] = n
    run = []
    n = tail_at[-1] if tail_at else -1
    while n >= 0:
        run.append(pairs[n])
        n = back[n]
    return run[::-1]


def _add(codes: list, tag: str, i1: int, i2: int, j1: int, j2: int) -> None:
    """Append an opcode; equal stretches that meet (across an anchor) are one."""
    if codes and tag == "equal" and codes[-1][0] == "equal":
        codes[-1] = ("equal", codes[-1][1], i2, codes[-1][3], j2)
    else:
        codes.append((tag, i1, i2, j1, j2))


def _grouped(codes: list, n: int):
    """The hunks of ``codes`` with up to ``n`` lines of context (``get_grouped_opcodes``)."""
    if not codes:
        codes = [("equal", 0, 1, 0, 1)]
    codes = list(codes)
    if codes[0][0] == "equal":
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = tag, max(i1, i2 - n), i2, max(j1, j2 - n), j2
    if codes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)
    group = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * n:
            group.append((tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)))
            yield group
            group = []
            i1, j1 = max(i1, i2 - n), max(j1, j2 - n)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def _range(start: int, stop: int) -> bytes:
    """A hunk's ``start,length`` (``start`` 1-based; 0-based before an empty range)."""
    length = stop - start
    if length == 1:
        return b"%d" % (start + 1)
    return b"%d,%d" % (start + 1 if length else start, length)
