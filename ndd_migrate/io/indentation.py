"""Indentation libcst cannot read, indented with spaces for the rules and given back after.

Python measures indentation in columns (a tab to the next multiple of 8, and consistently with a
tab as 1 column too), and a form feed at the start of a line resets the column. libcst compares
indentation strings instead: a block indented "\\t    " under "    " (valid Python) does not
parse, and a line indented "\\f    " makes it generate lines indented with a form feed. Such a
file's statements are indented with spaces for the rules, and get their own whitespace back.
"""

from __future__ import annotations

import io
import tokenize
import warnings
from dataclasses import dataclass

_TAB_SIZE = 8


@dataclass(frozen=True)
class Indentation:
    """The statements' own leading whitespace, by line index (0-based), taken out by
    :func:`split_indentation`; ``culprit`` is the first line (1-based) libcst could not read."""

    original: dict[int, str]
    culprit: int


def _columns(whitespace: str) -> int:
    column = 0
    for char in whitespace:
        if char == "\t":
            column = (column // _TAB_SIZE + 1) * _TAB_SIZE
        elif char == "\x0c":
            column = 0
        else:
            column += 1
    return column


def _statement_starts(text: str) -> list[int] | None:
    """The 0-based indexes of the lines where a statement starts (not inside brackets, strings or
    continuations; comment-only and blank lines left out); None when ``text`` does not tokenize."""
    starts: list[int] = []
    at_start = True
    skip = {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NEWLINE:
                at_start = True
            elif at_start and token.type not in skip:
                starts.append(token.start[0] - 1)
                at_start = False
    except (tokenize.TokenError, SyntaxError):
        return None
    return starts


def _leading(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t\x0c"))]


def split_indentation(text: str) -> tuple[str, Indentation] | None:
    """``text`` (LF breaks only) with its statements indented by spaces, when libcst could not
    read its indentation (see the module docstring); None when it can, which is nearly always (no tab, no form
    feed: nothing is even tokenized)."""
    if "\t" not in text and "\x0c" not in text:
        return None
    starts = _statement_starts(text)
    if not starts:
        return None
    lines = text.split("\n")
    stack = [""]
    culprit = None
    for index in starts:
        whitespace = _leading(lines[index])
        if "\x0c" in whitespace:
            culprit = culprit or index + 1
            continue
        if whitespace == stack[-1]:
            continue
        if _columns(whitespace) > _columns(stack[-1]):
            if not whitespace.startswith(stack[-1]):
                culprit = culprit or index + 1
            stack.append(whitespace)
            continue
        while len(stack) > 1 and _columns(stack[-1]) > _columns(whitespace):
            stack.pop()
        if stack[-1] != whitespace:
            culprit = culprit or index + 1
            stack[-1] = whitespace
    if culprit is None:
        return None
    try:  # only valid Python: spaces must not make an inconsistent file (a TabError) parse
        with warnings.catch_warnings():  # the code's own SyntaxWarnings are not ours to print
            warnings.simplefilter("ignore", SyntaxWarning)
            compile(text, "<ndd-migrate>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    original = {}
    for index in starts:
        whitespace = _leading(lines[index])
        spaces = " " * _columns(whitespace)
        if whitespace != spaces:
            original[index] = whitespace
            lines[index] = spaces + lines[index][len(whitespace) :]
    return "\n".join(lines), Indentation(original, culprit)


def restore_indentation(old: str, new: str, indentation: Indentation) -> str | None:
    """``new`` (a rewrite of ``old``, the text :func:`split_indentation` gave) with the file's own
    indentation: a statement line that is in ``old`` too, untouched, gets its whitespace back
    byte for byte; a changed or added one is indented the way the file indents that column (the
    whitespace its statements there have most, form feeds left out; for a new column, that of the
    nearest column below, plus spaces). None when ``new`` does not tokenize."""
    import difflib

    old_lines, new_lines = old.split("\n"), new.split("\n")
    starts = _statement_starts(new)
    if starts is None:
        return None
    by_column: dict[int, dict[str, int]] = {}
    for whitespace in indentation.original.values():
        kept = whitespace.rsplit("\x0c", 1)[-1]
        choices = by_column.setdefault(_columns(kept), {})
        choices[kept] = choices.get(kept, 0) + 1
    style = {column: max(choices, key=choices.__getitem__) for column, choices in by_column.items()}
    same: dict[int, int] = {}
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, _, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for offset in range(j2 - j1):
                same[j1 + offset] = i1 + offset
    for j in starts:
        line = new_lines[j]
        spaces = len(line) - len(line.lstrip(" "))
        i = same.get(j)
        if i is not None:
            whitespace = indentation.original.get(i)
            if whitespace is not None:
                new_lines[j] = whitespace + line[spaces:]
            continue
        below = [column for column in style if column <= spaces]
        if below:
            base = max(below)
            new_lines[j] = style[base] + " " * (spaces - base) + line[spaces:]
    return "\n".join(new_lines)
