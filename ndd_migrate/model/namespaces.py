"""How a module in a folder without ``__init__.py`` is imported: the import of its support module.

``util/dali.py`` (no ``util/__init__.py``) may be imported as ``util.dali`` (``util`` is a namespace
package; the folder above it is on ``sys.path``) or run as ``python util/dali.py`` (``util`` itself
is on ``sys.path``), and often both: ``train.py`` does ``from util.dali import get_loader`` and the
module ends with an ``if __name__ == "__main__":`` self-test. Its support module is written beside
it (:func:`ndd_migrate.support.location`); ``from ndd_support import ...`` only works in the second
case, and a migrated module written so broke ``train.py`` with ``ModuleNotFoundError`` while
``migrate`` exited 0. So the run looks at how the project imports each such module:

* imported as a member of its folder only (``import util.dali``, ``from util import dali``, ``from
  .dali import x`` beside it): :data:`RELATIVE`, ``from .ndd_support import ...``;
* also run as a script (a ``__main__`` block) or imported by its bare name (from its own folder,
  or from a file that changes ``sys.path``):
  :data:`EITHER`, the relative import with the absolute one as its fallback (the usual idiom of a
  module used both ways);
* otherwise (a script, a module imported by its bare name, or one nobody imports): the plain
  ``from ndd_support import ...``.

A byte search over import lines, over the files :func:`ndd_migrate.model.importers.candidates`
gives every scan for importers: the run's, and the other files of the module's project (its own
folder outside any project; pre-commit passes only the staged files).
Standard library only.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from ndd_migrate.model import importers
from ndd_migrate.model.crossfile import import_test, imported_modules, module_names

RELATIVE = "relative"
EITHER = "either"


def support_imports(
    paths: Iterable[str],
    run_paths: Iterable[str],
    lines: Callable[[str], bytes | None],
    read: Callable[[str], bytes | None],
) -> dict[str, str]:
    """Absolute path → :data:`RELATIVE` or :data:`EITHER`, for the modules among ``paths`` (the run's
    files that may be migrated) that live in a folder without ``__init__.py`` and that a file of the
    run (its import lines from ``lines``) or of their project imports as a member of that folder;
    ``read`` gives a module's bytes (is it run as a script?)."""
    given = {os.path.realpath(p): os.path.abspath(p) for p in paths if _in_plain_folder(p)}
    members = {path: _member_names(path) for path in given}
    members = {path: names for path, names in members.items() if names}
    if not members:
        return {}
    wanted = {name: path for path, names in members.items() for name in names}
    looks = import_test({_stem(path) for path in members})
    by_name: dict[str, set[str]] = {}  # module path -> how it is imported: "member" / "bare"
    stems: dict[str, list[str]] = {}
    for path in members:
        stems.setdefault(_stem(path), []).append(path)
    for importer, raw in importers.candidates(run_paths, members, importers.RunBytes(lines, read), looks):
        moves_path = b"sys.path" in raw
        for path, how in _imports_of(importer, raw, wanted, stems if moves_path else None, members):
            by_name.setdefault(given[path], set()).add(how)
    found = {}
    for path, hows in by_name.items():
        if "member" in hows:
            found[path] = EITHER if "bare" in hows or _runs_as_script(read(path)) else RELATIVE
    return found


def _stem(path: str) -> str:
    """The module name of a file (``util/dali.py`` → ``dali``)."""
    return os.path.splitext(os.path.basename(path))[0]


def _in_plain_folder(path: str) -> bool:
    """Is ``path`` a module in a folder without ``__init__.py`` (and not a package's ``__init__``)?"""
    directory = os.path.dirname(os.path.abspath(path))
    return path.endswith(".py") and not os.path.isfile(os.path.join(directory, "__init__.py"))


def _member_names(path: str) -> list[str]:
    """The dotted names ``path`` is imported as when its folder is a namespace package (``util.dali``,
    ``repo.util.dali``, ...): :func:`module_names` of two parts or more."""
    return [name for name in module_names(path) if "." in name]


def _imports_of(importer: str, raw: bytes, wanted: dict[str, str], stems, members: dict[str, list[str]]):
    """``(module path, "member" | "bare")`` for each module of ``members`` that ``importer`` imports:
    by a dotted name of ``wanted``, relatively from its own folder, or by its bare name from there;
    ``stems`` (bare name → module paths) when ``importer`` changes ``sys.path``
    (``sys.path.append("util")``): by its bare name from anywhere."""
    folder = os.path.dirname(importer)
    for level, module, names in imported_modules(raw):
        if level == 1:  # `from .dali import x`, `from . import dali` beside the module
            for name in [module] if module else names:
                path = os.path.join(folder, name.partition(".")[0] + ".py")
                if path in members and path != importer:
                    yield path, "member"
            continue
        if level:
            continue
        for dotted in (module, *(f"{module}.{n}" for n in names)):
            path = wanted.get(dotted)
            if path is not None and path != importer:
                yield path, "member"
        if "." not in module:  # `import loader` beside it, or anywhere after a `sys.path` change
            for path in stems.get(module, ()) if stems is not None else [os.path.join(folder, module + ".py")]:
                if path in members and path != importer:
                    yield path, "bare"


def _runs_as_script(raw: bytes | None) -> bool:
    """Does the module have an ``if __name__ == "__main__":`` block (a byte search)?"""
    return raw is not None and b"__main__" in raw
