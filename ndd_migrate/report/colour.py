"""Colour for a terminal: the ``check`` report and ``migrate --diff``, as ruff and git colour theirs.

Only on a terminal (or with ``FORCE_COLOR``), never with ``NO_COLOR`` (https://no-color.org): a
report piped to a file or another program stays plain text, byte for byte what the format page
describes. Plain ANSI codes, no rich: the text is already rendered, and user text in it (paths,
messages) must not be read as markup.
"""

from __future__ import annotations

import os
import re
import sys

RESET = "\x1b[0m"
BOLD = "\x1b[1m"
RED = "\x1b[31m"
GREEN = "\x1b[32m"
CYAN = "\x1b[36m"
BOLD_RED = "\x1b[1;31m"

_FINDING = re.compile(r"^(?P<path>.+?):(?P<pos>(?:cell \d+:)?\d+:\d+): (?P<code>NDD\d+) (?P<mark>\[\*\] |\[unsafe\] )?")
_ERROR = re.compile(r"^(?P<where>.+?): error: ")


def use_colour(stream=None) -> bool:
    """Whether to colour what goes to ``stream`` (default stdout)."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    stream = sys.stdout if stream is None else stream
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def colour_report(text: str) -> str:
    """``concise``/``full`` text with the path, position, code and fix mark of each finding, file
    errors and the summary coloured."""
    out = []
    for line in text.split("\n"):
        if m := _FINDING.match(line):
            mark = m["mark"] or ""
            line = (
                f"{BOLD}{m['path']}{RESET}:{CYAN}{m['pos']}{RESET}: {BOLD_RED}{m['code']}{RESET} "
                f"{CYAN + mark.rstrip() + RESET + ' ' if mark else ''}{line[m.end() :]}"
            )
        elif m := _ERROR.match(line):
            line = f"{BOLD}{m['where']}{RESET}: {BOLD_RED}error{RESET}: {line[m.end() :]}"
        elif line == "All checks passed!":
            line = f"{GREEN}{line}{RESET}"
        elif line.startswith("Found "):
            line = f"{BOLD}{line}{RESET}"
        out.append(line)
    return "\n".join(out)


def colour_diff(data: bytes) -> bytes:
    """A unified diff with file headers bold, hunk headers cyan, removed lines red, added green."""
    out = []
    for line in data.splitlines(keepends=True):
        body = line.rstrip(b"\r\n")
        end = line[len(body) :]
        if body.startswith((b"+++ ", b"--- ")):
            colour = BOLD
        elif body.startswith(b"@@"):
            colour = CYAN
        elif body.startswith(b"+"):
            colour = GREEN
        elif body.startswith(b"-"):
            colour = RED
        else:
            out.append(line)
            continue
        out.append(colour.encode() + body + RESET.encode() + end)
    return b"".join(out)
