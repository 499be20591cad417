"""Finding the files to migrate, and reading and writing them so that nothing is lost.

Everything here (and in the two project modules it uses) is standard library only, on purpose:
discovery and the byte prefilter run before ``libcst`` is imported (about 0.35 s), so that a
pre-commit run over files that never mention DALI costs little more than reading their bytes.

Reading keeps what an editor would keep: the PEP 263 encoding, a UTF-8 byte-order mark and the
newlines exactly as they are in the file (CRLF, lone CR, mixed). Writing encodes back the same way
and replaces the file atomically, so a file is either the old bytes or the new ones, never a mix.
"""

from __future__ import annotations

import codecs
import contextlib
import io
import os
import re
import stat
import tempfile
import time
import tokenize
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ndd_migrate.io.config import DEFAULT_EXCLUDE, PathGlob
from ndd_migrate.io.diagnostics import FileError

DEFAULT_EXTENSIONS = (".py", ".ipynb")

#: Directories never entered when walking a tree, unless the caller's ``is_excluded`` takes over:
#: version control, environments, caches and build output hold copies of code, or other people's
#: code, which must not be rewritten (``.ipynb_checkpoints`` holds autosaved copies of notebooks).
#: The same list as the configuration's default ``exclude``, so both say the same thing.
SKIPPED_DIRS = frozenset(DEFAULT_EXCLUDE)

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_LINE_BREAK_BYTES = re.compile(rb"\r\n|\r|\n")
# PEP 263: a coding declaration is a comment on line 1 or 2 matching this expression.
_CODING_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


class SourceError(Exception):
    """A file that cannot be found, read, decoded or written; it is left as it was.

    ``line`` (1-based) is where the problem is when it can be told, e.g. the first undecodable byte.
    """

    def __init__(self, path: str | os.PathLike[str], message: str, line: int | None = None):
        self.path = os.fspath(path)
        self.message = message
        self.line = line
        super().__init__(f"{self.path}:{line}: {message}" if line else f"{self.path}: {message}")

    def to_file_error(self) -> FileError:
        """The engine's per-file error record, so the run can report it and go on."""
        return FileError(self.path, self.message, self.line)


@dataclass(frozen=True)
class SourceText:
    """A decoded file and what is needed to write it back the same way.

    ``text`` is the content without the byte-order mark and with newlines untranslated; ``raw`` is
    the bytes as read, so a writer can tell whether the file changed on disk in the meantime.
    """

    text: str
    encoding: str
    bom: bool
    raw: bytes


# --------------------------------------------------------------------------------------- discovery


def discover(
    paths: Iterable[str | os.PathLike[str]],
    exclude: Iterable[str] = (),
    extensions: Iterable[str] = DEFAULT_EXTENSIONS,
    *,
    root: str | os.PathLike[str] | None = None,
    is_excluded: Callable[[str], bool] | None = None,
    force_exclude: bool = False,
    respect_gitignore: bool | Callable[[str], bool] = False,
) -> list[Path]:
    """The files to process under ``paths``, sorted and without duplicates.

    Directories are walked recursively for files with one of ``extensions``. Left out: directories
    named in :data:`SKIPPED_DIRS`, and paths matching an ``exclude`` pattern, in the
    configuration's glob syntax (:class:`~ndd_migrate.io.config.PathGlob`: ``legacy`` and
    ``*_pb2.py`` match a name anywhere, ``src/generated`` or ``**/fixtures`` match from ``root``,
    the current directory by default). An excluded directory is not entered.

    ``is_excluded`` plugs in the project's configuration (``Configuration.is_excluded``, which
    applies each ``pyproject.toml``'s excludes and defaults); when it is given it replaces
    :data:`SKIPPED_DIRS`, so that a project whose ``exclude`` replaces the default list (ruff's
    semantics) gets what it asked for.

    A file named explicitly is always included, whatever its extension (the user asked for it), and
    also when excluded, unless ``force_exclude`` is set: pre-commit passes every staged file by
    name, and the project's excludes must still hold there (ruff's ``--force-exclude``).

    Only regular files are walked (see :func:`_walk`); a symlink is followed only to a regular file
    inside the walked directory, and symlinked directories are not entered (no loops, no rewriting
    code outside the tree). A file named explicitly is taken as it is, and read by
    :func:`read_bytes`, which refuses one that is not a regular file. Files reached twice (``a.py`` and a symlink to it, or a file named alone and within its directory)
    are returned once.

    ``respect_gitignore`` (a bool, or a function of the directory walked): leave out what the
    repository's ``.gitignore`` files ignore (:mod:`ndd_migrate.io.gitignore`) below a walked
    directory; files named explicitly are taken all the same. Raises :class:`SourceError` for a path that does not exist or a directory
    that cannot be listed: silently skipping it would leave code unmigrated without a word.
    """
    base = os.path.abspath(root if root is not None else os.getcwd())
    globs = [PathGlob.compile(pattern, base) for pattern in exclude]
    suffixes = tuple(extensions)

    def excluded(path: str) -> bool:
        """Excluded by a pattern or by the caller, itself or through an excluded ancestor."""
        return any(glob.matches(path) for glob in globs) or (
            is_excluded is not None and is_excluded(path)
        )

    def skipped_by_default(path: str) -> bool:
        """``path`` lies in a :data:`SKIPPED_DIRS` directory below ``base`` (for explicit paths)."""
        parts = os.path.relpath(os.path.abspath(path), base).split(os.sep)
        return is_excluded is None and parts[0] != ".." and not SKIPPED_DIRS.isdisjoint(parts)

    found: list[Path] = []
    for given in paths:
        top = os.fspath(given)
        if not os.path.lexists(top):
            raise SourceError(top, "no such file or directory")
        if force_exclude and (skipped_by_default(top) or excluded(top)):
            continue
        if os.path.isdir(top):
            respect = respect_gitignore(top) if callable(respect_gitignore) else respect_gitignore
            if respect:
                from ndd_migrate.io.gitignore import Ignored

                ignored = Ignored(top)
            else:
                ignored = None
            found.extend(_walk(top, suffixes, excluded, skip_default=is_excluded is None, ignored=ignored))
        else:
            # A file named explicitly, whatever it is: one that is not a regular file (a FIFO, a
            # device, a socket, a dangling link) becomes that file's error when it is read.
            found.append(Path(top))

    unique: list[Path] = []
    seen: set[str] = set()
    real_dirs: dict[str, str] = {}
    for path in sorted(found):
        real = _realpath(os.fspath(path), real_dirs)
        if real not in seen:
            seen.add(real)
            unique.append(path)
    return unique


def _walk(
    top: str,
    suffixes: tuple[str, ...],
    excluded: Callable[[str], bool],
    *,
    skip_default: bool,
    ignored: Callable[[str, bool], bool] | None = None,
) -> list[Path]:
    """The regular files with one of ``suffixes`` below the directory ``top``.

    Only regular files: a FIFO named ``x.py`` would block the reader forever, a link to
    ``/dev/zero`` would be read until memory runs out, so neither is ever opened. A symlink is
    followed only to a regular file inside ``top`` (once its links are resolved): a link to a file
    outside the tree is left out, so that ``migrate DIR`` never rewrites a file outside ``DIR``.
    Symlinked directories are not entered (no loops, nothing outside the tree). Exclusion is tested
    on absolute paths, cheaper to match than relative ones (each costs a ``getcwd``).
    """
    absolute_top = os.path.abspath(top)
    real_top = os.path.realpath(top)
    found: list[Path] = []
    pending = [top]
    while pending:
        directory = pending.pop()
        absolute = absolute_top + directory[len(top) :]
        try:
            with os.scandir(directory) as entries:
                listed = list(entries)
        except OSError as error:
            raise SourceError(error.filename or directory, f"cannot list directory: {error.strerror}")
        for entry in listed:
            name = entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    inner = os.path.join(absolute, name)
                    if not (skip_default and name in SKIPPED_DIRS) and not excluded(inner):
                        if ignored is None or not ignored(inner, True):
                            pending.append(os.path.join(directory, name))
                    continue
                if not name.endswith(suffixes):
                    continue
                if entry.is_symlink():
                    if not _link_to_regular_file_inside(entry.path, real_top):
                        continue
                elif not entry.is_file(follow_symlinks=False):
                    continue  # a FIFO, socket or device
            except OSError:
                continue  # vanished while listed
            inner = os.path.join(absolute, name)
            if not excluded(inner) and (ignored is None or not ignored(inner, False)):
                found.append(Path(directory, name))
    return found


def _link_to_regular_file_inside(link: str, real_top: str) -> bool:
    """Does the symlink ``link`` lead, through all its links, to a regular file below
    ``real_top`` (a real path)?"""
    target = os.path.realpath(link)
    try:
        if not stat.S_ISREG(os.stat(target).st_mode):
            return False
    except OSError:
        return False  # dangling
    return os.path.commonpath([real_top, target]) == real_top


def _realpath(path: str, real_dirs: dict[str, str]) -> str:
    """``os.path.realpath(path)``, resolving each directory once (``real_dirs`` remembers them):
    for a file that is not itself a symlink that is the directory's real path plus its name, one
    ``lstat`` instead of one per path component, which adds up over thousands of files."""
    if os.path.islink(path):
        return os.path.realpath(path)
    directory, name = os.path.split(os.path.abspath(path))
    real_dir = real_dirs.get(directory)
    if real_dir is None:
        real_dir = real_dirs[directory] = os.path.realpath(directory)
    return os.path.join(real_dir, name)


#: The mark of a generated file (libcst's codemod CLI skips such files): written, split here so
#: that this file does not carry it.
GENERATED_MARKER = b"@" + b"generated"
#: The lines a file's generated mark is looked for in: a header, not a mention further down.
GENERATED_LINES = 10


def is_generated(data: bytes) -> bool:
    """Does the file say it is generated: ``@generated`` in its first :data:`GENERATED_LINES`
    lines? Such a file is rewritten by rerunning its generator, not by hand or by a codemod.
    (libcst looks for the marker anywhere; a header is stricter, so a file that only mentions
    the word, as a linter's own source does, is still checked.)"""
    if GENERATED_MARKER not in data:
        return False
    head = data.split(b"\n", GENERATED_LINES)[:GENERATED_LINES]
    return any(GENERATED_MARKER in line for line in head)


def mentions_dali(data: bytes) -> bool:
    """The byte prefilter: can this file involve DALI at all? ``False`` means skip it unparsed.

    A Python file can only reach DALI by naming the package ``nvidia.dali`` somewhere in its own
    text: ``import nvidia.dali.fn as fn``, ``from nvidia import dali``, ``from nvidia.dali import
    pipeline_def``, ``import nvidia.dali.experimental.dynamic as ndd``,
    ``__import__("nvidia.dali")`` and ``importlib.import_module("nvidia.dali.fn")`` all contain
    the four bytes ``dali``. PEP 263 allows only ASCII-compatible source encodings, and notebooks
    are UTF-8 JSON in which ASCII letters are never escaped, so those bytes are there in every case.
    The name resolver needs such an import in the same file before any rule fires, so the filter
    never skips a file a rule would have changed. (Missed, and unresolvable anyway: DALI objects
    that arrive through another module's re-export, and a ``dali`` spelled with non-ASCII
    look-alike letters, which Python's NFKC normalization of identifiers would accept. A pipeline
    that another project module defines is the runner's business: it resolves the imports of the
    files this test drops, see :class:`ndd_migrate.model.crossfile.ProjectImports`.)

    It is a plain substring test on purpose: no decoding, no regular expression, so it costs next
    to nothing beside reading the bytes.
    """
    return b"dali" in data


# ------------------------------------------------------------------------------------------ reading


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of the regular file ``path`` (through symlinks). Raises :class:`SourceError` for
    anything else, without blocking or reading it: a FIFO (opened non-blocking, so no writer is
    waited for), a device such as ``/dev/zero`` (endless), a directory or a socket."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        raise SourceError(path, f"cannot read: {error.strerror or error}") from error
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise SourceError(path, f"cannot read: not a regular file ({_file_kind(mode)})")
        with open(descriptor, "rb", closefd=False) as stream:
            return stream.read()
    except OSError as error:
        raise SourceError(path, f"cannot read: {error.strerror or error}") from error
    finally:
        os.close(descriptor)


def _file_kind(mode: int) -> str:
    for test, kind in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return kind
    return "not a file"


def read_source(path: str | os.PathLike[str]) -> SourceText:
    """Read and decode a Python file or notebook; see :func:`read_bytes` and
    :func:`decode_source`."""
    return decode_source(read_bytes(path), path)


def decode_source(raw: bytes, path: str | os.PathLike[str]) -> SourceText:
    """Decode bytes already read (the engine reads once, prefilters, then decodes).

    Python files are decoded as PEP 263 says: a UTF-8 byte-order mark, else a coding cookie on line
    1 or 2, else UTF-8. Notebooks are JSON, which is always UTF-8, so a cookie-like line inside one
    means nothing. ``bytes.decode`` never translates newlines, so CRLF and mixed newlines survive.
    """
    bom = raw.startswith(codecs.BOM_UTF8)
    notebook = os.fspath(path).endswith(".ipynb")
    if notebook:
        encoding = "utf-8"
    else:
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        except SyntaxError as error:
            if _cookie_line(raw) is not None:
                raise SourceError(
                    path, f"bad encoding declaration: {error.msg}", _cookie_line(raw)
                ) from error
            encoding = "utf-8"  # no declaration: undecodable bytes on line 1 or 2, reported below
        if encoding == "utf-8-sig":
            encoding = "utf-8"
    body = raw[len(codecs.BOM_UTF8) :] if bom else raw
    try:
        text = body.decode(encoding)
    except UnicodeDecodeError as error:
        offset = error.start + (len(codecs.BOM_UTF8) if bom else 0)
        raise SourceError(
            path,
            f"cannot decode byte 0x{raw[offset]:02x} as {encoding}"
            + _decode_advice(raw, encoding, bom, notebook),
            _line_at(_LINE_BREAK_BYTES, raw, offset),
        ) from error
    return SourceText(text=text, encoding=encoding, bom=bom, raw=raw)


def _decode_advice(raw: bytes, encoding: str, bom: bool, notebook: bool) -> str:
    """What to do about bytes the encoding cannot decode: declaring an encoding helps only a file
    that declares none."""
    if notebook:
        return " (a notebook must be UTF-8)"
    if bom:
        return " (the file starts with a UTF-8 byte-order mark: remove it or fix the bytes)"
    line = _cookie_line(raw)
    if line is not None:
        return f" (line {line} declares {encoding}: correct that declaration or the bytes)"
    return " (declare the file's encoding with a '# -*- coding: ... -*-' line)"


def _cookie_line(raw: bytes) -> int | None:
    """The line (1 or 2) holding the coding declaration, if there is one."""
    for number, line in enumerate(raw.splitlines()[:2], start=1):
        if _CODING_COOKIE.match(line):
            return number
    return None


def _line_at(pattern: re.Pattern, data, offset: int) -> int:
    """The 1-based line of ``data[offset]``, counting CRLF, CR and LF as Python does."""
    return len(pattern.findall(data, 0, offset)) + 1


# ----------------------------------------------------------------------------------------- newlines


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
    breaks = tuple(_LINE_BREAK.findall(text))
    counts: dict[str, int] = {}
    for line_break in breaks:
        counts[line_break] = counts.get(line_break, 0) + 1
    dominant = max(counts, key=counts.__getitem__) if counts else "\n"  # dicts keep first-met order
    normalized = text if not counts.keys() - {"\n"} else _LINE_BREAK.sub("\n", text)
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


# -------------------------------------------------------------------------------------- indentation
#
# Python measures indentation in columns (a tab to the next multiple of 8, and consistently with a
# tab as 1 column too), and a form feed at the start of a line resets the column. libcst compares
# indentation strings instead: a block indented "\\t    " under "    " (valid Python) does not
# parse, and a line indented "\\f    " makes it generate lines indented with a form feed. Such a
# file's statements are indented with spaces for the rules, and get their own whitespace back.

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
    read its indentation (see above); None when it can, which is nearly always (no tab, no form
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


# ------------------------------------------------------------------------------------------ writing


def encode_source(path: str | os.PathLike[str], text: str, original: SourceText) -> bytes:
    """The bytes of ``text`` as :func:`write_source` writes them over the file read as
    ``original``: its encoding, its byte-order mark; newlines are the text's own. ``--diff``
    prints the difference of these bytes, so that the patch is what ``migrate`` would write.

    Raises :class:`SourceError` when the encoding cannot represent a character of ``text``.
    """
    try:
        data = text.encode(original.encoding)
    except UnicodeEncodeError as error:
        raise SourceError(
            path,
            f"the new text contains {text[error.start]!r}, which {original.encoding}"
            " cannot encode; file left unchanged",
            _line_at(_LINE_BREAK, text, error.start),
        ) from error
    return codecs.BOM_UTF8 + data if original.bom else data


#: The temporary file's name: ``.NAME.PID.XXXXXXXX.ndd-tmp``, beside the file it replaces. The
#: writer's process id in it lets a later run tell a temporary file left by a killed run (its
#: process is gone) from one that a run still going is writing.
TEMPORARY_SUFFIX = ".ndd-tmp"
_TEMPORARY_NAME = re.compile(r"\.(?P<name>.+)\.(?P<pid>\d+)\.[a-z0-9_]{8}" + re.escape(TEMPORARY_SUFFIX) + r"\Z")
#: When this process started, near enough: stale temporary files are older than the run.
_STARTED = time.time()
_swept: set[str] = set()


def write_source(path: str | os.PathLike[str], new_text: str, original: SourceText) -> None:
    """Write ``new_text`` over the file read as ``original``: atomically, in the same encoding.

    The new bytes go to a temporary file in the same directory (same file system, so the final
    rename is atomic), get the original's permission bits (and owner, where allowed), are fsynced,
    and replace the file with ``os.replace``. A symlink is written through, to its target, and stays
    a symlink. Nothing is written when the bytes are unchanged, so a second run leaves even
    modification times alone.

    Raises :class:`SourceError`, with the file untouched and no temporary file left, when the new
    text holds a character the original encoding cannot represent, when the file changed on disk
    since it was read (an editor saved it meanwhile: its edits win; checked again, size,
    modification time, inode and content, after the temporary file is written and just before the
    rename), when :func:`write_refusal` refuses the file (not writable by this user, hard-linked,
    another user's), or when writing fails, the temporary file's creation included (a read-only
    directory, a full disk). See docs/safety.md.
    """
    data = encode_source(path, new_text, original)
    if data == original.raw:
        return

    target = os.path.realpath(path)
    try:
        status = os.stat(target)
    except OSError as error:
        raise SourceError(path, f"cannot write: {error.strerror or error}") from error
    current = _read_for_write(path, target)
    if current != original.raw:
        raise SourceError(path, "the file changed on disk since it was read; not overwritten")
    refusal = write_refusal(status, euid=_euid(), can_write=_can_write(target))
    if refusal:
        raise SourceError(path, refusal)

    directory, name = os.path.split(target)
    remove_stale_temporaries(directory)
    try:
        descriptor, temporary = tempfile.mkstemp(
            prefix=f".{name}.{os.getpid()}.", suffix=TEMPORARY_SUFFIX, dir=directory
        )
    except OSError as error:
        raise SourceError(
            path, f"cannot write: cannot create a temporary file in {directory}: {error.strerror or error}"
        ) from error
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, stat.S_IMODE(status.st_mode))
        _copy_owner(temporary, status)
        # The last look before the rename: what an editor saved while the temporary file was
        # written must not be replaced. What is left is the instant between here and os.replace.
        _check_unchanged(path, target, status, original.raw)
        os.replace(temporary, target)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(error, OSError):
            raise SourceError(path, f"cannot write: {error.strerror or error}") from error
        raise


def _read_for_write(path: str | os.PathLike[str], target: str) -> bytes:
    try:
        return read_bytes(target)
    except SourceError as error:
        raise SourceError(path, error.message.replace("cannot read", "cannot write", 1)) from error


def _check_unchanged(path, target: str, before: os.stat_result, raw: bytes) -> None:
    """Raise unless ``target`` is still the file ``before`` describes, holding ``raw``."""
    try:
        now = os.stat(target)
    except OSError as error:
        raise SourceError(path, f"cannot write: {error.strerror or error}") from error
    same = (now.st_dev, now.st_ino, now.st_size, now.st_mtime_ns) == (
        before.st_dev,
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )
    if not same or _read_for_write(path, target) != raw:
        raise SourceError(path, "the file changed on disk while it was being written; not overwritten")


def write_refusal(status: os.stat_result, *, euid: int | None, can_write: bool) -> str | None:
    """Why the file ``status`` describes must not be replaced, or None.

    - Not writable by this user (``os.access``), or read-only for everyone (mode ``0444``: even
      root, whom the kernel lets write it, leaves it, since the mode says "do not edit").
      Replacing the file needs only a writable directory, which is no permission to change it.
    - Hard-linked (more than one name): a new file in its place would leave the other names with
      the old text, splitting one file into two. Refused, rather than rewritten in place, which
      would not be atomic (a kill midway would leave half a file).
    - Another user's, when this user (not root) cannot give the new file its owner back: it
      would become ours.

    ``euid`` is the effective user id (None where there are no user ids, Windows).
    """
    mode = stat.S_IMODE(status.st_mode)
    if not can_write or not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        return f"not writable (mode {mode:04o}, owner uid {status.st_uid}); not rewritten"
    if status.st_nlink > 1:
        return (
            f"has {status.st_nlink} hard links; replacing it would split them (the other names would"
            " keep the old text); not rewritten: migrate a copy, or break the link first"
        )
    if euid is not None and euid != 0 and status.st_uid != euid:
        return (
            f"owned by another user (uid {status.st_uid}); replacing it would make it yours;"
            " not rewritten"
        )
    return None


def _euid() -> int | None:
    return os.geteuid() if hasattr(os, "geteuid") else None


def _can_write(path: str) -> bool:
    if os.access in os.supports_effective_ids:
        return os.access(path, os.W_OK, effective_ids=True)
    return os.access(path, os.W_OK)


def remove_stale_temporaries(directory: str) -> list[str]:
    """Remove the temporary files a killed run left in ``directory``, once per directory and
    process; the names removed. Only files named as :func:`write_source` names them, regular,
    older than this run, whose writer (the process id in the name) is gone: a run still going,
    here or in another terminal, keeps its own. Failures are ignored (the next run tries again)."""
    directory = os.path.abspath(directory)
    if directory in _swept or os.name == "nt":  # no cheap, harmless liveness test on Windows
        return []
    _swept.add(directory)
    removed = []
    try:
        with os.scandir(directory) as entries:
            candidates = [e for e in entries if e.name.endswith(TEMPORARY_SUFFIX)]
    except OSError:
        return []
    for entry in candidates:
        match = _TEMPORARY_NAME.match(entry.name)
        if match is None or int(match["pid"]) == os.getpid() or _process_alive(int(match["pid"])):
            continue
        with contextlib.suppress(OSError):
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(info.st_mode) and info.st_mtime < _STARTED:
                os.unlink(entry.path)
                removed.append(entry.name)
    return removed


def _process_alive(pid: int) -> bool:
    """Is there a process ``pid`` (signal 0 tests without sending anything)?"""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, another user's
    return True


def _copy_owner(path: str, status: os.stat_result) -> None:
    """Give ``path`` the original's owner and group: a run as root must not take users' files.

    Only root can do it (or a group member, for the group); otherwise the new file is ours already.
    """
    if not hasattr(os, "chown"):
        return
    mine = os.stat(path)
    if (mine.st_uid, mine.st_gid) != (status.st_uid, status.st_gid):
        with contextlib.suppress(PermissionError):
            os.chown(path, status.st_uid, status.st_gid)
