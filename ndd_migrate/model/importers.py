"""Files of the project that the run was not given, importing a pipeline the run would convert.

pre-commit passes only the staged files: ``pkg/pipes.py`` is staged, ``main.py``, which does
``from pkg.pipes import train_pipe`` and then ``pipe.build()``, is not. Converting ``train_pipe``
would break ``main.py`` while ``migrate`` exits 0. So before it converts a top-level pipeline, a
run (``migrate``, and ``check``, which reports what ``migrate`` would do) looks through the project the defining file belongs to (up to the directory holding
``pyproject.toml``, ``setup.py``, ``setup.cfg`` or ``.git``) for other files that import it by name;
each one found keeps that pipeline in pipeline mode, with a finding naming the file (crossfile's
:attr:`Policy.kept_pipelines`). Giving both files to one run migrates both.

A byte search over the project's ``.py`` files (the folders of virtual environments, builds and
caches left out), read only when they name the module; standard library only.
"""

from __future__ import annotations

import os
import re

from ndd_migrate.io.diagnostics import FileResult
from ndd_migrate.model.crossfile import PROJECT_MARKERS, imported_modules, module_names

#: Folders that hold no project code: version control, caches, builds, environments.
SKIPPED = frozenset(
    {".git", ".hg", ".svn", "__pycache__", ".tox", ".nox", ".venv", "venv", "env", "node_modules", "build", "dist"}
)
#: Files looked at per project at most: a run inside a huge tree does not read all of it.
MAX_FILES = 20_000
#: Larger files are not read (generated code, data).
MAX_BYTES = 2_000_000


def outside_importers(results: list[FileResult], run_paths) -> dict[str, str]:
    """``module.name`` → why it is kept, for each top-level pipeline a result converts that a
    project file outside the run imports by name."""
    converting: dict[str, list[str]] = {}
    for result in results:
        names = [name for name, converted in result.pipelines.items() if converted] if not result.error else []
        if names:
            converting[os.path.realpath(result.path)] = names
    if not converting:
        return {}
    in_run = {os.path.realpath(os.fspath(p)) for p in run_paths}
    found: dict[str, str] = {}
    for root, defining in _by_project(converting).items():
        wanted = {module: path for path in defining for module in module_names(path)}
        for candidate in _project_files(root):
            if candidate in in_run:
                continue
            for module, name in _imports(candidate, wanted, converting):
                found.setdefault(
                    f"{module}.{name}",
                    f"{_shown(candidate)} imports it, and this run does not migrate that file (give both to one run)",
                )
    return found


def _by_project(converting: dict[str, list[str]]) -> dict[str, list[str]]:
    """The defining files grouped by their project's root (files outside any project are left out:
    nothing bounds the search)."""
    out: dict[str, list[str]] = {}
    for path in converting:
        root = _project_root(os.path.dirname(path))
        if root is not None:
            out.setdefault(root, []).append(path)
    return out


def _project_root(directory: str) -> str | None:
    current = directory
    while True:
        if any(os.path.exists(os.path.join(current, marker)) for marker in PROJECT_MARKERS):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _project_files(root: str):
    """The ``.py`` files under ``root`` (real paths), at most :data:`MAX_FILES`."""
    seen = 0
    for directory, folders, files in os.walk(root):
        folders[:] = [f for f in folders if f not in SKIPPED and not f.startswith(".")]
        for name in files:
            if name.endswith(".py"):
                seen += 1
                if seen > MAX_FILES:
                    return
                yield os.path.realpath(os.path.join(directory, name))


def _imports(path: str, wanted: dict[str, str], converting: dict[str, list[str]]):
    """``(module, name)`` for each converted pipeline ``path`` imports by name (``from m import
    name``), or through its module (``import m`` / ``from pkg import m`` and ``m.name`` in the text)."""
    try:
        if os.path.getsize(path) > MAX_BYTES:
            return
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError:
        return
    if not any(module.rpartition(".")[2].encode() in raw for module in wanted):
        return
    for level, module, names in imported_modules(raw):
        if level:
            continue  # relative: inside a package the run was given, or not this module
        for candidate, defining in wanted.items():
            # `import pkg.pipes` (then `pipes.train_pipe`), `from pkg import pipes`, `from pkg.pipes import x`
            through = (candidate == module and not names) or any(f"{module}.{n}" == candidate for n in names)
            for name in converting[defining]:
                # through the module, under whatever alias: the name is read as an attribute
                spelled = re.search(rb"\.\s*" + name.encode() + rb"\b", raw) is not None
                if (candidate == module and name in names) or (through and spelled):
                    yield candidate, name


def _shown(path: str) -> str:
    """``path`` relative to the current directory when it is below it."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative
