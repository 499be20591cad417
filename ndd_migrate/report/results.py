"""What a command shows or writes once a run is over: the diffs (on stdout's buffer, byte for byte as
the files would be written), the files replaced atomically, the support modules."""

from __future__ import annotations


def print_diff(result) -> None:
    """Print the diff of the bytes ``migrate`` would write (the file's encoding and BOM, its tabs
    and newlines) straight to stdout's buffer: a text stream, or rich, would alter them, and the
    patch would no longer apply. A text the file's encoding cannot hold fails as writing would.
    On a terminal (and not with ``NO_COLOR``) the lines are coloured."""
    import sys

    from ndd_migrate.io import files, writing
    from ndd_migrate.io.diagnostics import FileError
    from ndd_migrate.report.summary import unified_diff

    try:
        current = files.read_source(result.path)
        old = writing.encode_source(result.path, result.old_source, current)
        new = writing.encode_source(result.path, result.new_source, current)
    except files.SourceError as exc:
        result.error = FileError(result.path, exc.message, exc.line)
        result.changed = False
        return
    sys.stdout.flush()
    sys.stdout.buffer.write(colour_diff(unified_diff(result.path, old, new)))
    sys.stdout.buffer.flush()


def colour_diff(data: bytes) -> bytes:
    from ndd_migrate.report.colour import colour_diff as coloured
    from ndd_migrate.report.colour import use_colour

    return coloured(data) if use_colour() else data


def write(result, summary) -> None:
    """Replace the file atomically, unless it changed on disk since it was read."""
    from ndd_migrate.io import files, writing
    from ndd_migrate.io.diagnostics import FileError

    try:
        current = files.read_source(result.path)
        if not _same_text(current.text, result):
            raise files.SourceError(result.path, "changed on disk during the run; left as it is")
        writing.write_source(result.path, result.new_source, current)
    except files.SourceError as exc:
        result.error = FileError(result.path, exc.message, exc.line)
        result.changed = False


def support_modules(summary, *, diff: bool, write: bool) -> None:
    """The support modules the changed files import (:mod:`ndd_migrate.app.support_files`): their
    diffs printed, or written before any module that imports them."""
    import os
    import sys

    from ndd_migrate.app import support_files
    from ndd_migrate.report.summary import unified_diff

    for support in list(summary.support):
        if not support.changes or (write and not support_files.keep_writable_importers(summary, support)):
            continue
        shown = os.path.relpath(support.path) if support.path.startswith(os.getcwd() + os.sep) else support.path
        if diff:
            old = (support.old or "").encode("utf-8")
            sys.stdout.buffer.write(colour_diff(unified_diff(shown, old, support.new.encode("utf-8"))))
            sys.stdout.buffer.flush()
        if write:
            support_files.write(summary, support)


def _same_text(text: str, result) -> bool:
    return text == result.old_source


def fixed_stdin(result, raw: bytes, original, diff_name: str | None = None) -> None:
    """The fixed text of standard input on stdout (the input when nothing was fixed); with
    ``diff_name``, the diff from the input to it instead, under that name."""
    import sys

    from ndd_migrate.io import files, writing
    from ndd_migrate.report.summary import unified_diff

    out = raw
    if result.changed and not result.error and original is not None:
        try:
            out = writing.encode_source(result.path, result.new_source, original)
        except files.SourceError:
            out = raw
    if diff_name is not None:
        out = colour_diff(unified_diff(diff_name, raw, out)) if out is not raw else b""
    sys.stdout.buffer.write(out)
    sys.stdout.buffer.flush()
