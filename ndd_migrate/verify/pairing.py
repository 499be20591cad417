"""Pairing the functions of two files: which original pipeline is checked against which migrated
function.

Without ``--pipeline``, every pipeline of the original (a ``@pipeline_def`` function, a legacy
``Pipeline`` subclass, a graph built by hand) is paired with the migrated function of the same
name, the name the migration keeps; ``--pipeline NAME`` or ``ORIG:MIGRATED`` names one pair.
"""

from __future__ import annotations

from typing import NoReturn

from ndd_migrate.verify.errors import SetupError
from ndd_migrate.verify.model import SideSpec
from ndd_migrate.verify.report import ErrorInfo, PairReport


def _parse_pipeline(pipeline: str | None) -> tuple[str, str] | None:
    if pipeline is None:
        return None
    if ":" in pipeline:
        a, b = pipeline.split(":", 1)
        return a.strip(), b.strip()
    return pipeline.strip(), pipeline.strip()


def pairs_for(
    original_path: str,
    original_source: str,
    original_display: str | None,
    migrated_path: str,
    migrated_source: str | None,
    pipeline: str | None,
) -> tuple[list[tuple[SideSpec, SideSpec]], list[PairReport]]:
    """Specs of the pairs to run, and reports for pairs that cannot be formed."""
    from ndd_migrate.verify.loading import top_level_functions

    written = original_source
    runnable_source = _hand_built_as_functions(original_source)
    if runnable_source is not None:
        original_source = runnable_source
        original_display = original_display or original_path
    explicit = _parse_pipeline(pipeline)
    if explicit is not None:
        names = [explicit]
    else:
        names = _pipelines_of(
            original_source,
            original_display or original_path,
            runnable_source is not None,
            migrated_path,
            migrated_source,
        )
    migrated_names = None
    if explicit is None and migrated_source is not None:
        migrated_names = {f.name for f in top_level_functions(migrated_source, migrated_path)}
    kept = _pipeline_mode(migrated_source, migrated_path) if migrated_source is not None else {}
    generators = {
        f.name for f in top_level_functions(original_source, original_display or original_path) if f.is_generator
    }
    runnable, missing = [], []
    for orig_name, mig_name in names:
        o = SideSpec(
            original_path,
            orig_name,
            source=runnable_source,
            display=original_display,
            written=written if runnable_source is not None else None,
        )
        m = SideSpec(migrated_path, mig_name)
        if mig_name in kept:
            rep = PairReport(name=orig_name, original=o.label, migrated=m.label)
            rep.error = _not_converted(
                mig_name, kept[mig_name], migrated_path, migrated_source, orig_name in generators
            )
            missing.append(rep)
        elif migrated_names is not None and mig_name not in migrated_names:
            rep = PairReport(name=orig_name, original=o.label, migrated=m.label)
            rep.error = ErrorInfo(
                "no-function",
                f"the migrated file {migrated_path} has no function `{mig_name}` (pipelines are paired by name)",
                side="migrated",
            )
            missing.append(rep)
        else:
            runnable.append((o, m))
    return runnable, missing


def _pipeline_mode(source: str, label: str) -> dict[str, int | None]:
    """``{name: line}`` of the module's pipelines in pipeline mode, under the names pairing gives
    them: ``@pipeline_def`` functions, ``Pipeline`` subclasses, factories building a graph by hand,
    and graphs built by hand at module level (``pipe_batches``, no line of their own). In a
    migrated file, the pipelines ``migrate`` left as they were."""
    import ast

    from ndd_migrate.verify.loading import parse_source, pipeline_classes, top_level_functions

    found: dict[str, int | None] = {f.name: f.line for f in top_level_functions(source, label) if f.is_pipeline_def}
    classes = set(pipeline_classes(source, label))
    lines = {}
    for node in parse_source(source, label).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            lines[node.name] = node.lineno
            if node.name in classes or _builds_a_graph(node):
                found[node.name] = node.lineno
    desugared = _hand_built_as_functions(source)
    if desugared is not None:
        for node in parse_source(desugared, label).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name not in found:
                if _builds_a_graph(node) or any(_is_pipeline_def(d) for d in node.decorator_list):
                    found[node.name] = lines.get(node.name)
    return found


def _builds_a_graph(func) -> bool:
    """A factory that defines a ``@pipeline_def`` function in its body (as a graph built by hand
    is read): pipeline-mode code, where the migrated factory defines a generator."""
    import ast

    return any(
        isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        and n is not func
        and any(_is_pipeline_def(d) for d in n.decorator_list)
        for n in ast.walk(func)
    )


def _is_pipeline_def(decorator) -> bool:
    from ndd_migrate.verify.loading import decorator_name

    return decorator_name(decorator) == "pipeline_def"


def _not_converted(name: str, line: int | None, path: str, source: str, swapped: bool) -> ErrorInfo:
    """The error for a migrated function that is still pipeline-mode code: the pipeline
    ``migrate`` did not convert, with the TODO that says why (before: "ORIGINAL and MIGRATED look
    swapped", or DALI failing on what it was given), or, when the original is a generator
    (``swapped``), the files given the wrong way round."""
    if swapped:
        return ErrorInfo(
            "swapped",
            f"ORIGINAL and MIGRATED look swapped: `{name}` is pipeline-mode code in {path} "
            "(give the pipeline-mode code first)",
            side="migrated",
        )
    todo = _todo_of(source, name)
    why = f": {todo}" if todo else f" (`ndd-migrate check {path}` says why)"
    where = f"{path}:{line}" if line is not None else path
    return ErrorInfo(
        "not-migrated",
        f"`{name}` is still pipeline-mode code at {where}, so there is nothing to verify: "
        f"`migrate` did not convert it{why}",
        side="migrated",
    )


def _todo_of(source: str, name: str) -> str | None:
    """The first ``# TODO(ndd-migrate): ...`` comment (its continuation lines joined) in the
    definition of ``name`` or in the comments right above it."""
    import ast

    from ndd_migrate.verify.loading import parse_source

    lines = source.splitlines()
    for node in parse_source(source, name).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
            while first > 0 and lines[first - 1].lstrip().startswith("#"):
                first -= 1
            return _first_todo(lines[first : node.end_lineno or node.lineno])
    return None


def _first_todo(lines: list[str]) -> str | None:
    marker = "# TODO(ndd-migrate):"
    for i, line in enumerate(lines):
        if marker in line:
            text = [line.split(marker, 1)[1].strip()]
            for more in lines[i + 1 :]:
                if not more.lstrip().startswith("#   "):
                    break
                text.append(more.lstrip()[1:].strip())
            return " ".join(text)
    return None


def _pipelines_of(
    source: str,
    label: str,
    hand_built: bool,
    migrated_path: str,
    migrated_source: str | None,
) -> list[tuple[str, str]]:
    """Every pipeline of the original ``source``, each paired with the migrated function of its
    own name."""
    from ndd_migrate.verify.loading import factories, pipeline_classes, top_level_functions

    funcs = top_level_functions(source, label)
    names = [(f.name, f.name) for f in funcs if f.is_pipeline_def]
    # A legacy subclass becomes a generator function of the same name.
    names += [(c, c) for c in pipeline_classes(source, label)]
    # A factory building a graph by hand returns the generator it defines once migrated.
    if hand_built:
        names += [(f, f) for f in factories(source, label)]
    if not names:
        _refuse_no_pipeline(label, migrated_path, migrated_source)
    return names


def _refuse_no_pipeline(label: str, migrated_path: str, migrated_source: str | None) -> NoReturn:
    """Raise for an original without a pipeline: the files given the wrong way round when the
    migrated one has ``@pipeline_def`` functions, else a pipeline to name with ``--pipeline``."""
    from ndd_migrate.verify.loading import top_level_functions

    if migrated_source is not None:
        theirs = [f.name for f in top_level_functions(migrated_source, migrated_path) if f.is_pipeline_def]
        if theirs:
            raise SetupError(
                "swapped",
                f"ORIGINAL and MIGRATED look swapped: {label} has "
                f"no @pipeline_def function but {migrated_path} has "
                f"({', '.join(theirs)}); give the pipeline-mode file first",
            )
    raise SetupError(
        "no-function",
        f"{label} has no @pipeline_def function or Pipeline subclass; name the pipeline with --pipeline NAME",
    )


def _hand_built_as_functions(source: str) -> str | None:
    """The original with each graph built by hand (``pipe = Pipeline(...)``, ``with pipe:``,
    ``pipe.set_outputs(...)``) as the ``@pipeline_def`` function the migration reads it as
    (:func:`ndd_migrate.model.sources.hand_built.desugar`: ``pipe_batches``, ``pipe_batches_2``, ... — the
    names the migrated generators keep); None when it has none."""
    import libcst as cst

    from ndd_migrate.model.sources import hand_built

    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return None  # loading reports it
    desugared, done = hand_built.desugar(module)
    return desugared.code if done.graphs else None
