"""Configuration that is not ours to own: a formatter's line length, and the command line's
``--config`` values (ruff's: a configuration file, or inline ``KEY = VALUE`` settings).

Standard library only: on the pre-commit path, as :mod:`ndd_migrate.io.config` is.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path


class ConfigArgumentError(ValueError):
    """A ``--config`` value that is neither a file nor a ``KEY = VALUE`` setting."""


def config_arguments(values: list[str] | None) -> tuple[Path | None, dict]:
    """The ``--config`` values, as ruff reads them: each is an existing file (one at most, used
    instead of discovery) or a TOML ``KEY = VALUE`` pair (``line-length = 100``, ``select =
    ["NDD2"]``); the pairs merged into one table, a later one winning. Raises
    :class:`ConfigArgumentError` saying which value and why."""
    path: Path | None = None
    table: dict = {}
    for value in values or ():
        if os.path.isfile(value) or ("=" not in value and value.endswith(".toml")):
            if path is not None:
                raise ConfigArgumentError(f"--config {value}: one configuration file at most (already {path})")
            path = Path(value)
            continue
        try:
            pair = tomllib.loads(value)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigArgumentError(
                f"--config {value!r}: neither a file nor a TOML `KEY = VALUE` setting ({exc}); "
                "e.g. --config 'line-length = 100' or --config \"select = ['NDD2']\""
            ) from None
        if len(pair) != 1:
            raise ConfigArgumentError(f"--config {value!r}: one `KEY = VALUE` setting per --config")
        key = next(iter(pair))
        if isinstance(pair[key], dict) and key != "per-file-ignores":
            inner = next(iter(pair[key]), "KEY")
            raise ConfigArgumentError(
                f"--config {value!r}: the keys are those of [tool.ndd-migrate], with no table above them "
                f"(ruff's `lint.select` is our `select`): write {inner!r} alone"
            )
        table.update(pair)
    return path, table


def formatter_line_length(directory: str | os.PathLike) -> int | None:
    """The line length the project's formatter uses for files in ``directory``: in the nearest
    directory at or above it that configures one, ``line-length`` of ``.ruff.toml`` or
    ``ruff.toml`` (in ruff's order of precedence), else of ``[tool.ruff]`` or ``[tool.black]`` in
    ``pyproject.toml``; None when that configuration does not set it (the formatter's default) or
    there is none. A file that cannot be read or parsed is passed over (it is not ours to report)."""
    current = os.path.abspath(directory)
    while True:
        for name, tables in (
            (".ruff.toml", ((),)),
            ("ruff.toml", ((),)),
            ("pyproject.toml", (("tool", "ruff"), ("tool", "black"))),
        ):
            candidate = os.path.join(current, name)
            if not os.path.isfile(candidate):
                continue
            try:
                with open(candidate, "rb") as handle:
                    data = tomllib.load(handle)
            except (OSError, tomllib.TOMLDecodeError):
                continue
            configured = False
            for keys in tables:
                table = data
                for key in keys:
                    table = table.get(key) if isinstance(table, dict) else None
                if not isinstance(table, dict):
                    continue
                configured = True
                value = table.get("line-length")
                if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                    return value
            if configured:
                return None  # the formatter is configured here, with its default length
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent
