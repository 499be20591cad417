"""Continuation lines the user aligned with an opening bracket, aligned with it again.

People often write a call over several lines with its arguments under the first one::

    images = fn.decoders.image(jpegs, device="mixed",
                               output_type=types.RGB)

The rewrite changes the first line (``ndd.decoders.image``: one column longer; a target renamed; the
statement moved into the generator's loop, which libcst indents as a whole) but keeps the user's
continuation lines as they were, so they end up a column or more off the bracket they were under,
which a reviewer sends back. After the rules, each continuation line that stood under the
innermost open bracket of its statement in the original text (a *visual* indent: the bracket
followed by code on its own line) and no longer does is moved back under it, by adding or
removing leading spaces. A line moved this way moves the brackets it opens, and the lines under
those follow.

Lines are matched to the original by their text without indentation: a line whose text the
original holds both aligned and not aligned (two calls alike, laid out differently) is left as it
is. Hanging indents (the bracket last on its line, as black and the long-line split write them),
tabs, and the insides of strings are never touched; only whitespace before a line's first token
changes, inside brackets, where Python ignores it.
"""

from __future__ import annotations

import io
import tokenize

_OPENING, _CLOSING = frozenset("([{"), frozenset(")]}")
_LAYOUT = frozenset({tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER})


def realign(code: str, original: str) -> str:
    """``code`` (the rewrite of ``original``) with the continuation lines the user aligned under a
    bracket aligned under it again (see the module docstring)."""
    aligned, other = _alignment(original)
    starts = _continuations(code) if aligned else None
    if not starts:
        return code
    under: dict[tuple[int, int, bool], list[tuple[int, int]]] = {}
    for number, (bracket, column) in sorted(starts.items()):
        under.setdefault(bracket, []).append((number, column))
    lines = code.split("\n")
    shift: dict[int, int] = {}
    for bracket, continuations in sorted(under.items()):
        opened_line, opened_at, visual = bracket
        target = opened_at + shift.get(opened_line, 0) + 1
        # The column the user's lines under this bracket stood at, known from one that the original
        # holds aligned; the lines the rules added there (an argument appended) stand at it too.
        at = next(
            (column for number, column in continuations if _key(lines[number - 1]) in aligned - other),
            None,
        )
        if not visual or at is None or at == target:
            continue
        for number, column in continuations:
            text = lines[number - 1]
            if column == at and text[:column].strip(" ") == "" and text.strip()[:1] not in _CLOSING:
                lines[number - 1] = " " * target + text[column:]
                shift[number] = target - column
    return "\n".join(lines) if shift else code


def _key(line: str) -> str:
    """A line's text as matched with the original's: without indentation, nor the closing brackets
    and commas at its end (the rules append arguments after a user's last one)."""
    return line.strip().rstrip(",)]} ")


def _alignment(text: str) -> tuple[set[str], set[str]]:
    """The continuation lines of ``text`` (:func:`_key`) that stand under the innermost open
    bracket of their statement, a visual indent; and those that do not."""
    aligned: set[str] = set()
    other: set[str] = set()
    lines = text.split("\n")
    for number, ((_, opened_at, visual), column) in (_continuations(text) or {}).items():
        if visual:
            (aligned if column == opened_at + 1 else other).add(_key(lines[number - 1]))
    aligned.discard("")
    return aligned, other


def _continuations(text: str) -> dict[int, tuple[tuple[int, int, bool], int]] | None:
    """Each line (1-based) whose first token stands inside brackets → (the innermost open bracket:
    its line, its column, whether code follows it on its line; the column of the line's first
    token). None when ``text`` does not tokenize."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    open_brackets: list[tuple[int, int, bool]] = []
    found: dict[int, tuple[tuple[int, int, bool], int]] = {}
    last_line = 0
    for index, token in enumerate(tokens):
        if token.type in _LAYOUT:
            continue
        line, column = token.start
        if line > last_line and open_brackets:
            found[line] = (open_brackets[-1], column)
        last_line = token.end[0]
        if token.type == tokenize.OP and token.string in _OPENING:
            following = tokens[index + 1] if index + 1 < len(tokens) else None
            visual = (
                following is not None
                and following.start[0] == line
                and following.type not in _LAYOUT
                and following.type != tokenize.COMMENT
            )
            open_brackets.append((line, column, visual))
        elif token.type == tokenize.OP and token.string in _CLOSING and open_brackets:
            open_brackets.pop()
    return found
