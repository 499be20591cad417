"""The modules that import a pipeline another module defines: the passes of a run over them.

In the run (:func:`follow_imports`): ``main.py`` does ``from train import train_pipe``, then
``pipe.build()``, ``pipe.run()``; once ``train.py`` converts ``train_pipe``, ``main.py`` goes through
the engine again, knowing it (crossfile.py tells which names a file exports). A use ``main.py``
cannot follow (the pipeline handed to a class of its own that calls ``build()``) keeps the pipeline
in ``train.py``: that file runs again with it kept (:attr:`Policy.kept_pipelines`); settings
``main.py`` passes (``seed=``) become parameters there (:attr:`Policy.imported_call_args`).

Outside the run (:func:`outside_importers`): files of the project that the run was not given,
importing a pipeline the run would convert.

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

import functools
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, replace

from ndd_migrate.io.diagnostics import FileResult
from ndd_migrate.io.files import real_path
from ndd_migrate.io.policy import Policy
from ndd_migrate.model.crossfile import (
    MAX_PASSES,
    PROJECT_MARKERS,
    STAR,
    import_facts,
    import_test,
    imported_epochs,
    imported_modules,
    imported_pipelines,
    keeping,
    module_names,
    pipeline_outcomes,
    read_bytes,
)

_IMPORT_LINE_START = re.compile(rb'[ \t]*"?(?:from|import)[ \t]')


def import_lines(raw: bytes) -> bytes:
    """The lines of ``raw`` that start an import (those ``crossfile.import_test`` looks at), joined
    by newlines: ``import_test(m)(import_lines(raw)) == import_test(m)(raw)`` for any modules, so
    the results cache keeps these instead of the file. Each such line holds ``from`` or
    ``import``, so only the lines holding one of the words are matched (``bytes.find``, as
    ``crossfile.imported_modules`` does: a regular expression over the whole file costs some
    five times more)."""
    starts = set()
    find, rfind, match_at = raw.find, raw.rfind, _IMPORT_LINE_START.match
    for word in (b"import", b"from"):
        at = find(word)
        while at >= 0:
            start = rfind(b"\n", 0, at) + 1
            at = find(word, at + len(word))
            if start not in starts and match_at(raw, start) is not None:
                starts.add(start)
    lines = []
    for start in sorted(starts):
        end = raw.find(b"\n", start)
        lines.append(raw[start : end if end >= 0 else len(raw)])
    return b"\n".join(lines)


def follow_imports(results: list[FileResult], policy: Policy, process, read=None, lines=None) -> None:
    """Run the files that may import a migrated pipeline of another file again, with what the run
    knows (in place), and the files defining a pipeline an importer cannot follow again with it
    kept. ``process(sources, policy)`` runs the engine over ``[(path, bytes)]``; ``read(path)``
    gives a file's bytes, or None when it cannot be read (default: from disk); ``lines(path)``
    the bytes searched for its imports (:func:`import_lines`, which the results cache keeps;
    default: ``read``). ``policy``'s ``kept_pipelines`` (outside importers) are applied on the
    first pass."""
    read = read or read_bytes
    lines = lines or read
    known: tuple[dict[str, bool], frozenset[str]] = ({}, frozenset())
    kept: dict[str, str] = {}
    args: dict[str, tuple[str, ...]] = dict(policy.imported_call_args)
    requests: dict[str, str] = dict(policy.epoch_requests)
    first = dict(policy.kept_pipelines)
    first_helpers = dict(policy.kept_helpers)
    policy = replace(policy, kept_helpers={})
    for _ in range(MAX_PASSES + 2):
        clashes = {key: why for key, why in name_clashes(results, lines).items() if key not in kept}
        again_defined = _run_definers(results, policy, process, read, (kept, args, requests), {**first, **clashes})
        first = {}
        policy = replace(policy, kept_pipelines=kept, imported_call_args=args, epoch_requests=dict(requests))
        policy, again_helpers = _settle_helpers(results, policy, process, read, first_helpers)
        first_helpers = {}
        again_defined |= again_helpers
        found = (imported_pipelines(results), imported_epochs(results))
        if found == known and not again_defined:
            return
        known = found
        importing = replace(policy, imported_pipelines=known[0], imported_epochs=known[1])
        if not _run_importers(results, importing, process, read, lines, again_defined):
            return
    _run_definers(results, policy, process, read, (kept, args, requests), {})


def name_clashes(results: list[FileResult], lines) -> dict[str, str]:
    """``module.name`` → why it stays, for each pipeline that two files of the run export under one
    module name with different outcomes (two ``dali.py`` defining ``HybridTrainPipe``, one converted
    and one kept, or converted in different shapes), when a file of the run imports that module.
    What a run knows of another file's pipelines goes by module name (a file may be imported under
    any suffix of its path), so that importer could be rewritten for the other file's pipeline:
    the files converting it keep it too, with this reason. ``lines(path)``: the bytes searched for
    a file's imports (:func:`import_lines`)."""
    clashing = {key: paths for key, paths in pipeline_outcomes(results).items() if len(set(paths.values())) > 1}
    if not clashing:
        return {}
    importers = _module_importers(results, lines)
    why = {}
    for key, paths in clashing.items():
        module, name = key.rsplit(".", 1)
        if module not in importers:
            continue
        kept_at = [path for path in sorted(paths) if not paths[path][0]]
        other = (
            f"{_shown(kept_at[0])} keeps a pipeline of that name in pipeline mode"
            if kept_at
            else f"{' and '.join(_shown(p) for p in sorted(paths))} convert pipelines of that name in different shapes"
        )
        why[key] = keeping(
            None,
            f"two files of this run are module `{module}` and {other}; {_shown(importers[module])} imports "
            f"`{module}`, and the run tells those files apart by module name only, so `{name}` stays",
            "migrate each project in a run of its own, then run ndd-migrate again",
        )
    return why


def _module_importers(results: list[FileResult], lines) -> dict[str, str]:
    """Each module (or name of one) the run's files import → a file importing it."""
    importers: dict[str, str] = {}
    for result in results:
        found = lines(result.path) if not result.error else None
        for _, _, module, names in import_facts(found) if found else ():
            for imported in (module, *(f"{module}.{name}" for name in names)):
                importers.setdefault(imported, result.path)
    return importers


def _run_importers(results: list[FileResult], policy: Policy, process, read, lines, again_defined: set[str]) -> bool:
    """The files importing a module that exports a migrated pipeline (or whose definers ran
    again), run again with ``policy``: whether any did."""
    modules = {
        module_names(r.path)[0]
        for r in results
        if (any(r.pipelines.values()) or r.path in again_defined) and module_names(r.path)
    }
    imports = import_test(modules)
    todo = []
    for index, result in enumerate(results):
        found = lines(result.path) if modules and not result.error else None
        raw = read(result.path) if found is not None and imports(found) else None
        if raw is not None:
            todo.append((index, result.path, raw))
    if not todo:
        return False
    for (index, _, _), result in zip(todo, process([(path, raw) for _, path, raw in todo], policy)):
        if not results[index].skipped or result.changed or result.diagnostics or result.pipelines:
            results[index] = result  # a file without DALI stays skipped unless it uses one
    return True


def _run_definers(results: list[FileResult], policy: Policy, process, read, known: tuple, first: dict) -> set[str]:
    """The files defining a pipeline an importer cannot follow (``FileResult.kept_imports``), gives
    settings its signature does not take yet (``FileResult.imported_call_args``) or asks for the
    reader metadata of (``FileResult.epoch_requests``), run again with it kept, taking them, or
    in the epoch-aware shape where it can take it (``known``: the run's ``kept``, ``args`` and
    ``requests``, updated in place): the paths that ran again."""
    kept, args, requests = known
    wanted = {name: why for name, why in {**first, **_asked(results, "kept_imports")}.items() if name not in kept}
    more = _new_settings(results, args)
    asked = {name: why for name, why in _asked(results, "epoch_requests").items() if name not in requests}
    if not (wanted or more or asked):
        return set()
    kept.update(wanted)
    args.update(more)
    requests.update(asked)
    todo = _defining(results, wanted.keys() | more.keys() | asked.keys(), read)
    if not todo:
        return set()
    definers = replace(policy, kept_pipelines=dict(kept), imported_call_args=dict(args), epoch_requests=dict(requests))
    for (index, _, _), result in zip(todo, process([(path, raw) for _, path, raw in todo], definers)):
        results[index] = result
    return {path for _, path, _ in todo}


def _asked(results: list[FileResult], field: str) -> dict[str, str]:
    """What importers ask of the modules defining their pipelines (``FileResult.kept_imports`` or
    ``epoch_requests``), by ``module.name``."""
    return {name.lstrip("."): why for r in results for name, why in getattr(r, field).items()}


def _defining(results: list[FileResult], names: set[str], read) -> list[tuple[int, str, bytes]]:
    """``(index, path, bytes)`` of each file of the run that converts a pipeline and defines one of
    ``names`` (``module.name``)."""
    todo = []
    for index, result in enumerate(results):
        defined = {f"{module}.{name}" for module in module_names(result.path) for name in result.pipelines}
        if not result.error and any(result.pipelines.values()) and defined & names:
            raw = read(result.path)
            if raw is not None:
                todo.append((index, result.path, raw))
    return todo


def _settle_helpers(
    results: list[FileResult], policy: Policy, process, read, first: dict[str, str]
) -> tuple[Policy, set[str]]:
    """Graph helpers across modules (ndd_migrate.model.features.library_helpers) made to agree: a
    helper that a module converts while another runs it in a graph that stays is kept where it is
    defined (``Policy.kept_helpers``, with ``first``: those files outside the run import); a
    pipeline whose graph runs an imported helper that stays is kept (``Policy.imported_helpers``).
    The files concerned run again until nothing changes: the policy, and the paths that ran again."""
    again: set[str] = set()
    for _ in range(MAX_PASSES + 2):
        kept, stay = _helper_disagreements(results, {**first, **policy.kept_helpers}, dict(policy.imported_helpers))
        first = {}
        if kept == policy.kept_helpers and stay == policy.imported_helpers:
            break
        new_kept, new_stay = kept.keys() - policy.kept_helpers.keys(), stay.keys() - policy.imported_helpers.keys()
        policy = replace(policy, kept_helpers=kept, imported_helpers=stay)
        todo = []
        for index, result in enumerate(results):
            defines = {f"{m}.{name}" for m in module_names(result.path) for name in result.helpers}
            calls = {qual.lstrip(".") for qual in result.helper_calls}
            if (defines & new_kept or calls & new_stay) and not result.error:
                raw = read(result.path)
                if raw is not None:
                    todo.append((index, result.path, raw))
        known = replace(policy, imported_pipelines=imported_pipelines(results))
        for (index, _, _), result in zip(todo, process([(path, raw) for _, path, raw in todo], known)):
            results[index] = result
        again |= {path for _, path, _ in todo}
    return policy, again


def _helper_disagreements(results: list[FileResult], kept: dict, stay: dict) -> tuple[dict, dict]:
    """``kept`` and ``stay`` (``Policy.kept_helpers``, ``imported_helpers``) with what the results
    disagree on added: a helper converted where it is defined that a pipeline elsewhere which stays
    runs; a helper kept where it is defined that a pipeline elsewhere which converts runs."""
    definers = {
        f"{m}.{name}": (r.path, converted)
        for r in results
        if not r.error
        for name, converted in r.helpers.items()
        for m in module_names(r.path)
    }
    calls = [
        (result.path, qual.lstrip("."), converts, definers[qual.lstrip(".")])
        for result in results
        for qual, converts in result.helper_calls.items()
        if qual.lstrip(".") in definers and definers[qual.lstrip(".")][0] != result.path
    ]
    kept, stay = dict(kept), dict(stay)
    for path, key, converts, (_, converted) in calls:
        if not converts and converted:
            kept.setdefault(key, f"{_shown(path)} runs it in the graph of a pipeline that stays in pipeline mode")
    for _, key, converts, (defining, converted) in calls:
        if converts and not converted:
            why = f": {kept[key]}" if key in kept else ""
            stay.setdefault(key, f"it is graph code of {_shown(defining)}, kept in pipeline mode there{why}")
    return kept, stay


def _new_settings(results: list[FileResult], args: dict) -> dict[str, tuple[str, ...]]:
    """The pipeline settings importers pass that ``args`` does not hold yet, by ``module.name``."""
    settings: dict[str, set[str]] = {}
    for result in results:
        for name, given in result.imported_call_args.items():
            settings.setdefault(name.lstrip("."), set()).update(given)
    merged = {name: tuple(sorted(set(args.get(name, ())) | given)) for name, given in settings.items()}
    return {name: given for name, given in merged.items() if given != args.get(name)}


#: Folders that hold no project code: version control, caches, builds, environments.
SKIPPED = frozenset(
    {".git", ".hg", ".svn", "__pycache__", ".tox", ".nox", ".venv", "venv", "env", "node_modules", "build", "dist"}
)
#: Files looked at per project at most: a run inside a huge tree does not read all of it.
MAX_FILES = 20_000
#: Larger files are not read (generated code, data).
MAX_BYTES = 2_000_000
MAX_NOTEBOOK_BYTES = 50_000_000


def outside_importers(results: list[FileResult], run_paths) -> tuple[dict[str, str], dict[str, str]]:
    """``module.name`` → why it is kept, for each top-level pipeline a result converts that a
    project file outside the run imports by name (:attr:`Policy.kept_pipelines`), and for each
    graph helper it converts that one imports (:attr:`Policy.kept_helpers`: the importer's
    pipelines, which the run does not migrate, run it in their graphs)."""
    converting, helpers = _converting(results)
    if not converting:
        return {}, {}
    projects = _by_project(converting)
    if not projects:
        return {}, {}
    in_run = _real_paths(tuple(os.path.abspath(p) for p in run_paths))
    found: dict[str, str] = {}
    found_helpers: dict[str, str] = {}
    for place, defining in projects.items():
        wanted = {module: path for path in defining for module in module_names(path)}
        named = _names_any(wanted)
        for candidate in _searched(place, in_run):
            for module, name in _imports(small_file_bytes(candidate), wanted, converting, named):
                kept = found_helpers if (os.path.realpath(wanted[module]), name) in helpers else found
                kept.setdefault(
                    f"{module}.{name}",
                    f"{_shown(candidate)} imports it, and this run does not migrate that file (give both to one run)",
                )
    return found, found_helpers


def _converting(results: list[FileResult]) -> tuple[dict[str, list[str]], set[tuple[str, str]]]:
    """The top-level pipelines and graph helpers the results convert, by the real path of their
    file; and the helpers among them as ``(real path, name)``."""
    converting: dict[str, list[str]] = {}
    helpers: set[tuple[str, str]] = set()
    for result in results:
        if result.error or not (result.pipelines or result.helpers):  # most files of a run define neither
            continue
        names = [name for name, converted in result.pipelines.items() if converted]
        names += [name for name, converted in result.helpers.items() if converted]
        helpers |= {(os.path.realpath(result.path), name) for name, converted in result.helpers.items() if converted}
        if names:
            converting[os.path.realpath(result.path)] = names
    return converting, helpers


def settle_iterator_classes(results: list[FileResult], policy: Policy, process, read, run_paths, lines=None) -> Policy:
    """Classes deriving from DALI's PyTorch iterator across modules (NDD411): a module of the run
    that calls a class another one defines reads its calls as calls of the base
    (:attr:`Policy.imported_iterator_classes`); the class takes the support module's base where it
    is defined when every module importing it is in the run and gives it migrated pipelines only
    (:attr:`Policy.rebased_iterator_classes`), and keeps DALI's otherwise, for all of them
    (:attr:`Policy.kept_iterator_classes`): a file outside the run, or one whose pipelines stay,
    would give it a pipeline the support module's iterator cannot take. The files concerned run
    again until they agree: the policy."""
    for _ in range(MAX_PASSES + 2):
        sources, clashing = _class_sources(results)
        clashes = {key: why for key, why in clashing.items() if key not in policy.kept_iterator_classes}
        if clashes:  # each file defining one keeps DALI's base, and its callers elsewhere see no class
            policy = replace(policy, kept_iterator_classes={**policy.kept_iterator_classes, **clashes})
            _rerun(results, _definers(results, clashes), policy, process, read)
        importing = _class_importers(results, run_paths, sources)
        if not importing:
            return policy
        # The classes some file of the run imports: a wrapper's own module reads from this that
        # its calls are elsewhere (NDD008's `_takes_migrated`).
        wanted = replace(policy, imported_iterator_classes={key: sources[key] for key in importing})
        if wanted != policy:  # the importers learn the classes first
            policy = wanted
        else:
            kept, rebased = _class_agreement(results, policy, importing)
            if kept == policy.kept_iterator_classes and rebased == policy.rebased_iterator_classes:
                return policy
            policy = replace(policy, kept_iterator_classes=kept, rebased_iterator_classes=rebased)
        paths = {path for users in importing.values() for path in users} | _definers(results, importing)
        _rerun(results, paths, policy, process, read)
        follow_imports(results, policy, process, read=read, lines=lines)
    return policy


def _class_sources(results: list[FileResult]) -> tuple[dict[str, tuple[str, str]], dict[str, str]]:
    """:attr:`Policy.imported_iterator_classes` from what the results define, and the names two
    files of the run define (two projects' ``dali_loader.DALIDataloader``) → why they keep DALI's
    base: what a run knows of another module's class goes by module name, so a call of one would
    be read with the other's ``__init__``. Those are left out of the first: a call of such a class
    is a call of a class the run does not follow, and its pipelines stay."""
    sources: dict[str, tuple[str, str]] = {}
    paths: dict[str, set[str]] = {}
    for r in results:
        if r.error:
            continue
        for name, source in r.iterator_class_sources.items():
            for m in module_names(r.path):
                sources[f"{m}.{name}"] = source
                paths.setdefault(f"{m}.{name}", set()).add(r.path)
    clashing = {
        key: (
            f"{' and '.join(_shown(p) for p in sorted(found))} both define it as module "
            f"`{key.rpartition('.')[0]}`, which this run tells apart by module name only "
            "(migrate each project in a run of its own)"
        )
        for key, found in paths.items()
        if len(found) > 1
    }
    return {key: source for key, source in sources.items() if key not in clashing}, clashing


def _rerun(results: list[FileResult], paths: set[str], policy: Policy, process, read) -> None:
    """The files at ``paths`` (real paths) through the engine again with ``policy`` (in place)."""
    todo = [(i, r.path, read(r.path)) for i, r in enumerate(results) if os.path.realpath(r.path) in paths]
    todo = [item for item in todo if item[2] is not None]
    for (index, _, _), result in zip(todo, process([(path, raw) for _, path, raw in todo], policy)):
        if not results[index].skipped or result.changed or result.diagnostics or result.iterator_class_calls:
            results[index] = result  # a file without DALI stays skipped unless it calls such a class


def _definers(results: list[FileResult], importing: dict) -> set[str]:
    return {
        os.path.realpath(r.path)
        for r in results
        if any(f"{m}.{name}" in importing for m in module_names(r.path) for name in r.iterator_class_sources)
    }


def _class_importers(results: list[FileResult], run_paths, sources: dict) -> dict[str, list[str]]:
    """``module.name`` → the files importing that class (real paths), in the run or in its project."""
    defining: dict[str, list[str]] = {}
    for r in results:
        if not r.error and r.iterator_class_sources:
            defining[os.path.realpath(r.path)] = list(r.iterator_class_sources)
    if not defining:
        return {}
    real_dirs: dict[str, str] = {}
    in_run = [real_path(os.fspath(p), real_dirs) for p in run_paths]
    outside = [f for place in _by_project(defining) for f in _searched(place)]
    wanted = {module: path for path in defining for module in module_names(path)}
    found: dict[str, list[str]] = {}
    named = _names_any(wanted)
    for candidate in dict.fromkeys([*in_run, *outside]):
        raw = small_file_bytes(candidate)
        for module, name in [*_imports(raw, wanted, defining, named), *_relative(raw, wanted, defining)]:
            if os.path.realpath(wanted[module]) != candidate and f"{module}.{name}" in sources:
                found.setdefault(f"{module}.{name}", []).append(candidate)
    return found


def _class_agreement(results: list[FileResult], policy: Policy, importing: dict) -> tuple[dict, dict]:
    """``(kept, rebased)``: each imported class keeps DALI's base when a file importing it is outside
    the run or gives it a pipeline that stays, or its own module keeps it; else it takes the
    support module's."""
    by_path = {os.path.realpath(r.path): r for r in results}
    kept, rebased = dict(policy.kept_iterator_classes), {}
    for key, users in importing.items():
        if key in kept:
            continue
        for user in users:
            found = by_path.get(user)
            if found is None:
                kept[key] = f"{_shown(user)} imports it, and this run does not migrate that file (give both to one run)"
            elif not _calls_converting(found, key):
                kept[key] = (
                    f"{_shown(user)} imports it, and gives it pipelines that stay in pipeline mode (or uses it otherwise)"
                )
            if key in kept:
                break
        else:
            definer = next(
                (r for r in results if key in {f"{m}.{n}" for m in module_names(r.path) for n in r.iterator_classes}),
                None,
            )
            name = key.rpartition(".")[2]
            if (
                definer is not None
                and key in policy.rebased_iterator_classes
                and not definer.iterator_classes.get(name)
            ):
                kept[key] = f"{_shown(definer.path)} keeps DALI's base for it"
            else:
                rebased[key] = True
    return kept, rebased


def _calls_converting(result: FileResult, key: str) -> bool:
    """Does ``result`` call the class ``key`` with migrated pipelines only (and call it at all)?"""
    calls = {qual.lstrip("."): converts for qual, converts in result.iterator_class_calls.items()}
    return calls.get(key) is True


def _relative(raw: bytes | None, wanted: dict[str, str], names: dict[str, list[str]]):
    """``(module, name)`` for each relative import of a file (its bytes ``raw``) that may name a
    class of ``names``: ``from .m import name``, or ``from . import m`` of a module ``m`` defining
    one (not resolved: any package's ``m`` counts)."""
    if raw is None or b"from ." not in raw:
        return
    for level, module, imported in imported_modules(raw):
        if not level:
            continue
        for candidate, defining in wanted.items():
            stem = candidate.rpartition(".")[2]
            for name in names[defining]:
                if (
                    name in imported
                    or (stem in imported and module == "")
                    or (module.endswith(stem) and STAR in imported)
                ):
                    yield candidate, name


@dataclass(frozen=True)
class RunBytes:
    """Where the scans of the project find the run's own files: ``lines(path)``, the import lines
    (the results cache keeps them: a warm run reads no file for them), and ``read(path)``, the
    bytes (kept from the run's first reading)."""

    lines: Callable[[str], bytes | None]
    read: Callable[[str], bytes | None]


def shared_functions(results: list[FileResult], run_paths, found_bytes: RunBytes) -> dict[str, str]:
    """``module.name`` → the file importing it, for each top-level function of a module of the run
    whose parameter the engine gave a pipeline's kind (``first_batch(pipe)``, called here with the
    module's own pipeline: ``FileResult.followed_functions``) that another file of the run or its
    project imports. That file may pass it a pipeline that stays in pipeline mode (its own, one of a
    module the run does not migrate): rewritten for the generator, the function broke it while
    ``migrate`` exited 0. Such a function's parameters are not followed
    (:attr:`Policy.shared_functions`), and the pipelines its module passes it stay."""
    taking = {os.path.realpath(r.path): list(r.followed_functions) for r in results if r.followed_functions}
    if not taking:
        return {}
    found: dict[str, str] = {}
    wanted = {module: path for path in taking for module in module_names(path)}
    named = _names_any(wanted)
    for candidate, raw in candidates(run_paths, taking, found_bytes, named):
        for module, name in [*_imports(raw, wanted, taking, named), *_relative_from(candidate, raw, wanted, taking)]:
            if os.path.realpath(wanted[module]) != candidate:
                found.setdefault(f"{module}.{name}", _shown(candidate))
    return found


def exported_values_kept(results: list[FileResult], run_paths, found_bytes: RunBytes) -> dict[str, str]:
    """``module.name`` → why it is kept, for each pipeline a result converts behind a value another
    file of the run or its project imports (``FileResult.exported_values``): a module-level pipeline
    object or container of pipeline functions imported by name, or a class whose instances hold one
    in an attribute that the importing file reads (``loader.pipe``, a byte search)."""
    exporting = {os.path.realpath(r.path): r for r in results if r.exported_values and not r.error}
    if not exporting:
        return {}
    names = {path: list(r.exported_values) for path, r in exporting.items()}
    wanted = {module: path for path in exporting for module in module_names(path)}
    first_name = {os.path.realpath(path): module_names(path)[0] for path in exporting if module_names(path)}
    found: dict[str, str] = {}
    named = _names_any(wanted)
    for candidate, raw in candidates(run_paths, names, found_bytes, named):
        for defining, name in _values_reached(candidate, raw, wanted, names, named, exporting):
            if defining == candidate or defining not in first_name:
                continue
            attrs, pipelines = exporting[defining].exported_values[name]
            what = _how_reached(raw, name, attrs)
            for pipeline in pipelines if what else ():
                key = pipeline if "." in pipeline else f"{first_name[defining]}.{pipeline}"
                found.setdefault(key, f"{_shown(candidate)} {what} (migrate that use by hand)")
    return found


def _how_reached(raw: bytes, name: str, attrs: tuple[str, ...]) -> str | None:
    """How a file reaches the value ``name`` that it imports, or may hold an instance of: the value
    itself, or (a class) the first of ``attrs`` it reads; None when it reads none of them (the
    class's methods alone, which were rewritten with it)."""
    if not attrs:
        return f"imports `{name}`, which holds it"
    reads = [a for a in attrs if re.search(rb"\.\s*" + a.encode() + rb"\b", raw)]
    return f"reads `.{reads[0]}` of a `{name}`" if reads else None


def _values_reached(candidate: str, raw: bytes, wanted, names, named, exporting) -> list[tuple[str, str]]:
    """``(defining file, name)`` of the exported values a file may reach: imported by name, and the
    classes of every module it imports anything from (an instance may come from a factory)."""
    held = [(os.path.realpath(wanted[m]), n) for m, n in _imports(raw, wanted, names, named)]
    held += [(os.path.realpath(wanted[m]), n) for m, n in _relative_from(candidate, raw, wanted, names)]
    for defining in _imports_module(candidate, raw, wanted):
        held += [(defining, name) for name, (attrs, _) in exporting[defining].exported_values.items() if attrs]
    return list(dict.fromkeys(held))


def rerun_sharing(results: list[FileResult], shared: dict[str, str], policy: Policy, process, read) -> None:
    """The modules defining a function of ``shared`` (:func:`shared_functions`) through the engine
    again with ``policy``, which holds them (in place)."""
    defining = {
        os.path.realpath(r.path)
        for r in results
        if any(f"{m}.{name}" in shared for m in module_names(r.path) for name in r.followed_functions)
    }
    _rerun(results, defining, policy, process, read)


def candidates(run_paths, defining, found: RunBytes, named):
    """``(real path, bytes)`` of the files that may import from ``defining``, those whose import
    lines pass ``named`` (:func:`_names_any`): the run's (``found``: :class:`RunBytes`), then the
    other files of their projects, read once per pass."""
    real_dirs: dict[str, str] = {}
    seen = set()
    for given in map(os.fspath, run_paths):
        lines = found.lines(given) if given.endswith((".py", ".ipynb")) else None
        raw = found.read(given) if lines is not None and named(lines) else None
        if raw is not None:
            real = real_path(given, real_dirs)
            if real not in seen:
                seen.add(real)
                yield real, raw
    projects = _by_project(defining)
    if projects:
        in_run = _real_paths(tuple(os.path.abspath(p) for p in run_paths))
        for place in projects:
            for candidate in _searched(place, in_run):
                if candidate not in seen:
                    seen.add(candidate)
                    raw = small_file_bytes(candidate)
                    if raw is not None and named(raw):
                        yield candidate, raw


def reexported(results: list[FileResult], run_paths, found_bytes: RunBytes) -> dict[str, str]:
    """``module.name`` → why it is kept, for each top-level pipeline a result converts that a module
    of the run or its project imports by name (``pkg/__init__.py`` doing ``from .pipes import
    train_pipe``) when another file imports it from there (``from pkg import train_pipe``). A run
    knows a pipeline under the module names of the file defining it: that importer's
    ``pipe.build()`` was left as it was, on a generator, while ``migrate`` exited 0."""
    converting, _ = _converting(results)
    if not converting:
        return {}
    wanted = {module: path for path in converting for module in module_names(path)}
    passing: dict[str, dict[str, str]] = {}  # re-exporting file -> name -> the pipeline's `module.name`
    named = _names_any(wanted)
    for candidate, raw in candidates(run_paths, converting, found_bytes, named):
        for module, name in [
            *_imports(raw, wanted, converting, named, passing=True),
            *_relative_from(candidate, raw, wanted, converting, passing=True),
        ]:
            if os.path.realpath(wanted[module]) != candidate:
                passing.setdefault(candidate, {}).setdefault(name, f"{module}.{name}")
    if not passing:
        return {}
    through = {module: path for path in passing for module in module_names(path)}
    names = {path: list(passed) for path, passed in passing.items()}
    found: dict[str, str] = {}
    named = _names_any(through)
    for candidate, raw in candidates(run_paths, converting, found_bytes, named):
        for module, name in [*_imports(raw, through, names, named), *_relative_from(candidate, raw, through, names)]:
            if through[module] != candidate:
                found.setdefault(
                    passing[through[module]][name],
                    f"{_shown(through[module])} passes it on and {_shown(candidate)} imports it from there "
                    "(import it from the module that defines it)",
                )
    return found


def _relative_from(path: str, raw: bytes, wanted: dict[str, str], names: dict[str, list[str]], passing=False):
    """``(module, name)`` for each relative import in ``path`` of a name of ``names`` from the file
    it names, resolved as Python does (``from .pipes import x`` in ``pkg/a.py``: ``pkg/pipes.py``
    or ``pkg/pipes/__init__.py``; ``from . import *`` in ``pkg/a.py``: ``pkg/__init__.py``);
    ``module`` is a key of ``wanted`` (module name → real path) naming that file; ``passing``: as
    for :func:`_imports`."""
    if b"from ." not in raw:
        return
    by_file: dict[str, str] = {}
    for module, defining in wanted.items():
        by_file.setdefault(defining, module)
    for file, imported in _relative_targets(path, raw):
        key = by_file.get(file)
        for name in names.get(wanted[key], ()) if key is not None else ():
            if name in imported or (STAR in imported and (passing or _spells(raw, name))):
                yield key, name


def _relative_targets(path: str, raw: bytes):
    """``(real path of the file, names)`` each relative import of the file at ``path`` (its bytes
    ``raw``) may import from (a module and a package's ``__init__.py`` of that name: Python takes
    the one that exists)."""
    if b"from ." not in raw:
        return
    for level, module, imported in imported_modules(raw):
        if not level:
            continue
        base = os.path.dirname(path)
        for _ in range(level - 1):
            base = os.path.dirname(base)
        target = os.path.join(base, *module.split(".")) if module else base
        for file in (target + ".py", os.path.join(target, "__init__.py")):
            yield os.path.realpath(file), imported


def _imports_module(path: str, raw: bytes, wanted: dict[str, str]) -> set[str]:
    """The real paths of the modules of ``wanted`` (module name → file) that ``path`` imports
    anything from, or imports: absolutely (``import m``, ``from m import x``, ``from pkg import m``)
    or relatively."""
    found = set()
    for level, module, names in imported_modules(raw):
        for dotted in (module, *(f"{module}.{n}" for n in names)) if not level else ():
            if dotted in wanted:
                found.add(os.path.realpath(wanted[dotted]))
    if b"from ." in raw:
        files = set(wanted.values())  # real paths
        found |= {file for file, _ in _relative_targets(path, raw) if file in files}
    return found


def _by_project(converting: dict[str, list[str]]) -> dict[tuple[str, bool], list[str]]:
    """The defining files grouped by where their importers are looked for (:func:`_searched`):
    ``(their project's root, True)``, the whole project; for a file outside any project, ``(its
    folder, False)``: the scripts beside it, not the folders below (nothing bounds a search there)."""
    out: dict[tuple[str, bool], list[str]] = {}
    for path in converting:
        folder = os.path.dirname(path)
        root = project_root(folder)
        out.setdefault((root, True) if root is not None else (folder, False), []).append(path)
    return out


@functools.lru_cache(maxsize=2)
def _real_paths(run_paths: tuple[str, ...]) -> frozenset[str]:
    """The real paths of the run's files (given as absolute paths: a key that does not depend on
    the current folder), resolved once for the scans of one run (each asks)."""
    real_dirs: dict[str, str] = {}
    return frozenset(real_path(path, real_dirs) for path in run_paths)


def _searched(place: tuple[str, bool], skip=frozenset()):
    """The files of a place :func:`_by_project` gives: a project's (:func:`project_files`), or a
    folder's own ``.py`` files and notebooks, less those of ``skip`` (real paths: the run's, known
    already, are not even looked at)."""
    directory, whole = place
    if whole:
        yield from (path for path in project_files(directory) if path not in skip)
        return
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return
    for name in names:
        path = os.path.join(directory, name)  # `directory` is a real path: so is `path`, unless a link
        if name.endswith((".py", ".ipynb")) and path not in skip and os.path.isfile(path):
            yield os.path.realpath(path) if os.path.islink(path) else path


def project_root(directory: str) -> str | None:
    """The nearest directory at or above ``directory`` holding a :data:`PROJECT_MARKERS` entry."""
    current = directory
    while True:
        if any(os.path.exists(os.path.join(current, marker)) for marker in PROJECT_MARKERS):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def project_files(root: str):
    """The ``.py`` files and notebooks under ``root`` (real paths: ``root`` is one, and links to
    directories are not followed, so only a link to a file needs resolving), at most
    :data:`MAX_FILES`. A notebook importing a pipeline is an importer like any module; pre-commit
    passes notebooks to hooks of ``types: [python]`` only when asked to."""
    seen = 0
    for directory, folders, files in os.walk(root):
        folders[:] = [f for f in folders if f not in SKIPPED and not f.startswith(".")]
        for name in files:
            if name.endswith((".py", ".ipynb")):
                seen += 1
                if seen > MAX_FILES:
                    return
                path = os.path.join(directory, name)
                yield os.path.realpath(path) if os.path.islink(path) else path


def _imports(raw: bytes | None, wanted: dict[str, str], converting: dict[str, list[str]], named=None, passing=False):
    """``(module, name)`` for each converted pipeline a file (its bytes ``raw``) imports by name
    (``from m import name``), or through its module (``import m`` / ``from pkg import m`` and
    ``m.name`` in the text). ``named``: :func:`_names_any` of ``wanted``, made once by a caller
    asking it of many files. ``from m import *`` imports the names the file spells elsewhere, or,
    ``passing`` them on to its importers, every name."""
    if raw is None or not (named or _names_any(wanted))(raw):
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
                starred = STAR in names and (passing or _spells(raw, name))
                by_name = candidate == module and (name in names or starred)
                if by_name or (through and spelled):
                    yield candidate, name


def _spells(raw: bytes, name: str) -> bool:
    """Does a file's text name ``name`` (a byte search for the word)?"""
    return re.search(rb"\b" + name.encode() + rb"\b", raw) is not None


def _names_any(wanted: dict[str, str]):
    """``test(raw)``: does a file's bytes name the last part of one of ``wanted``'s module names?
    One search for them all (each scan asks it of every file of the run and its project)."""
    stems = tuple(sorted({module.rpartition(".")[2] for module in wanted}))
    return _stems_test(stems)


@functools.lru_cache(maxsize=64)
def _stems_test(stems: tuple[str, ...]):
    search = re.compile(b"|".join(re.escape(stem.encode()) for stem in stems)).search if stems else None
    return (lambda raw: search(raw) is not None) if search else (lambda raw: False)


def small_file_bytes(path: str) -> bytes | None:
    """The bytes of a project file searched for imports, or None when it cannot be read or is larger
    than :data:`MAX_BYTES` (generated code, data; a notebook, whose saved outputs may hold
    images, than :data:`MAX_NOTEBOOK_BYTES`)."""
    limit = MAX_NOTEBOOK_BYTES if path.endswith(".ipynb") else MAX_BYTES
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # never block on a FIFO named `x.py`
            return None
        with open(path, "rb") as handle:
            raw = handle.read(limit + 1)
    except OSError:
        return None
    return raw if len(raw) <= limit else None


def _shown(path: str) -> str:
    """``path`` relative to the current directory when it is below it."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative
