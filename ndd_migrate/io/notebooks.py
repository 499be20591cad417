"""Jupyter notebooks as one Python module: code cells out, rewritten cells back, the rest untouched.

A notebook is one program spread over cells: a pipeline defined in cell 2 is built in cell 4 and run
in cell 5. The rules therefore see all code cells joined into one *virtual module*, which is parsed
and rewritten like any file, then split back into the cells.

Two kinds of lines in that module are not the user's code, and both are ``pass`` statements with a
marker comment (``pass  # ndd-migrate:cell 3``, ``pass  # ndd-migrate:mask 0``):

* one line before each code cell's code, carrying the cell's number;
* one line in place of each IPython line that is not Python (``%time x``, ``!pip install``,
  ``obj?``, ``files = !ls``, and every line of a ``%%bash``-like cell), so the module parses.

They are statements rather than bare comments because libcst keeps a comment above a statement as
part of that statement: a rule that deletes ``pipe.build()`` would silently delete the marker or the
``!nvidia-smi`` line above it. A statement is only removed by a rule that means to remove it, and
``pass`` is also valid alone in an indented block (``for ...:`` followed by ``%time step()``),
where a comment is not. ``pass`` means nothing to any rule.

Putting a notebook back touches only the ``source`` values of the code cells that changed, spliced
into the original JSON text; outputs, execution counts, metadata, cell ids, key order, indentation
and escaping stay byte-for-byte as they were, whichever tool wrote the file. Pure standard library:
this runs before ``libcst`` is imported.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

_TAG = "ndd-migrate"

# Cell magics whose body is Python run in the notebook's namespace: only their ``%%`` line is
# masked, so the rules still migrate the timed code. Any other cell magic (``%%bash``,
# ``%%writefile``, ``%%html``...) makes the whole cell foreign text.
_PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun"})

# Characters that start an IPython escape at the beginning of a logical line: magics (``%``), shell
# (``!``), help (``?``) and the autocall forms (``/f x``, ``,f a b``, ``;f a b``). None of them can
# start a Python statement, so masking such a line never hides Python.
_ESCAPES = ("%", "!", "?", "/", ",", ";")

# ``files = !ls`` and ``out = %sx ls``: assigning a shell or magic result.
_ASSIGNED_ESCAPE = re.compile(r"[ \t]*[\w.\[\], \t*]+=[ \t]*[!%]")

# One physical line with its line break; Python (and so libcst) counts CRLF, CR and LF as breaks.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")

# A JSON string escape of a non-ASCII character, preceded by an even number of backslashes.
_NON_ASCII_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\u(?!00[0-7])[0-9a-fA-F]{4}")

_JSON_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


class NotebookError(ValueError):
    """A notebook that cannot be read, or cannot be put back together after a rewrite.

    ``line`` is the line of the notebook file at fault, when there is one (invalid JSON).
    """

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass(frozen=True)
class _Cell:
    """One code cell: where its code sits in the virtual module and its source in the notebook."""

    number: int  # 1-based position among all of the notebook's cells, markdown ones included
    marker_line: int  # module line of the cell's marker; its code starts on the next line
    code: str  # the source as one string, exactly as in the notebook
    as_list: bool  # the JSON held the source as a list of lines rather than one string
    span: tuple[int, int]  # where the source value is in the notebook text


@dataclass(frozen=True)
class _Mask:
    """An IPython line replaced by a ``pass`` statement in the virtual module."""

    cell: int  # number of the cell it belongs to
    indent: str  # indentation the mask statement was given
    line: str  # the original line, without its line break


@dataclass(frozen=True)
class NotebookLayout:
    """What :func:`module_to_notebook` needs to put a rewritten module back into the notebook."""

    text: str  # the notebook file's text
    module: str  # the virtual module as built
    line_count: int  # lines in ``module``
    tag: str  # marker word, chosen not to occur in any cell
    cells: tuple[_Cell, ...]
    masks: tuple[_Mask, ...]


def notebook_to_module(text: str) -> tuple[str, NotebookLayout]:
    """Join the notebook's code cells into one Python module, IPython lines masked.

    Markdown and raw cells are not part of the module. The module's lines are the cells' lines one
    for one (each mask replaces exactly one line), plus one marker line before each cell, so a
    position in the module maps straight back to a cell (:func:`cell_position`).

    Raises :class:`NotebookError` when ``text`` is not an nbformat-4 notebook of a Python kernel.
    """
    notebook = _load(text)
    spans = _source_spans(text)
    code_cells = []
    for number, cell in enumerate(notebook["cells"], start=1):
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source")
            if isinstance(source, list) and all(isinstance(line, str) for line in source):
                code_cells.append((number, "".join(source), True))
            elif isinstance(source, str):
                code_cells.append((number, source, False))
            else:
                raise NotebookError(f"cell {number}: 'source' must be a string or a list of strings")

    tag = _unique_tag(code for _, code, _ in code_cells)
    parts: list[str] = []
    cells: list[_Cell] = []
    masks: list[_Mask] = []
    line = 0
    for number, code, as_list in code_cells:
        parts.append(f"pass  # {tag}:cell {number}\n")
        line += 1
        cells.append(_Cell(number, line, code, as_list, spans[number - 1]))
        physical = _LINE.findall(code)
        contents = [_split_break(item)[0] for item in physical]
        masked = _masked_lines(contents)
        for index, item in enumerate(physical):
            if index in masked:
                content, line_break = _split_break(item)
                parts.append(f"{masked[index]}pass  # {tag}:mask {len(masks)}{line_break}")
                masks.append(_Mask(number, masked[index], content))
            else:
                parts.append(item)
        if code and not code.endswith(("\n", "\r")):
            parts.append("\n")
        line += len(physical)
    module = "".join(parts)
    return module, NotebookLayout(text, module, line, tag, tuple(cells), tuple(masks))


def module_to_notebook(new_module: str, layout: NotebookLayout) -> str:
    """The notebook text with each code cell's code taken from ``new_module``.

    Masked IPython lines come back verbatim (re-indented if the rewrite moved their block). Only the
    ``source`` of cells whose code changed is rewritten, in the form it had (a string, or a list of
    lines laid out like the original list); everything else is the original text, so an unchanged
    module gives back the notebook byte for byte. Code placed before the first cell marker (new
    imports added at the top of the module) goes to the start of the first code cell.

    Raises :class:`NotebookError` when a marker line was removed, duplicated, reordered or moved
    into another cell: the cells can then not be told apart safely.
    """
    if new_module == layout.module:
        return layout.text
    codes = _split_module(new_module, layout)
    ensure_ascii = layout.text.isascii() and bool(_NON_ASCII_ESCAPE.search(layout.text))
    pieces = []
    position = 0
    for cell in layout.cells:
        code = codes[cell.number]
        if code == cell.code:
            continue
        start, end = cell.span
        pieces += [layout.text[position:start], _source_json(code, cell, layout.text, ensure_ascii)]
        position = end
    pieces.append(layout.text[position:])
    return "".join(pieces)


def cell_position(layout: NotebookLayout, module_line: int) -> tuple[int, int]:
    """The (cell number, line in that cell) of a line of the virtual module, both 1-based.

    Cells are numbered among all cells, markdown included, as ruff does (``nb.ipynb:cell 3:2``). A
    marker line maps to the first line of its cell. Raises ``ValueError`` for a line outside the
    module.
    """
    if not 1 <= module_line <= layout.line_count:
        raise ValueError(f"line {module_line} is outside the notebook's module")
    markers = [cell.marker_line for cell in layout.cells]
    cell = layout.cells[bisect.bisect_right(markers, module_line) - 1]
    return cell.number, max(module_line - cell.marker_line, 1)


# ------------------------------------------------------------------------------- reading the JSON


def _load(text: str) -> dict:
    """The parsed notebook, checked to be nbformat 4 with a Python kernel (or none recorded)."""
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotebookError(
            f"not a valid notebook: invalid JSON ({error.msg} at line {error.lineno}, column {error.colno})",
            error.lineno,
        ) from error
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise NotebookError("not a Jupyter notebook in nbformat 4: there is no 'cells' list")
    metadata = notebook.get("metadata")
    if isinstance(metadata, dict):
        for key, field in (("language_info", "name"), ("kernelspec", "language")):
            section = metadata.get(key)
            language = section.get(field) if isinstance(section, dict) else None
            if isinstance(language, str) and language.lower() != "python":
                raise NotebookError(f"not a Python notebook (its kernel's language is {language!r})")
    return notebook


def _skip_whitespace(text: str, index: int) -> int:
    return _JSON_WHITESPACE.match(text, index).end()


def _value_end(text: str, index: int) -> int:
    return _DECODER.raw_decode(text, index)[1]


def _walk_object(text: str, index: int, on_member: Callable[[str, int], int]) -> int:
    """Walk the JSON object at ``text[index]`` (known valid); ``on_member(key, value_start)``
    returns where the value ends. Returns the index after the closing brace."""
    index = _skip_whitespace(text, index + 1)
    while text[index] != "}":
        key, index = _DECODER.raw_decode(text, index)
        index = _skip_whitespace(text, _skip_whitespace(text, index) + 1)
        index = _skip_whitespace(text, on_member(key, index))
        if text[index] == ",":
            index = _skip_whitespace(text, index + 1)
    return index + 1


def _walk_array(text: str, index: int, on_item: Callable[[int, int], int]) -> int:
    """Walk the JSON array at ``text[index]`` (known valid); ``on_item(position, start)`` returns
    where the item ends. Returns the index after the closing bracket."""
    index = _skip_whitespace(text, index + 1)
    position = 0
    while text[index] != "]":
        index = _skip_whitespace(text, on_item(position, index))
        position += 1
        if text[index] == ",":
            index = _skip_whitespace(text, index + 1)
    return index + 1


def _source_spans(text: str) -> dict[int, tuple[int, int]]:
    """Where each cell's ``source`` value is in the text, by 0-based cell position.

    ``json`` gives values but not their places; this walks the (already validated) text with
    ``raw_decode``, which returns where each value ends, descending only into ``cells``.
    """
    spans: dict[int, tuple[int, int]] = {}

    def on_cell(position: int, start: int) -> int:
        def on_member(key: str, value_start: int) -> int:
            value_end = _value_end(text, value_start)
            if key == "source":
                spans[position] = (value_start, value_end)
            return value_end

        return _walk_object(text, start, on_member) if text[start] == "{" else _value_end(text, start)

    def on_top(key: str, start: int) -> int:
        if key == "cells":
            return _walk_array(text, start, on_cell)
        return _value_end(text, start)

    _walk_object(text, _skip_whitespace(text, 0), on_top)
    return spans


# ------------------------------------------------------------------------------- masking IPython


def _unique_tag(codes) -> str:
    """``ndd-migrate``, or ``ndd-migrate-N`` if some cell already contains the word."""
    codes = list(codes)
    tag, suffix = _TAG, 0
    while any(tag in code for code in codes):
        suffix += 1
        tag = f"{_TAG}-{suffix}"
    return tag


def _split_break(line: str) -> tuple[str, str]:
    """A physical line's content and its line break (``""`` for a last line without one)."""
    content = line.rstrip("\r\n")
    return content, line[len(content) :]


def _masked_lines(contents: list[str]) -> dict[int, str]:
    """The cell's lines that are IPython syntax, each with the indentation its mask gets.

    As in IPython, an escape counts only at the start of a logical line: a ``!`` or ``%`` inside a
    triple-quoted string or an open bracket is Python. A line magic keeps its indentation (it may
    sit in a block) and takes its backslash-continued lines with it; a foreign cell's lines are all
    masked at column 0, whatever their own indentation.
    """
    masked: dict[int, str] = {}
    start = 0
    first = next((index for index, content in enumerate(contents) if content.strip()), None)
    if first is not None and contents[first].lstrip().startswith("%%"):
        name = contents[first].lstrip()[2:].split(maxsplit=1)
        if not name or name[0] not in _PYTHON_CELL_MAGICS:
            return dict.fromkeys(range(len(contents)), "")
        masked[first] = ""
        start = first + 1

    depth, quote, continued = 0, None, False
    index = start
    while index < len(contents):
        content = contents[index]
        at_start = depth == 0 and quote is None and not continued
        scanned = _scan(content, depth, quote)
        # A '?' in code is a help request: ``obj?``, ``obj??``, ``fn.resize?``.
        if at_start and (_is_escape(content) or scanned[3]):
            indent = content[: len(content) - len(content.lstrip(" \t"))]
            masked[index] = indent
            while contents[index].endswith("\\") and index + 1 < len(contents):
                index += 1
                masked[index] = indent
        else:
            depth, quote, continued, _ = scanned
        index += 1
    return masked


def _is_escape(content: str) -> bool:
    """Whether a line starting a logical line begins with an IPython escape (or assigns one)."""
    return content.lstrip(" \t").startswith(_ESCAPES) or bool(_ASSIGNED_ESCAPE.match(content))


def _scan(line: str, depth: int, quote: str | None) -> tuple[int, str | None, bool, bool]:
    """Lex one line just enough to know whether the next one starts a logical line.

    Takes and returns the bracket depth and the open string's quote; also returns whether the line
    ends with a backslash continuation and whether it has a ``?`` outside strings and comments
    (which Python never has). String prefixes need no care: they are letters before the quote.
    """
    index, end, question = 0, len(line), False
    while index < end:
        char = line[index]
        if quote:
            if char == "\\":
                index += 2
            elif line.startswith(quote, index):
                index += len(quote)
                quote = None
            else:
                index += 1
        elif char == "#":
            return depth, None, False, question
        elif char in "'\"":
            quote = char * 3 if line.startswith(char * 3, index) else char
            index += len(quote)
        else:
            if char in "([{":
                depth += 1
            elif char in ")]}":
                depth = max(depth - 1, 0)
            elif char == "?":
                question = True
            index += 1
    if quote in ("'", '"') and index <= end:
        quote = None  # an unterminated one-line string is an error; the next line starts afresh
    return depth, quote, quote is None and line.endswith("\\"), question


# ------------------------------------------------------------------------------- putting it back


def _split_module(new_module: str, layout: NotebookLayout) -> dict[int, str]:
    """Each code cell's new code, by cell number, with masked lines restored."""
    marker = re.compile(rf"([ \t]*)pass[ \t]*#[ \t]*{re.escape(layout.tag)}:(cell|mask) (\d+)[ \t]*")
    before_first: list[str] = []
    chunks: dict[int, list[str]] = {}
    chunk = before_first
    current: int | None = None
    next_cell = 0
    restored: set[int] = set()
    for line in _LINE.findall(new_module):
        content, line_break = _split_break(line)
        match = marker.fullmatch(content)
        if match is None:
            chunk.append(line)
            continue
        indent, kind, number = match.group(1), match.group(2), int(match.group(3))
        if kind == "cell":
            expected = layout.cells[next_cell].number if next_cell < len(layout.cells) else None
            if number != expected:
                raise NotebookError(
                    "cannot put the notebook back together: the rewrite removed, moved or"
                    f" duplicated a cell marker (found cell {number}'s where"
                    + (f" cell {expected}'s was expected)" if expected else " no more were expected)")
                )
            next_cell += 1
            current = number
            chunk = chunks[number] = []
        else:
            if number >= len(layout.masks) or number in restored or layout.masks[number].cell != current:
                raise NotebookError(
                    "cannot put the notebook back together: the rewrite duplicated an IPython line"
                    " or moved it to another cell"
                )
            restored.add(number)
            chunk.append(_unmask(layout.masks[number], indent) + line_break)

    if next_cell < len(layout.cells):
        missing = layout.cells[next_cell].number
        raise NotebookError(
            f"cannot put the notebook back together: the marker of cell {missing} was removed by the rewrite"
        )
    if len(restored) < len(layout.masks):
        lost = next(mask for number, mask in enumerate(layout.masks) if number not in restored)
        raise NotebookError(
            f"cannot put the notebook back together: the rewrite removed the IPython line"
            f" {lost.line.strip()!r} of cell {lost.cell}"
        )
    if before_first:
        if not layout.cells:
            raise NotebookError("the rewrite added code, but the notebook has no code cell to hold it")
        chunks[layout.cells[0].number][:0] = before_first

    codes = {}
    for cell in layout.cells:
        code = "".join(chunks[cell.number])
        if cell.code and not cell.code.endswith(("\n", "\r")) and code.endswith("\n"):
            code = code[:-1]  # the line break added after the cell's last line
        codes[cell.number] = code
    return codes


def _unmask(mask: _Mask, indent: str) -> str:
    """The original line, re-indented as its mask was if the rewrite moved it to another block."""
    if indent == mask.indent or not mask.line.startswith(mask.indent):
        return mask.line
    return indent + mask.line[len(mask.indent) :]


def _source_json(code: str, cell: _Cell, text: str, ensure_ascii: bool) -> str:
    """The JSON for a changed cell's ``source``, in the form and layout the original had."""
    if not cell.as_list:
        return json.dumps(code, ensure_ascii=ensure_ascii)
    lines = code.splitlines(keepends=True)  # nbformat's own splitting of a source into lines
    if not lines:
        return "[]"
    opening, between, closing = _list_layout(text, cell.span[0])
    items = between.join(json.dumps(line, ensure_ascii=ensure_ascii) for line in lines)
    return f"[{opening}{items}{closing}]"


def _list_layout(text: str, start: int) -> tuple[str, str, str]:
    """The whitespace after ``[``, between items and before ``]`` of the list at ``text[start]``.

    Copied from the list itself when it has items; for an empty one, derived from the indentation
    of its key's line and the document's indentation step, as an indenting writer would lay it out.
    """
    items: list[tuple[int, int]] = []

    def on_item(_: int, item_start: int) -> int:
        items.append((item_start, _value_end(text, item_start)))
        return items[-1][1]

    end = _walk_array(text, start, on_item)
    if items:
        opening = text[start + 1 : items[0][0]]
        between = text[items[0][1] : items[1][0]] if len(items) > 1 else "," + opening
        return opening, between, text[items[-1][1] : end - 1]

    line_start = text.rfind("\n", 0, start) + 1
    if not line_start:
        return "", ",", ""  # a one-line (minified) document
    line_break = "\r\n" if text[line_start - 2 : line_start] == "\r\n" else "\n"
    key_indent = re.match(r"[ \t]*", text[line_start:]).group()
    step = re.match(r"[ \t]*", text[text.index("\n") + 1 :]).group()
    opening = line_break + key_indent + step
    return opening, "," + opening, line_break + key_indent
