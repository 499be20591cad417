"""``verify --base REV PATH...``: compare each file with its own text at a git revision.

After ``ndd-migrate migrate`` rewrote files in place, the originals live only in git. The text is
read with the real ``git show REV:./relative/path`` (run in the file's directory, so ``./`` paths
resolve there and the repository root is found by git, not guessed), and then runs under the
file's real path (see :class:`~ndd_migrate.verify.model.SideSpec`): sibling imports and
``__file__``-relative data paths resolve as they did at that revision, as long as those files did
not move. Tracebacks name it ``path@REV``.
"""

from __future__ import annotations

import os
import shutil
import subprocess

from ndd_migrate.verify.errors import SetupError


def git_show(path: str, rev: str) -> str:
    """The text of ``path`` at revision ``rev``."""
    git = shutil.which("git")
    if git is None:
        raise SetupError("git", "--base needs git, which is not on PATH")
    path = os.path.abspath(path)
    directory, name = os.path.split(path)
    if not os.path.isdir(directory):
        raise SetupError("missing-file", f"no such directory: {directory}")
    try:
        proc = subprocess.run(
            [git, "-C", directory, "show", f"{rev}:./{name}"],
            capture_output=True,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        raise SetupError("git", f"git show {rev}:{name} timed out") from None
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip() or f"exit code {proc.returncode}"
        raise SetupError("git", f"cannot read {path} at {rev}: {message}")
    data = proc.stdout
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, UnicodeDecodeError) as e:
        raise SetupError("syntax", f"cannot decode {path} at {rev}: {e}") from None
