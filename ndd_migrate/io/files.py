"""Reading a file so that nothing is lost, and what its bytes say before it is parsed.

This module, like the others that find, rewrite and write files (discovery, newlines,
indentation, writing) and the two project modules they use (config, diagnostics), is standard
library only, on purpose: discovery (:mod:`ndd_migrate.io.discovery`) and the byte prefilter run
before ``libcst`` is imported (about 0.35 s), so that a pre-commit run over files that never
mention DALI costs little more than reading their bytes.

Reading keeps what an editor would keep: the PEP 263 encoding, a UTF-8 byte-order mark and the
newlines exactly as they are in the file (CRLF, lone CR, mixed). Writing
(:mod:`ndd_migrate.io.writing`) encodes back the same way and replaces the file atomically, so a
file is either the old bytes or the new ones, never a mix. Between the two the rules see ``\\n``
breaks (:mod:`ndd_migrate.io.newlines`) and indentation libcst can read
(:mod:`ndd_migrate.io.indentation`).
"""

from __future__ import annotations

import codecs
import io
import os
import re
import stat
import time
import tokenize
from dataclasses import dataclass

from ndd_migrate.io.diagnostics import FileError

_LINE_BREAK_BYTES = re.compile(rb"\r\n|\r|\n")
# PEP 263: a coding declaration is a comment on line 1 or 2 matching this expression.
_CODING_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
#: When this process started, near enough (this module is imported before any file is found, read
#: or written): stale temporary files (:func:`ndd_migrate.io.writing.remove_stale_temporaries`) are
#: older than the run.
STARTED = time.time()


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
                raise SourceError(path, f"bad encoding declaration: {error.msg}", _cookie_line(raw)) from error
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
            f"cannot decode byte 0x{raw[offset]:02x} as {encoding}" + _decode_advice(raw, encoding, bom, notebook),
            line_at(_LINE_BREAK_BYTES, raw, offset),
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


def line_at(pattern: re.Pattern, data, offset: int) -> int:
    """The 1-based line of ``data[offset]``, counting CRLF, CR and LF as Python does."""
    return len(pattern.findall(data, 0, offset)) + 1


def real_path(path: str, real_dirs: dict[str, str]) -> str:
    """``os.path.realpath(path)``, resolving each directory once (``real_dirs`` remembers them):
    for a file that is not itself a symlink that is the directory's real path plus its name, one
    ``lstat`` instead of one per path component, which adds up over thousands of files. The
    directory is taken as written (``os.path.abspath`` asks the system for the current directory
    at each call). A path with ``..`` in it is resolved whole (the link before a ``..`` is
    followed first), and so is one naming no file (``a/.``)."""
    directory, name = os.path.split(path)
    if ".." in path or name in ("", ".") or os.path.islink(path):
        return os.path.realpath(path)
    real_dir = real_dirs.get(directory)
    if real_dir is None:
        real_dir = real_dirs[directory] = os.path.realpath(directory)
    return os.path.join(real_dir, name)
