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
   engine again, with these names in the :class:`~ndd_migrate.io.policy.Policy`; there, a call of an
   imported name that resolves to one of them is a pipeline (``Kind.PIPELINE``), so ``build()``/``run()`` are rewritten
   as in the defining module. A factory there that returns it is exported in turn: passes repeat
   until nothing new is found (a chain of imports is rarely longer than two);
4. an importer whose use needs a pipeline's reader metadata (a framework iterator given
   ``reader_name=``, ``epoch_size()``) asks its module for the epoch-aware shape
   (``FileResult.epoch_requests``); that module runs again and takes it where it can
   (``FileResult.epochs``, :func:`epoch_exports`), and the importers unpack each call
   (``Policy.imported_epochs``; ndd_migrate.model.importers).

A name claimed by two files with different answers (two ``train.py`` in different packages, one
migrated and one not) counts as not migrated: nothing is rewritten on a guess.

Modules the run was not given (pre-commit passes only the staged files) are read from disk when a
file of the run imports them (:class:`ProjectImports`): a pipeline still in pipeline mode there
makes NDD007 report its call sites, naming the file; a function already migrated (in the shape
ndd-migrate emits, :func:`~ndd_migrate.model.migrated_shape.migrated_shapes`, the epoch-aware one
included) makes them rewritten, like one the run migrates.
Standard library only; the engine is imported by the caller.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from ndd_migrate.io import files
from ndd_migrate.io.diagnostics import FileResult
from ndd_migrate.model.migrated_shape import migrated_shapes

#: Passes over importing files after the first; each follows one more link of factory chains.
MAX_PASSES = 3


def exports(model) -> dict[str, bool]:
    """Top-level pipeline functions and pipeline factories of an analysed module → migrated?

    A factory of a pipeline migrated to the epoch-aware shape (which returns ``(metadata,
    batches)``, not a generator) is left out, so that importing modules get NDD007's report rather
    than a wrong rewrite; the pipeline function itself is exported, with :func:`epoch_exports`."""
    found: dict[str, bool] = {}
    for qual, pipeline in model.factories.items():
        members = getattr(pipeline, "members", (pipeline,))
        if "." not in qual and not any(getattr(m, "epochs", False) for m in members):
            found[qual] = pipeline.convert
    for qual, pipeline in model.pipelines.items():
        if "." not in qual:
            found[qual] = pipeline.convert
    return found


def epoch_exports(model) -> tuple[str, ...]:
    """The top-level pipeline functions of an analysed module migrated in the epoch-aware shape:
    a module importing one unpacks each call (``pipe_meta, pipe = p(...)``)."""
    return tuple(
        sorted(
            qual for qual, p in model.pipelines.items() if "." not in qual and p.convert and getattr(p, "epochs", False)
        )
    )


def module_names(path: str) -> list[str]:
    """The dotted names a file may be imported as: every suffix of its path (``a/b/c.py`` → ``c``,
    ``b.c``, ``a.b.c``; a package's ``__init__.py`` is the package)."""
    parts = os.path.normpath(os.path.abspath(path)).split(os.sep)
    stem = os.path.splitext(parts[-1])[0]
    parts = parts[1:-1] if stem == "__init__" else [*parts[1:-1], stem]
    return [".".join(parts[i:]) for i in range(len(parts) - 1, -1, -1) if _identifiers(parts[i:])]


def _identifiers(parts: list[str]) -> bool:
    return all(p.isidentifier() for p in parts)


def own_names(by_module: dict[str, str], path: str) -> dict[str, str]:
    """Of ``module.name`` -> value, the entries naming a top-level name of the file ``path`` (under
    any module name it may be imported as), as ``name`` -> value."""
    if not by_module:
        return {}
    found = {}
    for module in module_names(path):
        for key, value in by_module.items():
            name = key[len(module) + 1 :] if key.startswith(f"{module}.") else ""
            if name.isidentifier():
                found.setdefault(name, value)
    return found


def imported_pipelines(results: list[FileResult]) -> dict[str, bool]:
    """``module.name`` → migrated, for every exported name under every module name of its file (a
    name several files export is migrated when all of them migrate it)."""
    return {
        key: all(converted for converted, _ in by_file.values()) for key, by_file in pipeline_outcomes(results).items()
    }


def pipeline_outcomes(results: list[FileResult]) -> dict[str, dict[str, tuple[bool, bool]]]:
    """``module.name`` → file → (migrated, in the epoch-aware shape), for every exported pipeline
    under every module name of its file."""
    outcomes: dict[str, dict[str, tuple[bool, bool]]] = {}
    for result in results:
        if result.error or not result.pipelines:
            continue
        for module in module_names(result.path):
            for name, converted in result.pipelines.items():
                shape = (converted, converted and name in result.epochs)
                outcomes.setdefault(f"{module}.{name}", {})[result.path] = shape
    return outcomes


def imported_epochs(results: list[FileResult]) -> frozenset[str]:
    """``module.name`` of every exported pipeline migrated in the epoch-aware shape (:func:`epoch_exports`)."""
    return frozenset(
        f"{module}.{name}"
        for result in results
        if result.epochs and not result.error
        for module in module_names(result.path)
        for name in result.epochs
    )


#: Between the construct and the texts of a reason that keeps a pipeline on purpose (:func:`keeping`).
_KEEPS = "\x1f"


def keeping(construct: str | None, why: str, hint: str) -> str:
    """A value of :attr:`Policy.kept_pipelines` with its own advice: with ``construct`` (one of
    ``constructs.KEEPING``), another module's use keeps the pipeline in pipeline mode on purpose,
    as the same use in its own module would, and the defining module reports it under that
    construct's rule; without, it is not migrated (NDD008) and ``hint`` says what to do."""
    return f"{construct or ''}{_KEEPS}{why}{_KEEPS}{hint}"


def kept_reason(value: str) -> tuple[str | None, str, str]:
    """``(construct or None, why, what to do or "")`` of a value of :attr:`Policy.kept_pipelines`."""
    parts = value.split(_KEEPS)
    return (parts[0] or None, parts[1], parts[2]) if len(parts) == 3 else (None, value, "")


def lookup(imported: dict[str, bool], qualname: str) -> bool | None:
    """Whether an imported qualified name (``train.train_pipe``, ``.train.train_pipe`` for a
    relative import) is a migrated pipeline of this run; None when the run does not define it."""
    return imported.get(qualname.lstrip("."))


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


def read_bytes(path: str) -> bytes | None:
    """A file's bytes, or None when it cannot be read (it is then left out of the pass)."""
    try:  # regular files only: never block on a FIFO
        return files.read_bytes(path)
    except files.SourceError:
        return None


# ------------------------------------------------------------------ project modules outside the run
#
# pre-commit passes only the staged files. ``main.py`` (no DALI in it) does
# ``from pkg.pipes import train_pipe``; ``pkg/pipes.py`` is not staged. The passes above never see
# ``pkg/pipes.py``, and the byte prefilter drops ``main.py``. So each file of the run is also
# looked at for imports of the project's own modules, resolved on disk as Python would (the
# file's directory and its parents up to the project root, the root's ``src/``, the run's given
# directories), and those modules are read to learn which of their names are pipelines.

#: Files or directories that mark the root of a project: the search for imported modules stops there.
PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")

# An import statement, matched from the start of its line (in a notebook, inside a JSON string):
# the module of a ``from`` import with the names it imports (a parenthesised list may span lines),
# or the modules of a plain ``import``. Backslash continuations are not followed.
_IMPORT_STATEMENT = re.compile(
    rb'[ \t]*"?(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]*(\([^)]*\)|[^\n#;]*)|import[ \t]+([^\n#;]*))'
)
_IDENTIFIER = re.compile(rb"[A-Za-z_]\w*")
_DOTTED = re.compile(rb"[A-Za-z_][\w.]*")


#: The names of ``from m import *`` in :func:`imported_modules`: every name ``m`` exports.
STAR = "*"


def imported_modules(raw: bytes, top=None) -> list[tuple[int, str, tuple[str, ...]]]:
    """The imports a file's bytes spell, as ``(level, module, names)``: ``from ..a.b import c, d``
    → ``(2, "a.b", ("c", "d"))``; ``import a.b as x, c`` → ``(0, "a.b", ()), (0, "c", ())``;
    ``from a import *`` → ``(0, "a", (STAR,))``.
    A byte search, no parse: a match inside a string is harmless (at worst a module is read).
    ``top`` (top-level names, as bytes) keeps only the absolute imports of one of them.

    Every file of a run goes through this, so it is built for speed: ``bytes.find`` jumps from one
    ``import`` word to the next (a handful per file), and only the line holding it is matched; a
    regular expression searching the whole file for line starts costs some ten times the byte
    prefilter. With ``top``, ``import os`` ends at a set look-up, before anything is decoded."""
    return [(level, module, names) for level, _, module, names in _imports(raw, top)]


def import_facts(raw: bytes) -> list[tuple[int, bytes, str, tuple[str, ...]]]:
    """Every import of :func:`imported_modules`, each with the bytes its ``top`` test looks at (the
    first name of an absolute import, ``b""`` for a relative one): what the results cache keeps of
    a file, so that :func:`select_imports` gives what ``imported_modules(raw, top)`` gives without
    reading the file again."""
    return list(_imports(raw, None))


def select_imports(facts, top) -> list[tuple[int, str, tuple[str, ...]]]:
    """``imported_modules(raw, top)`` from ``import_facts(raw)``."""
    return [(level, module, names) for level, head, module, names in facts if level or head in top]


def _imports(raw: bytes, top):
    """``(level, head, module, names)`` for :func:`imported_modules` and :func:`import_facts`."""
    last = -1
    find, rfind, match_at = raw.find, raw.rfind, _IMPORT_STATEMENT.match
    at = find(b"import")
    while at >= 0:
        start = rfind(b"\n", 0, at) + 1
        at = find(b"import", at + 6)
        if start == last:
            continue
        last = start
        match = match_at(raw, start)
        if match is None:
            continue
        module, names, plain = match.groups()
        if plain is not None:
            for item in plain.split(b","):
                dotted = _DOTTED.search(item)
                head = dotted.group().partition(b".")[0] if dotted else b""
                if dotted and (top is None or head in top):
                    yield (0, head, dotted.group().decode("ascii", "replace"), ())
            continue
        level = len(module) - len(module.lstrip(b"."))
        head = b"" if level else module.partition(b".")[0]
        if not level and top is not None and head not in top:
            continue
        items = names.strip(b"()").split(b",")
        imported = tuple(m.group().decode("ascii", "replace") for m in map(_IDENTIFIER.search, items) if m)
        if not imported and names.strip() == b"*":
            imported = (STAR,)
        yield (level, head, module[level:].decode("ascii", "replace"), imported)


class ProjectImports:
    """What the project modules that the run's files import define, read from disk.

    :meth:`scan` each file of the run; :meth:`unknown` then lists the pipeline-mode modules outside
    the run, whose pipelines only the engine can tell (:func:`exports`): the caller runs the engine
    over them and hands the results to :meth:`learn`. :meth:`policy_for` gives a file what its
    imports define (and which of them were migrated before the run):

    * ``imported`` (for :attr:`Policy.imported_pipelines`): ``module.name`` → True for a function
      already migrated on disk (:func:`~ndd_migrate.model.migrated_shape.migrated_pipelines`), whose call sites must now change —
      whether or not its module is in the run; → False for a pipeline that stays in pipeline mode
      even when migrated (its call sites are right as they are);
    * ``outside`` (for :attr:`Policy.outside_pipelines`): ``module.name`` → the defining file, for a
      pipeline-mode pipeline outside the run that a migration would convert: NDD007 says so, and
      the call sites stay as they are until both files are migrated in one run.

    Modules of the run in pipeline mode are left to ``importers.follow_imports``. Re-exports are
    followed (``pkg/__init__.py`` doing ``from .pipes import train_pipe``); a factory in a module
    without DALI that calls a pipeline of another module outside the run (``main`` → ``factory`` →
    ``pipes``) is not.

    Costs, since every file of a run comes here: a file importing no project module costs a byte
    search for ``import`` (about what the DALI prefilter costs) and a set look-up per import; the
    directory listings, the resolution of an import to a file and what a module gives are cached
    for the whole run. A module is read once (a file of the run from the bytes the run kept),
    searched for re-exports only for a name imported from it that it does not define, and parsed
    (:mod:`ast`) only when its bytes mention DALI and hold the migrated shape's words.
    """

    def __init__(self, run_paths, roots=(), read=None) -> None:
        self._read = read or read_bytes
        self._run_paths = run_paths
        self._cwd = os.getcwd()
        self._in_run: dict[str, str] | None = None  # their absolute paths → as given, once a module is read
        self._roots = []
        for root in roots:
            root = self._absolute(os.fspath(root))
            root = root if os.path.isdir(root) else os.path.dirname(root)
            if root not in self._roots:
                self._roots.append(root)
        self._bases: dict[str, list[str]] = {}
        self._importable: dict[str, tuple[str, dict[str, str], frozenset[bytes]]] = {}  # _importable_from
        self._listings: dict[str, frozenset[str]] = {}
        self._roots_seen: dict[str, bool] = {}  # directory → holds a PROJECT_MARKERS entry?
        self._resolved: dict[tuple, list[tuple[str, tuple[str, ...] | None]]] = {}  # _candidates
        self._module_files: dict[tuple, str | None] = {}  # (base, parts) → file
        self._gives_cache: dict[tuple, bool] = {}  # _gives_any
        self._modules: dict[str, _Module | None] = {}
        self._files: dict[str, list[str]] = {}  # file of the run → modules it imports that give pipelines
        self._policies: dict[str, tuple[dict, dict, dict]] = {}  # policy_for, once learnt

    def _absolute(self, path: str) -> str:
        """An absolute, normalised path; symbolic links are not resolved (a ``realpath`` costs an
        ``lstat`` per component, for every import of every file), so a module reached through a
        link counts as another file."""
        return os.path.normpath(os.path.join(self._cwd, path))

    # -- scanning ----------------------------------------------------------------------------
    def scan(self, path: str, raw: bytes | None, facts=None) -> None:
        """Find the project modules ``path`` imports that may give pipelines, from its bytes or,
        when the results cache knows the file unchanged, from its :func:`import_facts`.

        Most of a run's files come here and leave at the first step: their imports, found in the
        bytes, name no module of the project (``import os``). For the others every step is cached
        across the run's files: where an import resolves, what a module gives."""
        directory, importable, top = self._importable_from(os.path.dirname(path))
        # `import os` is dropped there
        imports = imported_modules(raw, top) if facts is None else select_imports(facts, top)
        if not imports:
            return
        own = self._absolute(path)
        found: list[str] = []
        for level, module, names in imports:
            for candidate, wanted in self._candidates(directory, importable, level, module, names):
                if candidate != own and candidate not in found and self._gives_any(candidate, wanted):
                    found.append(candidate)
        if found:
            self._files[path] = found

    def _importable_from(self, directory: str) -> tuple[str, dict[str, str], frozenset[bytes]]:
        """For the directory of a file as given: its absolute path, each top-level name an
        absolute import there can reach → the first search directory holding it, and those names
        as bytes (cached: every file of a directory shares it, so a file costs one set look-up per
        import)."""
        known = self._importable.get(directory)
        if known is None:
            absolute = self._absolute(directory)
            importable: dict[str, str] = {}
            for base in self._search_bases(absolute):
                for name in self._listing(base):
                    importable.setdefault(name, base)
            top = frozenset(name.encode("utf-8", "surrogateescape") for name in importable)
            known = self._importable[directory] = (absolute, importable, top)
        return known

    def _candidates(self, directory: str, importable: dict[str, str], level: int, module: str, names):
        """``[(file, names wanted from it or None for any)]`` for an import, resolved on disk:
        the module itself, and for a ``from`` import each name that is a submodule (cached)."""
        parts = module.split(".") if module else []
        if level:
            base = directory
            for _ in range(level - 1):
                base = os.path.dirname(base)
        else:
            base = importable.get(parts[0]) if parts else None
            if base is None:
                return ()
        names = () if STAR in names else names  # `from m import *`: any name of `m`
        key = (base, module, names)
        found = self._resolved.get(key)
        if found is None:
            found = []
            file = self._module_file(base, parts) if parts else None
            if file:
                found.append((file, names or None))
            for name in names:  # `from pkg import pipes`: a submodule
                file = self._module_file(base, [*parts, name])
                if file:
                    found.append((file, None))
            self._resolved[key] = found
        return found

    def _module_file(self, base: str, parts: list[str]) -> str | None:
        """The file of module ``parts`` under ``base`` (``a/b.py`` or ``a/b/__init__.py``), if any."""
        key = (base, *parts)
        if key in self._module_files:
            return self._module_files[key]
        file = None
        if all(p.isidentifier() for p in parts):
            path = os.path.join(base, *parts)
            if os.path.isfile(path + ".py"):
                file = path + ".py"
            elif os.path.isfile(os.path.join(path, "__init__.py")):
                file = os.path.join(path, "__init__.py")
        self._module_files[key] = file
        return file

    def _search_bases(self, directory: str) -> list[str]:
        """Where an absolute import from a file in ``directory`` is looked for: the directory and
        its parents up to the project root (only the directory when no root is found), the root's
        ``src/``, and the run's given directories."""
        bases = self._bases.get(directory)
        if bases is not None:
            return bases
        chain, current = [], directory
        while True:
            chain.append(current)
            if self._is_project_root(current):
                src = os.path.join(current, "src")
                if os.path.isdir(src):
                    chain.append(src)
                break
            parent = os.path.dirname(current)
            if parent == current:
                chain = [directory]
                break
            current = parent
        bases = self._bases[directory] = chain + [r for r in self._roots if r not in chain]
        return bases

    def _is_project_root(self, directory: str) -> bool:
        found = self._roots_seen.get(directory)
        if found is None:
            found = self._roots_seen[directory] = any(
                os.path.exists(os.path.join(directory, m)) for m in PROJECT_MARKERS
            )
        return found

    def _listing(self, directory: str) -> frozenset[str]:
        """The names importable from ``directory``: modules (``x.py``) and directories."""
        listing = self._listings.get(directory)
        if listing is None:
            names = set()
            try:
                with os.scandir(directory) as entries:
                    for entry in entries:
                        if entry.name.endswith(".py"):
                            names.add(entry.name[:-3])
                        elif entry.is_dir():
                            names.add(entry.name)
            except OSError:
                pass
            listing = self._listings[directory] = frozenset(names)
        return listing

    def _module(self, real: str) -> _Module | None:
        """The module at ``real`` (an absolute path) as far as pipelines go, or None when it
        cannot be read (cached)."""
        if real in self._modules:
            return self._modules[real]
        if self._in_run is None:
            self._in_run = {self._absolute(os.fspath(p)): os.fspath(p) for p in self._run_paths}
        raw = self._read(self._in_run.get(real, real))  # a file of the run: the bytes the run kept
        info = None
        if raw is not None:
            info = _Module(path=real, raw=raw)
            if b"dali" in raw:  # files.mentions_dali, without importing files
                info.migrated, info.migrated_epochs = migrated_shapes(raw)
                # a pipeline, or a graph helper (`fn.` calls: ndd_migrate.model.features.library_helpers)
                info.pipeline_mode = real not in self._in_run and (
                    b"pipeline_def" in raw or b"Pipeline" in raw or b"fn." in raw
                )
        self._modules[real] = info
        return info

    def _gives_any(self, real: str, wanted, depth: int = 0) -> bool:
        """May the module at ``real`` give one of the names ``wanted`` (None: any name) as a
        pipeline, its own or re-exported?

        A module may give pipelines it does not define: a package's ``__init__.py`` doing
        ``from .pipes import train_pipe``. Only the ``from`` imports of the names asked for are
        followed (so a file's imports do not pull in the project's whole import graph),
        :data:`MAX_PASSES` links deep at most."""
        key = None if wanted is None else frozenset(wanted)
        found = self._gives_cache.get((real, key))
        if found is None:
            found = self._gives_cache[(real, key)] = self._look_whether_gives(real, key, depth)
        return found

    def _look_whether_gives(self, real: str, key, depth: int) -> bool:
        info = self._module(real)
        if info is None:
            return False
        if (info.migrated or info.migrated_epochs or info.pipeline_mode) and (key is None or info.defines(key)):
            return True
        if depth >= MAX_PASSES:
            return False
        if key is None:
            # `import pkg.mod as m`: any name of it. Only a package's `__init__.py` is searched for
            # re-exports then (`import pkg; pkg.train_pipe()`), not every module imported whole.
            follow = os.path.basename(real) == "__init__.py"
        else:
            # `from pkg.mod import name`: usually `mod` defines `name`; only a name it does not
            # define but imports (a byte test first, a regular expression next) is followed.
            follow = any(n.encode() in info.raw for n in key) and not info.defines(key)
        if follow and key not in info.asked:
            info.asked.add(key)
            self._follow_reexports(info, key, depth + 1)
        return any(key is None or name in key for name in info.reexports)

    def _follow_reexports(self, info: _Module, wanted, depth: int) -> None:
        """Record in ``info.reexports`` the names of ``wanted`` (None: any) that the module imports
        with ``from ... import name`` from a module that gives them as pipelines."""
        directory, importable, top = self._importable_from(os.path.dirname(info.path))
        if info.imports is None:
            info.imports = imported_modules(info.raw, top)
        for level, module, names in info.imports:
            asked = [n for n in names if wanted is None or n in wanted]
            if not asked:
                continue
            for source, from_module in self._candidates(directory, importable, level, module, tuple(asked)):
                if not from_module or source == info.path:
                    continue  # `from . import pipes` binds a module, not a pipeline
                for name in from_module:
                    if name not in info.reexports and self._gives_any(source, (name,), depth):
                        info.reexports[name] = source

    # -- learning ----------------------------------------------------------------------------
    def unknown(self) -> list[tuple[str, bytes]]:
        """Pipeline-mode modules outside the run, imported by a file of it (directly or through
        re-exports), not yet learnt."""
        wanted = {real for found in self._files.values() for real in found}
        todo = list(wanted)
        while todo:
            info = self._modules.get(todo.pop())
            for source in info.reexports.values() if info is not None else ():
                if source not in wanted:
                    wanted.add(source)
                    todo.append(source)
        return [
            (m.path, m.raw)
            for m in self._modules.values()
            if m is not None and m.pipeline_mode and m.exports is None and m.path in wanted
        ]

    def learn(self, results: list[FileResult]) -> None:
        """Take the engine's results for :meth:`unknown`'s modules (a failed one defines nothing)."""
        for result in results:
            info = self._modules.get(result.path)
            if info is not None:
                info.exports = {} if result.error else dict(result.pipelines)
                info.helpers = () if result.error else tuple(result.helpers)
        self._policies.clear()

    def policy_for(self, path: str) -> tuple[dict[str, bool], dict[str, str], dict[str, str], dict[str, str], dict]:
        """``(imported, outside, on_disk, helpers, epochs)`` for a file of the run (as :meth:`scan` was
        given its path): the first two as the class docstring says; ``on_disk`` (for
        :attr:`Policy.migrated_on_disk`) is ``module.name`` → file for the names of ``imported``
        migrated before this run, whose call sites may use the generator already; ``helpers`` (for
        :attr:`Policy.imported_helpers`) is ``module.name`` → why, for the graph helpers of
        pipeline-mode modules outside the run, which stay pipeline-mode code; ``epochs`` (for
        :attr:`Policy.imported_epochs`) is ``module.name`` → True for the names of ``imported``
        migrated in the epoch-aware shape, whose calls give ``(metadata, batches)``.

        Names are keyed under every module name of their file, as in :func:`imported_pipelines`,
        so two imported modules may claim one (``a/pipes.py`` and ``b/pipes.py`` both give
        ``pipes.train_pipe``). Nothing is rewritten on such a guess: a name that one of them still
        defines in pipeline mode is reported, one that both define otherwise counts as not migrated."""
        found = self._files.get(path)
        if not found:
            return {}, {}, {}, {}, {}
        if path in self._policies:
            return self._policies[path]
        states: dict[str, dict[object, str]] = {}  # key → {True (migrated) / False (kept) / "outside": file}
        for real in found:
            named = self._gives(real, set())
            for module in module_names(real):
                for name, state, shown in named:
                    states.setdefault(f"{module}.{name}", {})[state] = shown
        imported: dict[str, bool] = {}
        outside: dict[str, str] = {}
        on_disk: dict[str, str] = {}
        for key, claims in states.items():
            if "outside" in claims:
                outside[key] = claims["outside"]
            else:
                imported[key] = len(claims) == 1 and True in claims
                if imported[key]:
                    on_disk[key] = claims[True]
        helpers: dict[str, str] = {}
        for real in found:
            info = self._modules.get(real)
            for name in info.helpers if info is not None and info.pipeline_mode else ():
                for module in module_names(real):
                    helpers[f"{module}.{name}"] = (
                        f"it is graph code of {_shown(real)}, which this run does not migrate (give both files to one run)"
                    )
        epochs = {
            key: True
            for real in found
            if (info := self._modules.get(real)) is not None
            for name in info.migrated_epochs
            for module in module_names(real)
            if imported.get(key := f"{module}.{name}")
        }
        self._policies[path] = imported, outside, on_disk, helpers, epochs
        return imported, outside, on_disk, helpers, epochs

    def _gives(self, real: str, seen: set[str]) -> list[tuple[str, object, str]]:
        """``(name, state, defining file as shown)`` for each pipeline the module at ``real``
        gives, its own and those it re-exports; a state is True (migrated), False (kept in
        pipeline mode) or ``"outside"`` (pipeline mode, converted by a migration)."""
        info = self._modules.get(real)
        if info is None or real in seen:
            return []
        seen = seen | {real}  # the modules on the way here: an import cycle ends
        shown = _shown(real)
        named = [(n, "outside" if converted else False, shown) for n, converted in (info.exports or {}).items()]
        named += [(n, True, shown) for n in info.migrated | info.migrated_epochs]
        for name, source in info.reexports.items():
            named += [found for found in self._gives(source, seen) if found[0] == name]
        return named


@dataclass
class _Module:
    """A project module some file of the run imports, as far as pipelines go."""

    path: str  # absolute path
    raw: bytes
    migrated: set[str] = field(default_factory=set)  # functions in the migrated shape
    migrated_epochs: set[str] = field(default_factory=set)  # ... in the epoch-aware one
    pipeline_mode: bool = False  # outside the run, and may define pipeline-mode pipelines
    exports: dict[str, bool] | None = None  # the engine's :func:`exports`, once learnt
    helpers: tuple[str, ...] = ()  # its graph helpers (``FileResult.helpers``), once learnt
    reexports: dict[str, str] = field(default_factory=dict)  # name → real path of the module it comes from
    asked: set = field(default_factory=set)  # the name sets (None: all) re-exports were looked for
    imports: list | None = None  # imported_modules(raw), once re-exports are looked for

    def defines(self, names) -> bool:
        """Does the module define one of ``names`` at top level (a byte test: ``def name(``,
        ``class name(`` or ``class name:`` at the start of a line)? Literal searches, no regular
        expression: one compiled per name would cost more than the search."""
        raw = b"\n" + self.raw
        for name in names:
            name = name.encode()
            if b"\ndef " + name + b"(" in raw or b"\nclass " + name + b"(" in raw or b"\nclass " + name + b":" in raw:
                return True
        return False


def _shown(path: str) -> str:
    """A path as a message shows it: relative to the current directory when below it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative
