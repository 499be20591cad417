"""Writing a file back: in the encoding it was read in, atomically, and never over edits made
since it was read or a file this user must not replace (see docs/safety.md).

Standard library only, like the rest of ``ndd_migrate.io``'s file handling.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import re
import stat
import tempfile

from ndd_migrate.io import files
from ndd_migrate.io.files import SourceError, SourceText, line_at, read_bytes
from ndd_migrate.io.newlines import LINE_BREAK


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
            line_at(LINE_BREAK, text, error.start),
        ) from error
    return codecs.BOM_UTF8 + data if original.bom else data


#: The temporary file's name: ``.NAME.PID.XXXXXXXX.ndd-tmp``, beside the file it replaces. The
#: writer's process id in it lets a later run tell a temporary file left by a killed run (its
#: process is gone) from one that a run still going is writing.
TEMPORARY_SUFFIX = ".ndd-tmp"
_TEMPORARY_NAME = re.compile(r"\.(?P<name>.+)\.(?P<pid>\d+)\.[a-z0-9_]{8}" + re.escape(TEMPORARY_SUFFIX) + r"\Z")
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


def create_source(path: str | os.PathLike[str], text: str) -> None:
    """Create the file ``path`` with ``text`` (UTF-8), atomically and never over a file that is there:
    the bytes go to a temporary file in the same directory, fsynced, which is then linked to
    ``path`` (``os.link`` fails when it exists). Raises :class:`SourceError`, leaving nothing behind."""
    directory, name = os.path.split(os.path.abspath(path))
    try:
        descriptor, temporary = tempfile.mkstemp(
            prefix=f".{name}.{os.getpid()}.", suffix=TEMPORARY_SUFFIX, dir=directory
        )
    except OSError as error:
        raise SourceError(path, f"cannot write: {error.strerror or error}") from error
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(text.encode("utf-8"))
            stream.flush()
            os.fsync(stream.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.link(temporary, path)
    except FileExistsError as error:
        raise SourceError(path, "created by someone else during the run; left as it is") from error
    except OSError as error:
        raise SourceError(path, f"cannot write: {error.strerror or error}") from error
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


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
        return f"owned by another user (uid {status.st_uid}); replacing it would make it yours; not rewritten"
    return None


def refusal(path: str | os.PathLike[str]) -> str | None:
    """Why :func:`write_source` would refuse to replace the file at ``path`` (:func:`write_refusal`),
    asked before anything is written; None when it would not, or the file cannot be looked at (the
    write then says why)."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return write_refusal(status, euid=_euid(), can_write=_can_write(os.fspath(path)))


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
            if stat.S_ISREG(info.st_mode) and info.st_mtime < files.STARTED:
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
