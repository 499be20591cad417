"""Loading the two sides: a module from a file path under a unique name, and the function in it.

Stdlib only; runs in the worker processes (loading) and in the parent (discovery by AST).

Why not ``import``: the original and the migrated file usually have the same module name (one is the
other's previous version), and ``--base REV`` runs text that is not on disk at all. Each side is
therefore compiled from its source under a unique module name, with the real file as ``__file__``
and its directory on ``sys.path``, so sibling imports and ``__file__``-relative data paths work.

Why a "definitions" mode: the files people migrate are scripts. Their top level builds pipelines
and runs them (``pipe = train_pipe("/data"); pipe.build(); for ...: pipe.run()``), often on data
that is not there when verifying. In ``definitions`` mode (the default for files) the top-level
statements that *run* the pipelines are skipped; everything that *defines* things runs. A
statement is skipped when it is

* the ``if __name__ == "__main__":`` block;
* an expression statement calling a function defined in the module (``main()``);
* any statement calling a pipeline-producing callable defined in the module: a ``@pipeline_def``
  function, a ``Pipeline`` subclass, a generator function that ``evaluate()``s (the migrated form;
  a plain generator is data, ``windows = feed(5)``, and runs), a factory defining one of these in
  its body;
* any statement using a name bound by a skipped statement (``pipe.build()``, ``pipe.run()``,
  ``it = DALIGenericIterator(pipe, ...)``), transitively;
* a statement creating a checkpoint (``pipe_checkpoint = ndd.checkpoint.Checkpoint()``, what a
  migrated ``enable_checkpointing=True`` call site starts with): its ``collect()`` and
  ``serialize()`` follow, and fail before the pipeline has run.

Imports, ``def``/``class``, constants and helper calls (``DATA = os.path.join(...)``,
``plugin_manager.load_library(...)``) run. ``module`` mode executes the whole module, as an import
(``__name__`` is not ``"__main__"``).
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import itertools
import linecache
import os
import re
import sys
import traceback
import types
from dataclasses import dataclass

from ndd_migrate import support
from ndd_migrate.syntax import pyparse
from ndd_migrate.verify.errors import SetupError

_counter = itertools.count()


# --------------------------------------------------------------------------------------------
# Discovery (parent side, no execution)


@dataclass(frozen=True)
class FunctionInfo:
    name: str
    line: int
    is_pipeline_def: bool
    is_generator: bool


def decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _is_generator(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """True when ``func`` itself (not a nested function) contains ``yield``."""
    stack: list[ast.AST] = list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def parse_source(source: str, filename: str) -> ast.Module:
    try:
        return pyparse.ast_parse(source, filename)
    except SyntaxError as e:
        raise SetupError(
            "syntax",
            f"{filename}:{e.lineno}: syntax error: {e.msg}",
            location=f"{filename}:{e.lineno}",
        ) from None


def top_level_functions(source: str, filename: str = "<source>") -> list[FunctionInfo]:
    """Module-level functions, with whether each is a ``@pipeline_def`` function (decorated with
    something called ``pipeline_def``, bare or called) or a generator function."""
    tree = parse_source(source, filename)
    out = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append(
                FunctionInfo(
                    name=node.name,
                    line=node.lineno,
                    is_pipeline_def=any(decorator_name(d) == "pipeline_def" for d in node.decorator_list),
                    is_generator=_is_generator(node),
                )
            )
    return out


def _defines_pipeline(func: ast.AST) -> bool:
    """True when ``func`` defines, nested in its body, a ``@pipeline_def`` function or a migrated
    one — a generator that ``evaluate()``s what it yields (docs/target-shape.md; a plain generator,
    an external source's say, does not): a factory (``def build(...): pipe = Pipeline(...); with
    pipe: ...; return pipe``, or what it migrated to, which returns the nested generator)."""
    for node in ast.walk(func):
        if node is not func and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(decorator_name(d) == "pipeline_def" for d in node.decorator_list):
                return True
            if _is_migrated_generator(node):
                return True
    return False


def _is_migrated_generator(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A generator that ``evaluate()``s what it yields: the migrated form of a pipeline. A plain
    generator is data (an external source's, or the iterator a legacy ``iter_setup`` draws
    from: ``crop_windows = windows(5, 2)`` must run for the pipeline to be fed)."""
    return _is_generator(func) and any(isinstance(n, ast.Attribute) and n.attr == "evaluate" for n in ast.walk(func))


def factories(source: str, filename: str = "<source>") -> list[str]:
    """Module-level functions that define a pipeline in their body and return it (see
    :func:`_defines_pipeline`), after hand-built graphs are read as functions."""
    tree = parse_source(source, filename)
    return [
        node.name
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _defines_pipeline(node)
    ]


def pipeline_classes(source: str, filename: str = "<source>") -> list[str]:
    """Module-level ``Pipeline`` subclasses (a base spelled ``Pipeline`` or ``x.Pipeline``): the
    migration turns each into a generator function of the same name."""
    tree = parse_source(source, filename)
    return [
        node.name
        for node in tree.body
        if isinstance(node, ast.ClassDef) and any(ast.unparse(b).split(".")[-1] == "Pipeline" for b in node.bases)
    ]


def read_source(path: str) -> str:
    if not os.path.exists(path):
        raise SetupError("missing-file", f"no such file: {path}")
    if os.path.isdir(path):
        raise SetupError("missing-file", f"{path} is a directory, expected a Python file")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise SetupError("missing-file", f"cannot read {path}: {e.strerror}") from None
    # Decode like the interpreter does (PEP 263 cookie, BOM).
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, UnicodeDecodeError) as e:
        raise SetupError("syntax", f"cannot decode {path}: {e}") from None
    return python_of(path, text)


def python_of(path: str, text: str) -> str:
    """The Python a file runs: a notebook's code cells joined into one module, its IPython lines
    (``!pip``, ``%matplotlib``) masked as ``pass`` — the module ``migrate`` rewrites, see
    :mod:`ndd_migrate.io.notebooks`; line numbers in tracebacks count in that module. Any other file
    as it is."""
    if not path.endswith(".ipynb"):
        return text
    from ndd_migrate.io.notebooks import NotebookError, notebook_to_module

    try:
        return notebook_to_module(text)[0]
    except NotebookError as e:
        raise SetupError("syntax", f"cannot read the notebook {path}: {e.message}") from None


# --------------------------------------------------------------------------------------------
# Definitions-only filtering


def _bound_names(node: ast.AST) -> set[str]:
    """Names a top-level statement binds (assignment targets, loop and with targets, imports,
    defs)."""
    names: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
            names.add(sub.id)
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(sub.name)
        elif isinstance(sub, ast.alias):
            names.add((sub.asname or sub.name).split(".")[0])
    return names


def _loaded_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _called_names(node: ast.AST) -> set[str]:
    return {n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def _is_main_guard(node: ast.stmt) -> bool:
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.comparators) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )


def _creates_checkpoint(node: ast.stmt) -> bool:
    return any(
        isinstance(n, ast.Call)
        and (n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")) == "Checkpoint"
        for n in ast.walk(node)
    )


def definitions_only(tree: ast.Module) -> tuple[ast.Module, list[int]]:
    """Drop the top-level statements that run pipelines (see the module docstring). Returns the
    filtered module and the line numbers of the dropped statements (for the report)."""
    local_funcs: set[str] = set()
    producers: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            local_funcs.add(node.name)
            if (
                _is_migrated_generator(node)
                or any(decorator_name(d) == "pipeline_def" for d in node.decorator_list)
                or _defines_pipeline(node)
            ):
                producers.add(node.name)
        elif isinstance(node, ast.ClassDef):
            if any("Pipeline" in ast.unparse(b) for b in node.bases):
                producers.add(node.name)

    tainted: set[str] = set()
    kept: list[ast.stmt] = []
    dropped: list[int] = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            kept.append(node)
            tainted -= _bound_names(node)
            continue
        drop = (
            _is_main_guard(node)
            or bool(_called_names(node) & producers)
            or _creates_checkpoint(node)
            or bool(_loaded_names(node) & tainted)
            or (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Call)
                and bool(_called_names(node) & local_funcs)
            )
        )
        if drop:
            dropped.append(node.lineno)
            tainted |= _bound_names(node)
        else:
            kept.append(node)
    return ast.Module(body=kept, type_ignores=tree.type_ignores), dropped


# --------------------------------------------------------------------------------------------
# Loading (worker side)


@dataclass
class LoadedModule:
    module: types.ModuleType
    filename: str
    skipped_lines: list[int]


def load_module(
    path: str,
    *,
    source: str | None = None,
    display: str | None = None,
    mode: str = "definitions",
    prefetch_lockstep: bool = True,
) -> LoadedModule:
    """Execute the file (or ``source`` under the file's identity) as a fresh module.

    The module gets a unique name (two sides with one file name never collide, and neither
    shadows an installed module), is registered in ``sys.modules`` (dataclasses, pickling and
    ``typing`` look modules up there) and has the file's directory first on ``sys.path``.
    Exceptions from the module's own top level propagate: the worker reports them with their
    location in the user's file. ``prefetch_lockstep``: see :func:`_prefetch_in_lockstep` (a
    throughput benchmark measures the real prefetching instead).
    """
    path = os.path.abspath(path)
    if source is None:
        source = read_source(path)
    filename = display or path
    if display is not None or path.endswith(".ipynb"):
        # Tracebacks and linecache must show the text that ran, not today's file on disk (nor a
        # notebook's JSON).
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    tree = parse_source(source, filename)
    skipped: list[int] = []
    if mode == "definitions":
        tree, skipped = definitions_only(tree)
    code = pyparse.compile_tree(tree, filename, "exec")

    digest = hashlib.sha1(f"{filename}\0{next(_counter)}".encode()).hexdigest()[:10]
    stem = os.path.splitext(os.path.basename(path))[0]
    name = f"_ndd_verify_{''.join(c if c.isalnum() else '_' for c in stem)}_{digest}"
    module = types.ModuleType(name)
    module.__file__ = path
    module.__loader__ = None
    module.__builtins__ = __builtins__
    directory = os.path.dirname(path)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    sys.modules[name] = module
    exec(code, module.__dict__)
    if prefetch_lockstep:
        _prefetch_in_lockstep()
    return LoadedModule(module, filename, skipped)


def _prefetch_in_lockstep() -> None:
    """The support modules the migrated code imported compute no batch ahead: the generator still
    runs in ``prefetching``'s worker thread (what verify proves runs there), one batch per
    ``next()``, so each step's random draws and reader epochs are the step's own. That the batches
    and their order do not depend on how far ahead the worker runs is the support module's own
    test (tests/test_prefetch.py)."""
    for module in _support_modules():
        module.MAX_AHEAD = 0


@contextlib.contextmanager
def prefetching_ahead():
    """Within: the support modules compute batches ahead as they do for users (the capture check:
    a captured pipeline's batches must stay valid while the queue holds them)."""
    modules = _support_modules()
    for module in modules:
        module.MAX_AHEAD = None
    try:
        yield
    finally:
        for module in modules:
            module.MAX_AHEAD = 0


def _support_modules() -> list:
    """The support modules imported (``ndd_support``, wherever the migrated code keeps it)."""
    return [
        module
        for module in list(sys.modules.values())
        if getattr(module, "__name__", "").rpartition(".")[2] == support.FILE_NAME[:-3] and hasattr(module, "MAX_AHEAD")
    ]


def find_function(loaded: LoadedModule, name: str, *, kind: str):
    """The module attribute ``name`` (dotted names walk attributes), or a :class:`SetupError` that
    lists what the file does define, so a typo is a one-line fix."""
    obj: object = loaded.module
    for part in name.split("."):
        if not hasattr(obj, part):
            candidates = sorted(
                k
                for k, v in vars(loaded.module).items()
                if callable(v)
                and not k.startswith("_")
                and getattr(v, "__module__", None) in (loaded.module.__name__, None)
            )
            hint = f"; it defines: {', '.join(candidates)}" if candidates else ""
            skipped = (
                f" (top-level {'statements at lines' if len(loaded.skipped_lines) != 1 else 'statement at line'} "
                f"{', '.join(map(str, loaded.skipped_lines))} "
                f"{'were' if len(loaded.skipped_lines) != 1 else 'was'} skipped as script code; pass "
                "--exec-module (load mode 'module') to run them)"
                if loaded.skipped_lines
                else ""
            )
            raise SetupError(
                "no-function",
                f"{kind} file {loaded.filename} has no function `{name}`{hint}{skipped}",
            )
        obj = getattr(obj, part)
    if not callable(obj):
        raise SetupError("no-function", f"`{name}` in {loaded.filename} is not callable")
    return obj


# --------------------------------------------------------------------------------------------
# Locating user code in tracebacks


_MESSAGE_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def user_location(tb: traceback.StackSummary | list, filenames: set[str], message: str = "") -> str | None:
    """``file:line`` of the innermost frame that is in one of the user's files: where the user's
    code called into what failed. A pipeline's run-time error is raised from ``pipe.run()``, but
    DALI puts the op's definition traceback into the message ("which was used in the pipeline
    definition with the following traceback: File ..., line N"): that line is the answer then.
    Falls back to the innermost frame outside ndd-migrate."""
    own = os.path.dirname(os.path.abspath(__file__))
    best = None
    for frame in tb:
        if frame.filename in filenames:
            best = f"{frame.filename}:{frame.lineno}"
    in_message = [m for m in _MESSAGE_FRAME.finditer(message) if m.group(1) in filenames]
    if in_message:
        return f"{in_message[-1].group(1)}:{in_message[-1].group(2)}"
    if best is not None:
        return best
    for frame in reversed(list(tb)):
        if not os.path.abspath(frame.filename).startswith(own):
            return f"{frame.filename}:{frame.lineno}"
    return None
