"""``verify --synthetic``: prove a migration without the user's data.

A check needs data for the original's readers, and the data is often on a cluster, large, or
private. The readers' own arguments say what they read: ``fn.readers.file(file_root=data_dir)`` a
folder of class folders, ``file_list=`` a ``path label`` text file, ``readers.coco`` an annotations
json and its images, ``readers.tfrecord`` records with the ``features`` it declares and their
index, ``readers.webdataset`` tars with the extensions ``ext=`` names. So the original function is
read (statically, in this process: no DALI here), and for each path argument whose value comes
from a parameter of the function (``file_root=data_dir``), from a module-level name, or from an
expression of them (``os.path.join(root, "train.idx")``, an f-string, a local variable), that
parameter gets a path in a temporary folder, the expression is evaluated with it, and the data is
written where the reader will look. Both sides get the same parameters (as keyword arguments), so
they read the same files.

The data is small and deterministic (:mod:`.datagen`): the same seed per reader, so two runs of a
check compare the same bytes. The content follows the reader: JPEGs for ``readers.file``, WAVs
when the function decodes audio (``decoders.audio``), float32 ``(length, 6)`` arrays for
``readers.numpy``. A path that is a literal, or comes from something else (``args.data_dir``, a
function call), cannot be redirected: the check stops naming it, unless ``--args`` gives every
name that reader's paths use (then that reader reads the user's data).
"""

from __future__ import annotations

import ast
import dataclasses
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ndd_migrate.verify import synthetic_formats
from ndd_migrate.verify.callargs import DEFAULT_BATCH_SIZE
from ndd_migrate.verify.errors import SetupError
from ndd_migrate.verify.model import Settings, SideSpec
from ndd_migrate.verify.report import PairReport
from ndd_migrate.verify.synthetic_feed import plan_external
from ndd_migrate.verify.synthetic_source import (
    Reader,
    Scope,
    Unresolvable,
    content,
    evaluate,
    key_of,
    path_names,
    read_function,
)

#: What each path argument holds: a folder, one file (with the name a bare parameter gets), or a
#: list of files.
DIR, FILE, FILES = "dir", "file", "files"
PATH_ARGS = {
    "file_root": (DIR, ""),
    "file_list": (FILE, "file_list.txt"),
    "files": (FILES, ""),
    "annotations_file": (FILE, "annotations.json"),
    "path": (FILE, "data.tfrecord"),
    "index_path": (FILE, "data.idx"),
    "paths": (FILE, "data.tar"),
    "index_paths": (FILE, "data.idx"),
}

#: Files a bare ``files=`` parameter gets.
LIST_COUNT = 7


@dataclass(frozen=True)
class Generated:
    """One input made: the parameter (or module-level name) that points at it, the reader and
    argument that read it, where it is and what it holds."""

    parameter: str
    reader: str
    line: int
    argument: str
    path: str
    what: str

    def to_dict(self) -> dict:
        return {**self.__dict__, "describe": self.describe()}

    def describe(self) -> str:
        return f"{self.parameter}: {self.what} ({self.reader} {self.argument}=, line {self.line})"


# --------------------------------------------------------------------------------------------------
# Planning: which parameter gets which path


def _bare_value(name: str, argument: str, root: str, reader: Reader, scope: Scope) -> Any:
    """The value a parameter passed whole to ``argument`` gets: a folder, a file in its own folder,
    or (``files=``) a list of files."""
    role, filename = PATH_ARGS[argument]
    folder = os.path.join(root, name.replace(".", "_"))
    if role == DIR:
        return folder
    if role == FILES:
        ext = content(reader, scope)[0]
        return [os.path.join(folder, f"sample_{i:02d}{ext}") for i in range(LIST_COUNT)]
    return os.path.join(folder, filename)


def _element_value(name: str, argument: str, root: str, reader: Reader, scope: Scope) -> str:
    """The value a parameter written as one element of a list argument (``path=[record]``) gets."""
    role, filename = PATH_ARGS[argument]
    folder = os.path.join(root, name.replace(".", "_"))
    return os.path.join(folder, "sample" + content(reader, scope)[0] if role == FILES else filename)


def _through_locals(expr: ast.expr, scope: Scope) -> ast.expr:
    """The expression a local variable stands for (``listing = LIST_FILE``), followed to its end."""
    seen: set[str] = set()
    while (key := key_of(expr)) in scope.locals and key not in scope.params and key not in seen:
        seen.add(key)
        expr = scope.locals[key]
    return expr


def _plan_reader(reader: Reader, scope: Scope, root: str, env: dict[str, Any], given: set[str]) -> bool:
    """Give the names the reader's path arguments use a value in ``env``; False when the user gave
    one of them (the reader then reads the user's data). :class:`SetupError` for a path that
    cannot be redirected."""
    paths = {a: e for a, e in reader.args.items() if a in PATH_ARGS}
    if not paths:
        raise SetupError(
            "synthetic",
            f"--synthetic: {reader.label} (line {reader.call.lineno}) is given none of "
            f"{', '.join(sorted(PATH_ARGS))} by keyword: cannot tell what it reads",
        )
    used = {a: path_names(e, scope) for a, e in paths.items()}
    if any(n in given for names in used.values() for n in names):
        return False
    for argument, expr in paths.items():
        if not used[argument]:
            raise SetupError(
                "synthetic",
                f"--synthetic: {reader.label} (line {reader.call.lineno}) reads {argument}={ast.unparse(expr)}, "
                "which no parameter or module-level name gives: it cannot be pointed at generated data",
            )
        expr = _through_locals(expr, scope)
        key = key_of(expr)
        if key in used[argument]:
            env.setdefault(key, _bare_value(key, argument, root, reader, scope))
        elif isinstance(expr, (ast.List, ast.Tuple)):
            for part in expr.elts:
                if key_of(part) in used[argument]:
                    env.setdefault(key_of(part), _element_value(key_of(part), argument, root, reader, scope))
        for name in sorted(used[argument]):
            env.setdefault(name, os.path.join(root, name.replace(".", "_")))
    return True


# --------------------------------------------------------------------------------------------------
# Writing the data


def _writer(reader: Reader):
    """The function that writes ``reader``'s data (:mod:`.synthetic_formats`)."""
    writer = getattr(synthetic_formats, f"write_{reader.kind}", None)
    if writer is None:
        raise SetupError(
            "synthetic",
            f"--synthetic: cannot generate data for {reader.label} (line {reader.call.lineno}); "
            "it generates readers.file, readers.numpy, readers.coco, readers.tfrecord and readers.webdataset",
        )
    return writer


def prepare(
    source: str,
    function: str,
    root: str,
    given: Iterable[str] = (),
    batch_size: int | None = None,
    positional: int = 0,
) -> tuple[dict[str, Any], list[Generated], list[str]]:
    """The keyword arguments that point ``function``'s readers at data generated under ``root``
    (and feed its external sources), what was generated, and notes on what was not. ``given`` are
    the keywords the user gave (``--args``) and ``positional`` the number of positional arguments:
    a reader whose paths use one of those parameters reads the user's data. ``batch_size`` is the
    one verify passes, if any (an external source's batches)."""
    readers, scope = read_function(source, function)
    given = set(given) | set(scope.positional[:positional])
    env: dict[str, Any] = {}
    generated: list[Generated] = []
    notes: list[str] = []
    for index, reader in enumerate(readers):
        if reader.kind == "external_source":
            size = batch_size or scope.batch_size or DEFAULT_BATCH_SIZE
            planned = plan_external(reader, scope, env, given, size, seed=1000 + 97 * index)
            if isinstance(planned, str):
                notes.append(planned)
                continue
            env[planned[0]] = planned[1]
            generated.append(
                Generated(planned[0], reader.label, reader.call.lineno, "source", "", planned[1].describe())
            )
            continue
        generated += _generate_reader(reader, scope, root, env, given, seed=1000 + 97 * index)
        generated += _one_shard(reader, scope, env, given)
    return env, generated, notes


#: The reader arguments that choose a shard, and the value of "one shard, the whole data set".
SHARDING = {"shard_id": 0, "num_shards": 1}


def _one_shard(reader: Reader, scope: Scope, env: dict[str, Any], given: set[str]) -> list[Generated]:
    """A parameter passed whole to the reader's ``shard_id``/``num_shards`` that nobody gave: the
    generated data set is read as one shard (verify asks for such a parameter otherwise)."""
    made = []
    for argument, value in SHARDING.items():
        expr = reader.args.get(argument)
        name = key_of(expr) if expr is not None else None
        if name in scope.params and name not in given and name not in env:
            env[name] = value
            what = f"{value}, the whole generated data set as one shard"
            made.append(Generated(name, reader.label, reader.call.lineno, argument, "", what))
    return made


def _generate_reader(
    reader: Reader, scope: Scope, root: str, env: dict[str, Any], given: set[str], seed: int
) -> list[Generated]:
    """Give the names ``reader``'s paths use generated paths in ``env`` and write its data there."""
    import numpy as np

    writer = _writer(reader)
    names_before = set(env)
    if not _plan_reader(reader, scope, root, env, given):
        return []
    values = {}
    for argument, expr in reader.args.items():
        if argument in PATH_ARGS:
            try:
                values[argument] = evaluate(expr, env, scope)
            except (Unresolvable, TypeError) as e:
                raise SetupError(
                    "synthetic",
                    f"--synthetic: {reader.label} (line {reader.call.lineno}): cannot evaluate "
                    f"{argument}={ast.unparse(expr)} (at {e})",
                ) from None
    generated = []
    for argument, what in writer(reader, values, scope, np.random.default_rng(seed)).items():
        used = path_names(reader.args[argument], scope)
        for name in sorted(used - names_before) or sorted(used):
            generated.append(Generated(name, reader.label, reader.call.lineno, argument, str(values[argument]), what))
    return generated


def with_synthetic_inputs(original: SideSpec, settings: Settings, workdir: str, report: PairReport) -> Settings:
    """``settings`` whose keyword arguments point the original's readers (and so the migrated
    ones, which get the same arguments) at data generated under ``workdir``; what was generated
    goes to ``report.synthetic``, a path that cannot be redirected to ``report.error``."""
    from ndd_migrate.verify.loading import read_source
    from ndd_migrate.verify.report import ErrorInfo

    try:
        source = original.source if original.source is not None else read_source(original.path)
        kwargs, generated, notes = prepare(
            source,
            original.function,
            os.path.join(workdir, "synthetic"),
            settings.kwargs,
            settings.batch_size,
            len(settings.args),
        )
    except SetupError as e:
        report.error = ErrorInfo(e.kind, str(e), location=e.location)
        return settings
    report.synthetic = [g.to_dict() for g in generated]
    report.notes.extend(notes)
    if not generated:
        report.notes.append("--synthetic: no reader or external source of the original to generate data for")
    return dataclasses.replace(settings, kwargs={**kwargs, **settings.kwargs})
