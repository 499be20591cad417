"""``check --show-settings``: the settings that govern a file, as the run resolves them (ruff's
``--show-settings``): which configuration, which rules are on, what is left out, where the cache
goes, the line length and the formatter."""

from __future__ import annotations

import os
from pathlib import Path


def render(conf, path: str | os.PathLike, codes: list[str], cache_dir: Path) -> str:
    """The settings ``conf`` (a :class:`~ndd_migrate.io.config.Configuration`) gives ``path``;
    ``codes`` are the catalogue's rule codes, ``cache_dir`` where ``check`` keeps its results."""
    settings = conf.for_path(path)
    probe = str(Path(path, "x.py")) if os.path.isdir(path) else str(path)
    enabled = [code for code in codes if settings.is_enabled(code, probe)]
    rows = [
        ("file", str(path)),
        ("configuration", str(settings.path) if settings.path else "none (defaults and the command line)"),
        ("root", str(settings.root)),
        ("rules on", f"{len(enabled)} of {len(codes)}: " + ", ".join(enabled)),
        ("rules off", ", ".join(code for code in codes if code not in enabled) or "none"),
        ("exclude", ", ".join(glob.pattern for glob in settings.exclude) or "none"),
        (
            "per-file-ignores",
            "; ".join(f"{glob.pattern}: {', '.join(found)}" for glob, found in settings.per_file_ignores) or "none",
        ),
        ("respect-gitignore", str(settings.respect_gitignore).lower()),
        ("include-generated", str(settings.include_generated).lower()),
        ("cache-dir", str(cache_dir)),
        ("line-length", str(conf.line_length(probe))),
        ("format", f"{str(settings.format).lower()} ({' '.join(settings.formatter)})"),
        ("support-module", settings.support_module or "ndd_support.py in the migrated module's package"),
    ]
    width = max(len(key) for key, _ in rows)
    return "".join(f"{key:<{width}}  {value}\n" for key, value in rows)
