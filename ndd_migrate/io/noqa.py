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
from dataclasses import dataclass


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
    """The comments (row, column, text) and the row ranges that form one physical unit: multi-line strings
    and backslash continuations."""
    comments: list[tuple[int, int, str]] = []
    spans: list[tuple[int, int]] = []
    fstring_starts: list[int] = []
    prev_end_row = 0
    prev_type = tokenize.NEWLINE
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        kind, (start_row, start_column), (end_row, _) = tok.type, tok.start, tok.end
        if kind == tokenize.COMMENT:
            comments.append((start_row, start_column, tok.string))
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
    found = _directives(text)
    if found is None:
        return _scan_lines(text)
    result: NoqaMap = {}
    for line, indices in found[1].items():
        for index in indices:
            result[line] = _merge(result.get(line), found[0][index].codes)
    return result


@dataclass(frozen=True)
class Directive:
    """One ``# noqa`` comment: the line it is on (1-based), the column its ``#`` starts at
    (0-based), the whole comment, what it suppresses, and whether it is file-level."""

    row: int
    column: int
    comment: str
    codes: frozenset[str] | _All
    file_level: bool


def _directives(text: str) -> tuple[list[Directive], dict[int, list[int]]] | None:
    """The directives of ``text`` and, per line (:data:`FILE` for the whole file), the indices of
    those that cover it; None when the text cannot be tokenized."""
    try:
        comments, spans = _joined_lines(text)
    except (tokenize.TokenError, SyntaxError):
        return None
    unit_start = {end: start for start, end in _merged(spans)}
    found: list[Directive] = []
    cover: dict[int, list[int]] = {}
    for row, column, comment in comments:
        whole = parse_directive(comment, _FILE_DIRECTIVE)
        codes = whole if whole is not None else parse_directive(comment)
        if codes is None:
            continue
        found.append(Directive(row, column, comment, codes, whole is not None))
        lines = (FILE,) if whole is not None else range(unit_start.get(row, row), row + 1)
        for line in lines:
            cover.setdefault(line, []).append(len(found) - 1)
    return found, cover


class Suppressor:
    """``(code, line) -> bool``: is ``code`` silenced by a ``# noqa`` on ``line`` (or a file-level
    one)? It remembers which directive silenced which code (:attr:`used`), so that the directives
    that silence nothing can be reported (:mod:`ndd_migrate.engine.unused_noqa`)."""

    def __init__(self, source: str) -> None:
        self.source = source
        found = _directives(source) if _QUICK.search(source) else ([], {})
        #: The line scan of a text that cannot be tokenized: every directive honoured, none judged.
        self._fallback = _scan_lines(source) if found is None else None
        self.directives, self._cover = found or ([], {})
        #: ``(index of the directive, code)`` for each code a directive silenced.
        self.used: set[tuple[int, str]] = set()

    def __call__(self, code: str, line: int) -> bool:
        if self._fallback is not None:
            return any(
                entry is not None and (entry is ALL or code in entry)
                for entry in (self._fallback.get(line), self._fallback.get(FILE))
            )
        hit = False
        for index in (*self._cover.get(line, ()), *self._cover.get(FILE, ())):
            codes = self.directives[index].codes
            if codes is ALL or code in codes:
                self.used.add((index, code))
                hit = True
        return hit

    def silences(self, code: str, item: Unused) -> bool:
        """Is the report of ``item``, an unused directive, under ``code`` silenced: by a directive
        naming ``code`` on its line or file-wide, or by another blanket one?"""
        row = FILE if item.directive.file_level else item.directive.row
        for index in (*self._cover.get(row, ()), *self._cover.get(FILE, ())):
            directive = self.directives[index]
            if (directive.codes is ALL and directive is not item.directive) or (
                directive.codes is not ALL and code in directive.codes
            ):
                return True
        return False


def suppressor(source: str) -> Suppressor:
    """``(code, line) -> bool``: is ``code`` silenced by a ``# noqa`` on ``line`` of ``source``?"""
    return Suppressor(source)


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


@dataclass(frozen=True)
class Unused:
    """A directive that silenced nothing: ``codes``, the codes of ours it names that silenced
    nothing (empty for a blanket one), and ``comment``, what the comment becomes without them
    (``""``: the comment goes; the codes of other tools stay)."""

    directive: Directive
    codes: tuple[str, ...]
    comment: str


def unused(found: Suppressor, ours: str = "NDD") -> list[Unused]:
    """The directives of ``found`` that silenced nothing in the pass it served: a blanket one
    (line or file) that silenced no code, and those naming codes that start with ``ours`` and
    silenced none of them (codes of other tools are not ours to judge)."""
    out = []
    for index, directive in enumerate(found.directives):
        if directive.codes is ALL:
            if not any(used == index for used, _ in found.used):
                out.append(Unused(directive, (), _without(directive, ())))
            continue
        pattern = _FILE_DIRECTIVE if directive.file_level else _DIRECTIVE
        written = _CODE.findall(pattern.search(directive.comment).group("codes"))
        idle = tuple(dict.fromkeys(c for c in written if c.startswith(ours) and (index, c) not in found.used))
        if idle:
            out.append(Unused(directive, idle, _without(directive, tuple(c for c in written if c not in idle))))
    return out


def _without(directive: Directive, keep: tuple[str, ...]) -> str:
    """The comment of ``directive`` naming only ``keep`` (nothing: the directive goes, and any
    other text of the comment stays)."""
    pattern = _FILE_DIRECTIVE if directive.file_level else _DIRECTIVE
    comment = directive.comment
    match = pattern.search(comment)
    if keep:
        return comment[: match.start("codes")] + ", ".join(keep) + comment[match.end("codes") :]
    before, after = comment[: match.start()].rstrip(), comment[match.end() :].strip()
    if after:
        return f"{before}  # {after}" if before else f"# {after}"
    return before


def without_unused(text: str, found: list[Unused], seen: str) -> tuple[str, int]:
    """``text`` with the comments of ``found`` (directives of the text ``seen``) rewritten as they
    say, and how many were: a comment that goes takes its line when it was alone on it. When
    ``text`` is not ``seen`` (``migrate`` rewrote it), each directive is found in ``text`` by
    aligning the two texts' directives; one the rewrite dropped is left alone."""
    if not found:
        return text, 0
    rows = {u.directive.row: u for u in found}
    if text != seen:
        rows = _relocated(rows, _directives(seen), _directives(text))
    lines = text.splitlines(keepends=True)
    done = 0
    for row, item in sorted(rows.items(), reverse=True):
        line = lines[row - 1] if 1 <= row <= len(lines) else ""
        body = line.rstrip("\r\n")
        column = item.directive.column
        if body[column:] != item.directive.comment:
            continue
        if item.comment or body[:column].strip():
            code = body[:column] + item.comment if item.comment else body[:column].rstrip()
            lines[row - 1] = code + line[len(body) :]
        else:
            del lines[row - 1]
        done += 1
    return "".join(lines), done


def _relocated(rows: dict[int, Unused], old, new) -> dict[int, Unused]:
    """``rows`` (lines of the old text) as lines of the new text, where the directives of both
    texts (:func:`_directives`) align; the directive keeps its column only if it is still there
    (:func:`without_unused` checks)."""
    import difflib
    from dataclasses import replace

    if old is None or new is None:
        return {}
    before, after = old[0], new[0]
    matcher = difflib.SequenceMatcher(None, [d.comment for d in before], [d.comment for d in after], autojunk=False)
    moved = {}
    for tag, i1, i2, j1, _ in matcher.get_opcodes():
        if tag != "equal":
            continue
        for offset in range(i2 - i1):
            item = rows.get(before[i1 + offset].row)
            if item is not None and before[i1 + offset] == item.directive:
                there = after[j1 + offset]
                moved[there.row] = replace(item, directive=there)
    return moved
