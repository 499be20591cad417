"""``# noqa`` suppression comments, with flake8/ruff semantics.

* ``# noqa`` (any case: ``# NOQA``, ``#noqa``) suppresses every finding on its line;
* ``# noqa: NDD002, NDD101`` (commas and/or spaces; ``#noqa:NDD002`` too) suppresses exactly those
  codes. Codes are matched exactly, not as prefixes: a suppression should say what it hides.
  Codes of other tools may sit in the same comment (``# noqa: E501, NDD103``).
* ``# noqa:`` followed by no valid code is ignored rather than read as a blanket ``# noqa``
  (flake8 famously did the latter, silently hiding everything on the line).
* A finding is suppressed by a directive on the line it is reported on. A statement continued with
  backslashes, or a multi-line string, is one line for this purpose: a directive at its end covers
  all its lines, because a comment cannot be placed anywhere else in it.
* ``# ndd-migrate: noqa`` anywhere in the file (as ruff's ``# ruff: noqa``) exempts the whole file;
  ``# ndd-migrate: noqa: NDD001, NDD008`` exempts it from those codes.

Only real comments count: the source is tokenized, so ``"# noqa"`` inside a string does nothing.
Tokenizing is the slow part, so it runs only when the text contains ``noqa`` at all.
"""

from __future__ import annotations

import enum
import io
import re
import tokenize
from collections.abc import Callable


class _All(enum.Enum):
    ALL = "ALL"

    def __repr__(self) -> str:
        return "ALL"


#: A blanket noqa comment: every code on the line is suppressed.
ALL = _All.ALL

NoqaMap = dict[int, "frozenset[str] | _All"]

#: The key of :data:`NoqaMap` for what a file-level ``# ndd-migrate: noqa`` suppresses (lines count from 1).
FILE = 0

_QUICK = re.compile("noqa", re.IGNORECASE)
_DIRECTIVE = re.compile(r"#\s*(?i:noqa)(?![\w-])(?P<colon>\s*:\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*)?)?")
_FILE_DIRECTIVE = re.compile(
    r"#\s*ndd-migrate\s*:\s*(?i:noqa)(?![\w-])(?P<colon>\s*:\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*)?)?"
)
_CODE = re.compile(r"[A-Z]+[0-9]+")

_FSTRING_START = getattr(tokenize, "FSTRING_START", None)  # Python >= 3.12
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)


def parse_directive(comment: str, pattern: re.Pattern = _DIRECTIVE) -> frozenset[str] | _All | None:
    """What one comment suppresses: ``ALL``, a set of codes, or ``None`` (not a valid directive);
    ``pattern``: the line-level directive, or :data:`_FILE_DIRECTIVE`."""
    match = pattern.search(comment)
    if match is None:
        return None
    if match.group("colon") is None:
        return ALL
    codes = match.group("codes")
    return frozenset(_CODE.findall(codes)) if codes else None


def _merge(old: frozenset[str] | _All | None, new: frozenset[str] | _All) -> frozenset[str] | _All:
    if old is None:
        return new
    if old is ALL or new is ALL:
        return ALL
    return old | new


def _joined_lines(text: str) -> tuple[list[tuple[int, str]], list[tuple[int, int]]]:
    """The comments (row, text) and the row ranges that form one physical unit: multi-line strings
    and backslash continuations."""
    comments: list[tuple[int, str]] = []
    spans: list[tuple[int, int]] = []
    fstring_starts: list[int] = []
    prev_end_row = 0
    prev_type = tokenize.NEWLINE
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        kind, (start_row, _), (end_row, _) = tok.type, tok.start, tok.end
        if kind == tokenize.COMMENT:
            comments.append((start_row, tok.string))
        elif kind == tokenize.STRING and end_row > start_row:
            spans.append((start_row, end_row))
        elif kind == _FSTRING_START:
            fstring_starts.append(start_row)
        elif kind == _FSTRING_END and fstring_starts:
            first = fstring_starts.pop()
            if end_row > first:
                spans.append((first, end_row))
        # A token that starts below the previous one with no NL/NEWLINE between: a backslash join.
        if start_row > prev_end_row and prev_type not in (tokenize.NL, tokenize.NEWLINE) and prev_end_row:
            spans.append((prev_end_row, start_row))
        if kind not in (tokenize.INDENT, tokenize.DEDENT):
            prev_end_row, prev_type = end_row, kind
    return comments, spans


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _scan_lines(text: str) -> NoqaMap:
    result: NoqaMap = {}
    for row, line in enumerate(text.splitlines(), start=1):
        if "#" in line and (found := parse_directive(line, _FILE_DIRECTIVE)) is not None:
            result[FILE] = _merge(result.get(FILE), found)
        elif "#" in line and (found := parse_directive(line)) is not None:
            result[row] = found
    return result


def noqa_lines(text: str) -> NoqaMap:
    """Map each 1-based line number to what is suppressed on it (``ALL`` or a frozenset of codes),
    and :data:`FILE` to what a file-level directive suppresses everywhere.

    Lines without a directive are absent. If the text cannot be tokenized (it would not parse
    either, but a caller may still hold findings for it), falls back to a line-by-line scan, which
    honours every directive and may also honour one inside a string: better than ignoring them.
    """
    if not _QUICK.search(text):
        return {}
    try:
        comments, spans = _joined_lines(text)
    except (tokenize.TokenError, SyntaxError):
        return _scan_lines(text)
    units = _merged(spans)
    unit_start = {end: start for start, end in units}
    result: NoqaMap = {}
    for row, comment in comments:
        whole = parse_directive(comment, _FILE_DIRECTIVE)
        if whole is not None:
            result[FILE] = _merge(result.get(FILE), whole)
            continue
        found = parse_directive(comment)
        if found is None:
            continue
        for line in range(unit_start.get(row, row), row + 1):
            result[line] = _merge(result.get(line), found)
    return result


def suppressor(source: str) -> Callable[[str, int], bool]:
    """``(code, line) -> bool``: is ``code`` silenced by a ``# noqa`` on ``line`` of ``source``?"""
    table = noqa_lines(source)

    def suppressed(code: str, line: int) -> bool:
        return any(
            entry is not None and (entry is ALL or code in entry) for entry in (table.get(line), table.get(FILE))
        )

    return suppressed


def with_directives(text: str, codes: dict[int, set[str]]) -> tuple[str, int]:
    """``text`` with ``# noqa: CODES`` added for ``codes`` (1-based line → the codes found there),
    as ruff's ``--add-noqa`` does, and how many lines got one: at the end of the line, or of the
    multi-line string or backslash continuation the line is part of; merged into a ``# noqa:``
    comment already there; nothing where a blanket ``# noqa`` is. Lines end as they did."""
    try:
        _, spans = _joined_lines(text)
    except (tokenize.TokenError, SyntaxError):
        return text, 0
    unit_end = {line: end for start, end in _merged(spans) for line in range(start, end + 1)}
    wanted: dict[int, set[str]] = {}
    for line, found in codes.items():
        wanted.setdefault(unit_end.get(line, line), set()).update(found)
    lines = text.splitlines(keepends=True)
    added = 0
    for row, found in sorted(wanted.items()):
        if not 1 <= row <= len(lines):
            continue
        body = lines[row - 1].rstrip("\r\n")
        ending = lines[row - 1][len(body) :]
        new = _with_codes(body, found)
        if new != body:
            lines[row - 1] = new + ending
            added += 1
    return "".join(lines), added


def _with_codes(line: str, codes: set[str]) -> str:
    """``line`` whose ``# noqa`` covers ``codes`` too (a blanket one covers all already)."""
    match = _DIRECTIVE.search(line) if "#" in line else None
    if match is None:
        return f"{line.rstrip()}  # noqa: {', '.join(sorted(codes))}"
    old = parse_directive(match.group(0))
    if old is ALL or (old is not None and codes <= old):
        return line
    merged = ", ".join(sorted((old or frozenset()) | codes))  # `# noqa:` without a code: made one
    return line[: match.start()] + f"# noqa: {merged}" + line[match.end() :]
