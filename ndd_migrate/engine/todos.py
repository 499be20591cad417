"""``# TODO(ndd-migrate): ...`` comments above a statement: written once, wrapped at the line length,
and read back (a wrapped one joined again) so that a second run never adds the same one, nor keeps
one that no longer holds (:func:`without_stale_todos`).
"""

from __future__ import annotations

import re

import libcst as cst

from ndd_migrate.engine.context import TODO_PREFIX

#: The start of a TODO comment's continuation lines, when it is wrapped at the line length.
TODO_CONTINUATION = "#   "


def add_todo_comments(stmt: cst.CSTNode, todos: list[str], width: int | None = None) -> cst.CSTNode:
    """Put ``# TODO(ndd-migrate): ...`` lines above a statement, never the same one twice (also
    when the one there was wrapped). ``width``: the columns the comment may take (the line
    length less the statement's indentation); a longer TODO is wrapped at spaces, continued on
    lines starting :data:`TODO_CONTINUATION` (a word longer than that stays whole)."""
    present = {_compared(text) for text in _todos(stmt.leading_lines)}
    new = [
        cst.EmptyLine(comment=cst.Comment(line))
        for text in dict.fromkeys(_one_line(text) for text in todos)
        if _compared(text) not in present
        for line in _wrapped(text, width)
    ]
    if not new:
        return stmt
    return stmt.with_changes(leading_lines=[*stmt.leading_lines, *new])


def _one_line(text: str) -> str:
    """A TODO's text as it is written and compared: each run of whitespace one space. Wrapping breaks
    lines at spaces and reading a wrapped TODO back joins them with one: a text with a run of
    spaces (code quoted over several lines) would otherwise never equal itself read back, and a
    second run would write it again."""
    return " ".join(text.split())


def _compared(text: str) -> str:
    """A TODO's text as :func:`add_todo_comments` compares it with one already there: its numbers
    and the folders of the paths it names left out. A TODO may name a place in another module
    (``data/train.py:160 (`pipe`) uses it ...``): this run's TODOs in that module move the line
    down, and a run started in another folder names the file by another path; the next run's same
    TODO must not be written a second time beside the first."""
    return re.sub(r"\d+", "#", re.sub(r"[^\s`(]*/", "", _one_line(text)))


def _wrapped(text: str, width: int | None) -> list[str]:
    if width is None or len(text) <= width:
        return [text]
    import textwrap

    return textwrap.wrap(
        text,
        width=max(width, len(TODO_PREFIX) + 12),
        subsequent_indent=TODO_CONTINUATION,
        break_long_words=False,
        break_on_hyphens=False,
    )


def _todos(lines) -> list[str]:
    """The TODO comments among a statement's leading lines, each as one line of text (a wrapped
    one joined again)."""
    found: list[str] = []
    inside = False
    for line in lines:
        comment = line.comment.value if line.comment else None
        if comment is not None and comment.startswith(TODO_PREFIX):
            found.append(comment)
            inside = True
        elif inside and comment is not None and comment.startswith(TODO_CONTINUATION) and comment.strip("# "):
            found[-1] += " " + comment[len(TODO_CONTINUATION) :]
        else:
            inside = False
    return found


def without_stale_todos(stmt: cst.CSTNode, current: list[str], owned) -> cst.CSTNode:
    """``stmt`` without the TODOs above it that this run no longer writes there: those of an
    earlier run whose cause is gone (the pipeline now converts, the use was rewritten by hand).
    Only the TODOs ``owned(text)`` says this run would have written (their rule is selected) go;
    the comments and blank lines around them stay."""
    lines = list(stmt.leading_lines)
    if not has_todos(stmt):
        return stmt
    keep = {_one_line(text) for text in current}
    out, dropping = [], False
    for index, line in enumerate(lines):
        comment = line.comment.value if line.comment else None
        if comment is not None and comment.startswith(TODO_PREFIX):
            text = _one_line(_todos(lines[index:])[0])
            dropping = text not in keep and owned(text)
        elif not (dropping and comment is not None and comment.startswith(TODO_CONTINUATION) and comment.strip("# ")):
            dropping = False
        if not dropping:
            out.append(line)
    return stmt if len(out) == len(lines) else stmt.with_changes(leading_lines=out)


def has_todos(stmt: cst.CSTNode) -> bool:
    """Is there a TODO of this tool above ``stmt``?"""
    return any(line.comment is not None and line.comment.value.startswith(TODO_PREFIX) for line in stmt.leading_lines)


def one_per_code(todos: list[str]) -> list[str]:
    """One TODO of each rule per statement (the first), saying how many more that rule found there:
    two pipelines blocked by one statement were two TODOs of NDD008 above it. Every finding stays
    in the report."""
    first: dict[str, int] = {}
    more: dict[str, int] = {}
    out: list[str] = []
    for text in dict.fromkeys(todos):  # the same words twice (one cause, two pipelines) are said once
        code = text[len(TODO_PREFIX) :].split(" ", 1)[0] if text.startswith(TODO_PREFIX) else text
        if code in first:
            more[code] = more.get(code, 0) + 1
            continue
        first[code] = len(out)
        out.append(text)
    for code, n in more.items():
        out[first[code]] += f" (and {n} more {code} finding{'s' if n > 1 else ''} here: `ndd-migrate check` lists them)"
    return out
