"""The one support module of a migrated project: where it goes, what it says, when it is rewritten.

What a migrated program needs beyond DALI (``ndd_support.py`` beside this file: the seed a pipeline
gave its reader, the epochs of a DALI iterator) is written once per project and imported by the
migrated modules, instead of pasted into each. Where: the configured ``support-module`` file, else
``ndd_support.py`` in the migrated module's top-level package (``pkg/ndd_support.py``, imported as
``pkg.ndd_support``), for a script the package beside it that it imports migrated pipelines from,
else beside the module (a script's folder is first on ``sys.path``).

The written file starts with a header naming the version that wrote it and a digest of the rest: a
later run rewrites a file that is as written (a newer version may differ) and leaves an edited one
alone, or refuses the modules that need a function the edited file no longer defines.

Standard library only: the run decides what to write after the engine, on the pre-commit path.
"""

from __future__ import annotations

import ast
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from ndd_migrate import __version__

FILE_NAME = "ndd_support.py"
STEM = "ndd_support"
#: The functions of ``ndd_support.py`` the rules call (the test of this package checks each is there).
OP_SEED = "dali_op_seed"
EXTERNAL_SOURCE = "dali_external_source"
EPOCHS = "dali_iterator_epochs"
EPOCHS_MANY = "dali_iterator_epochs_many"
SIZED_EPOCHS = "dali_iterator_sized_epochs"
SOURCE_EPOCHS = "dali_iterator_source_epochs"
PREFETCHING = "prefetching"
CONSTANT = "dali_constant"
TO_GPU_WITH = "to_gpu_with"
#: DALI's framework iterators over migrated pipelines (ndd_migrate.model.features.iterators.SUPPORT_CLASSES).
ITERATORS = (
    "DALIGenericIterator",
    "DALIClassificationIterator",
    "DALIJaxGenericIterator",
    "DALIPaddleGenericIterator",
    "DALIPaddleClassificationIterator",
)
TEMPLATE = Path(__file__).parent / "template" / FILE_NAME  # the module as written, less its header
_DIGEST = "# ndd-migrate-sha256: "
_HEADER = (
    "# Written by ndd-migrate {version} for the modules it migrated to DALI's dynamic mode.\n"
    "# Yours to edit; ndd-migrate updates it only while it is as written (digest below).\n"
)


def location(
    module_path: str, configured: str | None = None, via: tuple[str, ...] = (), member: bool = False
) -> tuple[str, str]:
    """``(file, import name)`` of the support module for the migrated module at ``module_path``:
    ``configured`` (an absolute path) when given, else ``ndd_support.py`` in the module's top-level
    package; for a module in no package (a script), in the first package beside it that it imports
    migrated code from (``via``: dotted names, ``pkg.pipes.train_pipe``), whose modules import
    theirs from there: one support module for the script and the package, not a copy beside
    each; else beside the module. A ``member`` of a namespace package (a folder without
    ``__init__.py`` that others import it from: :mod:`ndd_migrate.model.namespaces`) imports the
    one beside it relatively (``.ndd_support``)."""
    if configured:
        path = os.path.abspath(configured)
        return path, _import_name(path)
    directory = os.path.dirname(os.path.abspath(module_path))
    if member:
        return os.path.join(directory, FILE_NAME), "." + STEM
    if not os.path.isfile(os.path.join(directory, "__init__.py")):
        for name in via:
            top = name.split(".")[0]
            if top and os.path.isfile(os.path.join(directory, top, "__init__.py")):
                path = os.path.join(directory, top, FILE_NAME)
                return path, _import_name(path)
    top = directory
    while os.path.isfile(os.path.join(top, "__init__.py")):
        parent = os.path.dirname(top)
        if parent == top or not os.path.isfile(os.path.join(parent, "__init__.py")):
            break
        top = parent
    path = os.path.join(top, FILE_NAME)
    return path, _import_name(path)


def imported_name(qualified: str) -> str | None:
    """The name of the support module that the qualified name of an import names (``ndd_support.X``,
    ``pkg.ndd_support.X``, ``.ndd_support.X``: a module migrated before imports it), or None."""
    module, _, name = qualified.rpartition(".")
    return name if module.rpartition(".")[2] == STEM else None


def import_statement(module: str, names: list[str], line_length: int, fallback: str | None = None) -> str:
    """``from <module> import <names>``, on one line when it fits ``line_length``, else one name per
    line as black and ruff format write it. With ``fallback`` (an absolute name of the same module),
    the import is tried first and ``fallback`` imported when it fails: the idiom of a module both
    imported from its namespace package and run as a script."""
    if fallback is None:
        return _from_import(module, names, line_length, "")
    return (
        f"try:\n{_from_import(module, names, line_length, '    ')}"
        "except ImportError:  # run as a script: its folder is on sys.path\n"
        f"{_from_import(fallback, names, line_length, '    ')}"
    )


def _from_import(module: str, names: list[str], line_length: int, indent: str) -> str:
    line = f"{indent}from {module} import {', '.join(names)}\n"
    if len(line) - 1 <= line_length:
        return line
    listed = "".join(f"{indent}    {name},\n" for name in names)
    return f"{indent}from {module} import (\n{listed}{indent})\n"


def _import_name(path: str) -> str:
    """The dotted name ``path`` imports as: its packages (folders with ``__init__.py``) up the tree."""
    parts = [os.path.splitext(os.path.basename(path))[0]]
    directory = os.path.dirname(path)
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        parts.insert(0, os.path.basename(directory))
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return ".".join(parts)


def names() -> frozenset[str]:
    """The functions and classes the support module offers (its private helpers left out)."""
    return frozenset(n for n in _defined(TEMPLATE.read_text(encoding="utf-8")) if not n.startswith("_"))


def text() -> str:
    """The support module as this version writes it: the header, then ``ndd_support.py``."""
    body = TEMPLATE.read_text(encoding="utf-8")
    return _HEADER.format(version=__version__) + _DIGEST + _digest(body) + "\n" + body


def _digest(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def _defined(source: str) -> set[str]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    return {s.name for s in tree.body if isinstance(s, (ast.FunctionDef, ast.ClassDef))}


@dataclass
class SupportFile:
    """What a run does to one support module: ``new`` is the text to write (None: nothing to
    write), ``old`` the text there now (None: no file); ``refused`` says why the modules in
    ``needed_by`` cannot be written."""

    path: str
    import_name: str
    needed: set[str] = field(default_factory=set)
    needed_by: list[str] = field(default_factory=list)
    old: str | None = None
    new: str | None = None
    refused: str | None = None

    @property
    def changes(self) -> bool:
        return self.new is not None and self.new != self.old


def plan(path: str, import_name: str, needed: set[str], needed_by: list[str]) -> SupportFile:
    """What to do with the support module at ``path``, which the modules ``needed_by`` import
    ``needed`` from: write it when it is missing, rewrite it when it is as some version wrote
    it and this one writes it otherwise, keep it when edited but defining every name needed,
    refuse otherwise."""
    found = SupportFile(path, import_name, set(needed), list(needed_by))
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            found.old = handle.read()
    except FileNotFoundError:
        found.new = text()
        return found
    except (OSError, UnicodeDecodeError) as exc:
        found.refused = f"{path}: cannot read the support module ({exc})"
        return found
    if as_written(found.old):
        found.new = text()
        return found
    missing = sorted(needed - _defined(found.old))
    if missing:
        what = "was edited since ndd-migrate wrote it" if _DIGEST in found.old else "was not written by ndd-migrate"
        found.refused = (
            f"{path} {what} and does not define {', '.join(missing)}: add "
            f"{'it' if len(missing) == 1 else 'them'}, or delete the file to have it written again"
        )
    return found


def as_written(source: str) -> bool:
    """Is ``source`` a support module exactly as some version of ndd-migrate wrote it?"""
    lines = source.split("\n", 3)
    if len(lines) < 4 or not lines[2].startswith(_DIGEST):
        return False
    return _digest(lines[3]) == lines[2][len(_DIGEST) :].strip()
