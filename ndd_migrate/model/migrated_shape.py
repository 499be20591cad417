"""Pipelines a module already holds in the shape ``migrate`` writes, recognised from its bytes: the
generator functions of docs/target-shape.md and the factories that return one. A module migrated
before this run is read so (crossfile.ProjectImports), and NDD516 finds pipeline API called on them.
Standard library only.
"""

from __future__ import annotations

from ndd_migrate.syntax import pyparse


def migrated_pipelines(raw: bytes) -> set[str]:
    """Top-level functions of an already migrated module that give pipeline batches: generators in
    the shape ndd-migrate emits for a ``@pipeline_def`` (docs/target-shape.md), and factories that
    return one (:func:`migrated_shapes`)."""
    return migrated_shapes(raw)[0]


def migrated_shapes(raw: bytes) -> tuple[set[str], set[str]]:
    """``(generators, epoch_aware)``: the top-level functions of an already migrated module that
    give pipeline batches (:func:`migrated_pipelines`), and those in the epoch-aware shape, which
    return ``(metadata, batches)`` (a call site unpacks them: ``pipe_meta, pipe = p(...)``).

    The marker is the shape, not a guess at what the code means: the module imports the dynamic
    mode (``import nvidia.dali.experimental.dynamic as ndd``), and the function is a generator with
    a ``while True:`` statement in its body that yields and spells the ``ndd`` name. A factory's
    every ``return`` gives a call of such a function, directly or through a name bound once from
    one (``pipe = train_pipe(...); return pipe``). An epoch-aware function spells the ``ndd`` name
    (its reader) and ends in ``return <reader>.get_metadata(), <inner>()``, ``<inner>`` such a
    generator defined in its body. Parsed with :mod:`ast`, only for modules whose bytes could hold
    the shape."""
    if b"dynamic" not in raw or b"yield" not in raw or b"while" not in raw:
        return set(), set()
    import ast

    try:
        tree = pyparse.ast_parse(raw)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # nested too deeply: not this shape
        return set(), set()
    aliases = _dynamic_mode_names(tree)
    if not aliases:
        return set(), set()
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    found = {name for name, pipeline in functions.items() if _is_migrated_generator(pipeline, aliases)}
    epochs = {name for name, pipeline in functions.items() if _is_epoch_aware(pipeline, aliases)}
    return _with_factories(functions, found), epochs


def _is_epoch_aware(pipeline, aliases: set[str]) -> bool:
    """``def p(...): reader = ndd.readers.X(...); def batches(): while True: ... yield ...; return
    reader.get_metadata(), batches()`` (docs/target-shape.md, "Framework iterators")."""
    import ast

    last = pipeline.body[-1] if pipeline.body else None
    value = last.value if isinstance(last, ast.Return) else None
    if not (isinstance(value, ast.Tuple) and len(value.elts) == 2):
        return False
    meta, batches = value.elts
    if not (
        isinstance(meta, ast.Call)
        and isinstance(meta.func, ast.Attribute)
        and meta.func.attr == "get_metadata"
        and isinstance(batches, ast.Call)
        and isinstance(batches.func, ast.Name)
        and not batches.args
    ):
        return False
    inner = next((n for n in pipeline.body if isinstance(n, ast.FunctionDef) and n.name == batches.func.id), None)
    spells = any(isinstance(n, ast.Name) and n.id in aliases for n in _own_nodes(pipeline))
    return spells and inner is not None and _loops_forever(inner)


def _dynamic_mode_names(tree) -> set[str]:
    """The names a module's top-level imports give the dynamic mode (``import
    nvidia.dali.experimental.dynamic as ndd``, ``from nvidia.dali.experimental import dynamic``)."""
    import ast

    aliases = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            aliases |= {a.asname for a in node.names if a.name == "nvidia.dali.experimental.dynamic" and a.asname}
        elif isinstance(node, ast.ImportFrom) and node.module == "nvidia.dali.experimental" and not node.level:
            aliases |= {a.asname or a.name for a in node.names if a.name == "dynamic"}
    return aliases


def _with_factories(functions: dict, found: set[str]) -> set[str]:
    """``found`` (the migrated generators among ``functions``) and the factories of any of them,
    a factory of a factory included."""
    while True:
        more = {name for name, pipeline in functions.items() if name not in found and _is_factory_of(pipeline, found)}
        if not more:
            return found
        found |= more


def _own_nodes(node):
    """The nodes of a function's body, not those of functions, lambdas and classes nested in it."""
    import ast

    todo = list(ast.iter_child_nodes(node))
    while todo:
        child = todo.pop()
        yield child
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(child))


def _is_migrated_generator(pipeline, aliases: set[str]) -> bool:
    """A ``while True:`` of the body that yields, in a function that spells the ``ndd`` name: in
    the loop (no reader) or above it, where the reader is created once
    (``reader = ndd.readers.File(...)``, then ``for ... in reader.next_epoch(...)`` in the loop)."""
    import ast

    if not any(isinstance(n, ast.Name) and n.id in aliases for n in _own_nodes(pipeline)):
        return False
    return _loops_forever(pipeline)


def _loops_forever(function) -> bool:
    """Has ``function`` a ``while True:`` statement in its body that yields?"""
    import ast

    return any(
        isinstance(statement, ast.While)
        and isinstance(statement.test, ast.Constant)
        and statement.test.value is True
        and any(isinstance(n, ast.Yield) for n in _own_nodes(statement))
        for statement in function.body
    )


def _is_factory_of(pipeline, pipelines: set[str]) -> bool:
    import ast

    nodes = list(_own_nodes(pipeline))
    if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in nodes) or not pipeline.body:
        return False
    if not isinstance(pipeline.body[-1], ast.Return):
        return False  # may fall off the end, giving None
    bound: dict[str, list] = {}
    for node in nodes:
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            for target in targets:
                if isinstance(target, ast.Name):
                    bound.setdefault(target.id, []).append(value if isinstance(node, ast.Assign) else None)

    def gives_pipeline(value) -> bool:
        if isinstance(value, ast.Name) and len(bound.get(value.id, ())) == 1:
            value = bound[value.id][0]
        return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in pipelines

    returns = [n for n in nodes if isinstance(n, ast.Return)]
    return all(gives_pipeline(r.value) for r in returns)
