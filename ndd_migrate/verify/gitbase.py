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
    """The text of ``path`` at revision ``rev`` (checked first by :func:`resolve_revision`)."""
    git = shutil.which("git")
    if git is None:
        raise SetupError("git", "--base needs git, which is not on PATH")
    path = os.path.abspath(path)
    directory, name = os.path.split(path)
    if not os.path.isdir(directory):
        raise SetupError("missing-file", f"no such directory: {directory}")
    commit = resolve_revision(git, directory, rev)
    proc = _git(git, directory, ["show", f"{commit}:./{name}"], f"git show {rev}:{name}")
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


def resolve_revision(git: str, directory: str, rev: str) -> str:
    """The commit id ``rev`` names, in the repository of ``directory``; :class:`SetupError` when it
    names none. ``rev`` comes from the command line and goes to git: a value starting with ``-``
    would be an option (``--output=PATH`` makes ``git show`` write a file), so it is refused, and
    git is asked only ``rev-parse --verify --end-of-options REV^{commit}``, which reads nothing
    but the repository. Only the full commit id it prints is passed on."""
    if not rev or rev.startswith("-") or any(c in rev for c in "\0\n\r"):
        raise SetupError("usage", f"--base {rev!r} is not a revision (a revision cannot start with '-')")
    proc = _git(
        git,
        directory,
        ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"],
        f"git rev-parse {rev}",
    )
    commit = proc.stdout.decode("ascii", "replace").strip()
    if proc.returncode != 0 or not commit or not all(c in "0123456789abcdef" for c in commit):
        message = proc.stderr.decode("utf-8", "replace").strip()
        raise SetupError("git", f"--base {rev!r} names no commit" + (f": {message}" if message else ""))
    return commit


def _git(git: str, directory: str, arguments: list[str], what: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run([git, "-C", directory, *arguments], capture_output=True, timeout=60, check=False)
    except subprocess.TimeoutExpired:
        raise SetupError("git", f"{what} timed out") from None
