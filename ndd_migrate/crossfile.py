"""Pipelines defined in one module and run in another: the second pass of a run over many files.

``train.py`` defines ``@pipeline_def def train_pipe(...)``; ``main.py`` does
``from train import train_pipe``, ``pipe = train_pipe(...)``, ``pipe.build()``, ``pipe.run()``.
Migrating ``train.py`` turns ``train_pipe`` into a generator function, so ``main.py`` must change
too — but one file's rules only see that file.

So a run does this, cheaply:

1. every file goes through the engine once; each result carries the top-level pipeline functions
   and pipeline factories it defines, and whether each was migrated (:func:`exports`);
2. those become dotted names under every module path the file can be imported as
   (``pkg/train.py`` → ``train.train_pipe``, ``pkg.train.train_pipe``; :func:`imported_pipelines`);
3. only files with an import line that names a module exporting a migrated one go through the
   engine again, with these names in the :class:`~ndd_migrate.policy.Policy`; there, a call of an
   imported name that resolves to one of them is a pipeline (``Kind.PIPELINE``), so ``build()``/``run()`` are rewritten
   as in the defining module. A factory there that returns it is exported in turn: passes repeat
   until nothing new is found (a chain of imports is rarely longer than two).

A name claimed by two files with different answers (two ``train.py`` in different packages, one
migrated and one not) counts as not migrated: nothing is rewritten on a guess. Standard library
only; the engine is imported by the caller.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace

from ndd_migrate.diagnostics import FileResult
from ndd_migrate.policy import Policy

#: Passes over importing files after the first; each follows one more link of factory chains.
MAX_PASSES = 3


def exports(model) -> dict[str, bool]:
    """Top-level pipeline functions and pipeline factories of an analysed module → migrated?

    A pipeline migrated to the epoch-aware shape returns ``(metadata, batches)``, not a generator:
    it is left out, so that importing modules get NDD007's report rather than a wrong rewrite."""
    found: dict[str, bool] = {}
    for qual, fn in [*model.factories.items(), *model.pipelines.items()]:
        members = getattr(fn, "members", (fn,))
        if "." not in qual and not any(getattr(m, "epochs", False) for m in members):
            found[qual] = fn.convert
    return found


def module_names(path: str) -> list[str]:
    """The dotted names a file may be imported as: every suffix of its path (``a/b/c.py`` → ``c``,
    ``b.c``, ``a.b.c``; a package's ``__init__.py`` is the package)."""
    parts = os.path.normpath(os.path.abspath(path)).split(os.sep)
    stem = os.path.splitext(parts[-1])[0]
    parts = parts[1:-1] if stem == "__init__" else [*parts[1:-1], stem]
    return [".".join(parts[i:]) for i in range(len(parts) - 1, -1, -1) if _identifiers(parts[i:])]


def _identifiers(parts: list[str]) -> bool:
    return all(p.isidentifier() for p in parts)


def imported_pipelines(results: list[FileResult]) -> dict[str, bool]:
    """``module.name`` → migrated, for every exported name under every module name of its file."""
    out: dict[str, bool] = {}
    for result in results:
        if result.error or not result.pipelines:
            continue
        for module in module_names(result.path):
            for name, converted in result.pipelines.items():
                key = f"{module}.{name}"
                out[key] = out.get(key, converted) and converted
    return out


def lookup(imported: dict[str, bool], qualname: str) -> bool | None:
    """Whether an imported qualified name (``train.train_pipe``, ``.train.train_pipe`` for a
    relative import) is a migrated pipeline of this run; None when the run does not define it."""
    return imported.get(qualname.lstrip("."))


def imports_any(raw: bytes, modules: set[str]) -> bool:
    """Could this file import one of ``modules``? See :func:`import_test`, which is this test
    compiled once for many files."""
    return import_test(modules)(raw)


def import_test(modules: set[str]):
    """A byte search, as the DALI prefilter does, for a line that starts an import (in a notebook,
    a JSON string that does) and names one of ``modules`` — ``from train import ...``,
    ``from pkg import train``, ``import pkg.train as t``, ``from .train``. (A module named only on a
    continuation line of a parenthesised import is missed.) Returns ``test(raw) -> bool``."""
    if not modules:
        return lambda raw: False
    names = b"|".join(re.escape(m.encode()) for m in sorted(modules))
    # The names alone first: a search for literals is many times faster than the one for import
    # lines, and most files name none of the modules at all.
    named = re.compile(names).search
    import_line = re.compile(rb'(?m)^[ \t]*"?(?:from|import)[ \t][^\n]*\b(?:' + names + rb")\b").search
    return lambda raw: named(raw) is not None and import_line(raw) is not None


def follow_imports(results: list[FileResult], policy: Policy, process, read=None) -> None:
    """Run the files that may import a migrated pipeline of another file again, with what the run
    knows (in place). ``process(sources, policy)`` runs the engine over ``[(path, bytes)]``;
    ``read(path)`` gives a file's bytes, or None when it cannot be read (default: from disk)."""
    read = read or read_bytes
    known: dict[str, bool] = {}
    for _ in range(MAX_PASSES):
        found = imported_pipelines(results)
        if found == known:
            return
        known = found
        modules = {
            module_names(r.path)[0] for r in results if any(r.pipelines.values()) and module_names(r.path)
        }
        if not modules:
            return
        todo: list[tuple[int, str, bytes]] = []
        imports = import_test(modules)
        for index, result in enumerate(results):
            if result.error:
                continue
            raw = read(result.path)
            if raw is not None and imports(raw):
                todo.append((index, result.path, raw))
        if not todo:
            return
        again = process([(path, raw) for _, path, raw in todo], replace(policy, imported_pipelines=known))
        for (index, _, _), result in zip(todo, again):
            if not results[index].skipped or result.changed or result.diagnostics or result.pipelines:
                results[index] = result  # a file without DALI stays skipped unless it uses one


def read_bytes(path: str) -> bytes | None:
    """A file's bytes, or None when it cannot be read (it is then left out of the pass)."""
    try:
        with open(path, "rb") as stream:
            return stream.read()
    except OSError:
        return None
