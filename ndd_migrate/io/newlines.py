"""A text's line breaks, taken out so that the rules see ``\\n`` only, and put back after, each
line's own (CRLF, lone CR, mixed) kept where the rewrite left the line alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: A line break as Python's tokenizer counts them: CRLF, CR and LF each end a line.
LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Newlines:
    """A text's line breaks, taken out so that the rules see ``\\n`` only (as Python's own tokenizer
    does: CRLF, CR and LF each end a line), and put back after: see :func:`split_newlines`.

    ``breaks[i]`` is the break that ended line ``i + 1``; ``dominant`` the most frequent one (the
    first met among equals; ``\\n`` in a text without any), which lines the rules add get.
    """

    breaks: tuple[str, ...]
    dominant: str

    @property
    def uniform(self) -> bool:
        return all(b == self.dominant for b in self.breaks)


def split_newlines(text: str) -> tuple[str, Newlines]:
    """``text`` with every line break made ``\\n``, and what :func:`restore_newlines` needs to
    undo it. Line and column numbers are the same in both texts."""
    breaks = tuple(LINE_BREAK.findall(text))
    counts: dict[str, int] = {}
    for line_break in breaks:
        counts[line_break] = counts.get(line_break, 0) + 1
    dominant = max(counts, key=counts.__getitem__) if counts else "\n"  # dicts keep first-met order
    normalized = text if not counts.keys() - {"\n"} else LINE_BREAK.sub("\n", text)
    return normalized, Newlines(breaks, dominant)


def restore_newlines(old: str, new: str, newlines: Newlines) -> str:
    """``new`` (a rewrite of ``old``, both with ``\\n`` breaks only) with the original file's line
    breaks: a line that is in ``old`` too, untouched, keeps its own break, byte for byte; a line
    the rewrite added or changed gets the file's dominant one. The final line keeps having a break
    or not, as in ``new``."""
    if newlines.uniform:
        return new if newlines.dominant == "\n" else new.replace("\n", newlines.dominant)
    import difflib

    old_lines, new_lines = old.split("\n"), new.split("\n")
    after = [newlines.dominant] * (len(new_lines) - 1)
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, _, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for offset in range(j2 - j1):
                i, j = i1 + offset, j1 + offset
                if j < len(after) and i < len(newlines.breaks):
                    after[j] = newlines.breaks[i]
    out = []
    for line, line_break in zip(new_lines, after):
        out.append(line)
        out.append(line_break)
    out.append(new_lines[-1])
    return "".join(out)
