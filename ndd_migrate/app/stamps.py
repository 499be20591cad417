"""What the results cache knows of each file of a run without reading it: its ``os.stat`` stamp
and the facts the run draws from its bytes (ruff's cache decides a hit the same way).

A warm ``check`` over an unchanged tree used to read and search all of it (10,000 files, 105 MB:
about half of its time). Here each file is only ``stat``-ed: when its size, modification and
change times, inode and device are those recorded, the facts recorded with them are the file's
(whether it mentions DALI, its imports, the digest of its bytes that results are stored under),
and it is not read. When the stamp differs, the file is read and its facts drawn again, so a ``touch``
costs a read but no check (the digest, hence the stored result, is the same), and an edit is
always seen: it changes the size or the modification time.

Except within one tick of the file system's clock: a file written twice in the same tick keeps
its stamp. As git does with "racily clean" entries, a stamp no older than :data:`RACY_NS` when it
was recorded is not trusted: the next run reads the file again (and trusts it then, when it is
old enough).

The index is one file per cache, tool and working directory (paths are kept as the run was
given them), written atomically at the end of a run that learnt something; a run reading it while
another writes sees the old index or the new one, and an index that cannot be read is empty.
Standard library only.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import stat
import tempfile
import time
from pathlib import Path

#: A stamp recorded less than this after the file's last change is checked again by the next run.
RACY_NS = 2_000_000_000


def write_atomic(target: Path, data: bytes) -> None:
    """``data`` into ``target`` through a temporary file renamed into place: a reader sees the
    whole file or the one before. Raises ``OSError``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name[:16]}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def digest(raw: bytes) -> str:
    """The digest of a file's bytes that its results are stored under."""
    return hashlib.sha256(raw).hexdigest()


class FileIndex:
    """Stamps and facts by path, read from ``path`` (missing or unreadable: empty)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._now = time.time_ns()
        try:
            entries = marshal.loads(path.read_bytes())
            if not isinstance(entries, dict):
                raise ValueError(path)
        except (OSError, ValueError, EOFError, TypeError):
            entries = {}
        self._entries: dict[str, tuple] = entries
        self._changed = False

    def lookup(self, path: str) -> tuple[tuple | None, tuple | None]:
        """``(stamp, facts)``: the file's stamp now (None when it cannot be ``stat``-ed or is not
        a regular file: reading it will say why), and the facts recorded under that stamp, when
        it is trusted (else None: read the file). Trusted facts are recorded already: there is
        nothing to :meth:`record` for them."""
        try:
            status = os.stat(path)
        except (OSError, ValueError):
            return None, None
        if not stat.S_ISREG(status.st_mode):
            return None, None
        stamp = (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino, status.st_dev)
        entry = self._entries.get(path)
        if entry is not None and entry[0] == stamp and entry[1]:
            return stamp, entry[2]
        return stamp, None

    def record(self, path: str, stamp: tuple, facts: tuple) -> None:
        """Keep ``facts`` for ``path`` under ``stamp`` (trusted unless the file changed within
        :data:`RACY_NS` of now)."""
        trusted = max(stamp[1], stamp[2]) < self._now - RACY_NS
        entry = (stamp, trusted, facts)
        if self._entries.get(path) != entry:
            self._entries[path] = entry
            self._changed = True

    def save(self) -> None:
        """Write the index when this run changed it; one that cannot be written is no error."""
        if not self._changed:
            return
        try:
            write_atomic(self.path, marshal.dumps(self._entries))
        except (OSError, ValueError):
            pass
        self._changed = False
