"""Which migrated loaders a CI run proves, and how: what the pytest plugin
(:mod:`.pytest_plugin`) collects one test for.

The loaders are, in this order of precedence:

* ``pairs = [["old/train.py", "train.py"], ...]`` in ``[tool.ndd-migrate.verify]``: an original and
  its migration, side by side;
* ``paths = ["loaders/train.py", ...]``: files migrated in place, each compared with its own text
  at ``base`` (``verify --base``);
* neither: every ``.py`` file changed against ``base`` (``git diff REV``) that imported DALI at
  ``base`` and imports dynamic mode now, so a pull request proves exactly the loaders it migrates.

``base`` comes from the command line (``--ndd-verify-base REV``) or the table. ``synthetic``
(default true: a CI machine rarely has the training data) generates the readers' data
(:mod:`.synthetic`); ``options`` are :func:`~ndd_migrate.verify.api.make_settings`'s (``epochs``,
``iterations``, ``device``, ``kwargs``, ``timeout``...) plus ``pipeline``, ``rtol``, ``atol``.
Stdlib only: the plugin imports this at collection, in every pytest run it is installed for.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TABLE = ("tool", "ndd-migrate", "verify")
KEYS = {"base", "paths", "pairs", "synthetic", "options"}
#: the options of a loader's check: make_settings' and verify_files' keywords
OPTIONS = {
    "args",
    "kwargs",
    "batch_size",
    "iterations",
    "epochs",
    "seed",
    "device",
    "device_id",
    "align_random",
    "align_order",
    "reader_seed",
    "capture",
    "load_mode",
    "timeout",
    "pipeline",
    "rtol",
    "atol",
}


class ConfigError(ValueError):
    """A ``[tool.ndd-migrate.verify]`` table or option the plugin cannot use: a usage error."""


@dataclass(frozen=True, order=True)
class Loader:
    """One migrated file: ``original`` beside it, or None for its own text at ``base``."""

    migrated: str
    original: str | None = None

    @property
    def name(self) -> str:
        return self.migrated if self.original is None else f"{self.original}->{self.migrated}"


@dataclass(frozen=True)
class CiConfig:
    base: str | None = None
    paths: tuple[str, ...] = ()
    pairs: tuple[tuple[str, str], ...] = ()
    synthetic: bool = True
    options: dict[str, Any] = field(default_factory=dict)


def read_table(root: Path) -> dict | None:
    """``[tool.ndd-migrate.verify]`` of ``root/pyproject.toml``; None when there is none."""
    path = root / "pyproject.toml"
    if not path.is_file():
        return None
    try:
        table: Any = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read {path}: {e}") from None
    for key in TABLE:
        if not isinstance(table, dict) or key not in table:
            return None
        table = table[key]
    if not isinstance(table, dict):
        raise ConfigError("[tool.ndd-migrate.verify] must be a table")
    return table


def make_config(table: dict | None, base: str | None = None) -> CiConfig:
    """The table checked, ``base`` (the command line's) over the table's."""
    table = dict(table or {})
    unknown = sorted(set(table) - KEYS)
    if unknown:
        raise ConfigError(f"[tool.ndd-migrate.verify]: unknown key(s) {', '.join(unknown)}; known: {sorted(KEYS)}")
    options = table.get("options", {})
    if not isinstance(options, dict) or set(options) - OPTIONS:
        raise ConfigError(f"[tool.ndd-migrate.verify] options: known options are {', '.join(sorted(OPTIONS))}")
    pairs = table.get("pairs", [])
    if not all(isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in pairs):
        raise ConfigError('[tool.ndd-migrate.verify] pairs: a list of ["original.py", "migrated.py"]')
    config = CiConfig(
        base=base or table.get("base"),
        paths=tuple(table.get("paths", ())),
        pairs=tuple((o, m) for o, m in pairs),
        synthetic=bool(table.get("synthetic", True)),
        options=options,
    )
    if not config.pairs and config.base is None:
        raise ConfigError("ndd-verify needs a base revision (--ndd-verify-base REV, or base = ...) or pairs = [...]")
    return config


def loaders(config: CiConfig, root: Path) -> list[Loader]:
    """The loaders to prove, sorted: every pytest-xdist worker must collect the same list."""
    if config.pairs:
        return sorted(Loader(m, o) for o, m in config.pairs)
    if config.paths:
        return sorted(Loader(p) for p in config.paths)
    return [Loader(p) for p in changed_loaders(config.base or "", root)]


def _git(root: Path, *arguments: str) -> str:
    git = shutil.which("git")
    if git is None:
        raise ConfigError("ndd-verify: git is not on PATH")
    proc = subprocess.run([git, "-C", str(root), *arguments], capture_output=True, text=True, check=False, timeout=60)
    if proc.returncode != 0:
        raise ConfigError(f"ndd-verify: git {' '.join(arguments)}: {proc.stderr.strip()}")
    return proc.stdout


def changed_loaders(base: str, root: Path) -> list[str]:
    """The ``.py`` files under ``root`` changed against ``base`` that imported DALI there and
    import dynamic mode now (paths relative to ``root``)."""
    from ndd_migrate.verify.errors import SetupError
    from ndd_migrate.verify.gitbase import git_show, resolve_revision

    try:
        commit = resolve_revision(shutil.which("git") or "git", str(root), base)
    except SetupError as e:
        raise ConfigError(f"ndd-verify: {e}") from None
    listed = _git(root, "diff", "--name-only", "-z", "--relative", "--diff-filter=M", commit, "--", "*.py")
    found = []
    for path in sorted(p for p in listed.split("\0") if p):
        text = (root / path).read_text(encoding="utf-8", errors="replace")
        if "experimental.dynamic" in text and "nvidia.dali" in git_show(str(root / path), commit):
            found.append(path)
    return found


def shard(items: list, spec: str) -> list:
    """The ``K``-th of ``N`` shards (``"K/N"``, 1-based) of ``items``: every ``N``-th one from
    the ``K``-th, so loaders of one folder spread over the shards."""
    try:
        k, n = (int(x) for x in spec.split("/"))
    except ValueError:
        raise ConfigError(f"--ndd-verify-shard {spec!r}: expected K/N, e.g. 2/4") from None
    if not 1 <= k <= n:
        raise ConfigError(f"--ndd-verify-shard {spec!r}: K must be between 1 and N")
    return items[k - 1 :: n]


def run(loader: Loader, config: CiConfig, root: Path) -> Any:
    """Verify one loader; the :class:`~ndd_migrate.verify.report.VerifyReport`."""
    from ndd_migrate.verify.api import verify_base, verify_files

    options = {**config.options, "synthetic": config.synthetic}
    if isinstance(options.get("args"), list):
        options["args"] = tuple(options["args"])
    migrated = os.path.join(root, loader.migrated)
    if loader.original is None:
        return verify_base(config.base or "", [migrated], **options)
    return verify_files(os.path.join(root, loader.original), migrated, **options)
