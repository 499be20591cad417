"""Signs that `migrate` broke a program while exiting 0, on a copy of a tree of real code.

`migrate` promises that a converted pipeline had every use followed. This script migrates a copy of a
tree (default: ../shared/corpus-dev) the way a user would, one run over the whole tree, and then reads
the result with its own, independent analysis (CPython's ``ast``; nothing of the engine's model) for
five kinds of silent breakage:

- ``pipeline-api``: pipeline-mode API on a value the migration changed — ``.build()``, ``.run()``,
  ``.epoch_size()``, ``.reset()``, ``len()``, a DALI framework iterator built on it, or a module class
  or function handed the value that does one of those to it — with no ``TODO(ndd-migrate)`` in the
  function around the use. Values are followed from the calls of the functions the migration made
  generators (and of the functions returning their values) through assignments, ``self.x`` attributes
  and imports between the tree's modules.
- ``rewrite-of-other-value``: a ``next(x)`` the migration added where every binding of ``x`` in that
  scope is a call of something it did not convert (a value that merely shares a name).
- ``reader-as-outputs``: a dynamic-mode reader object (``ndd.readers.X(...)``) used as what a
  pipeline-mode reader call gave (unpacked, subscripted, handed to an op, returned) instead of being
  bound to a name read only through its methods (``reader.next_epoch(...)``), with no TODO in the
  function around it.
- ``undefined-name``: a name ruff's F821/F822/F823 reports in the output more often than in the input.
- ``second-run-changes``: migrating the migrated tree again changes a file.

Exit 1 when anything is found.

    python benchmarks/silent_breakage.py                    # ../shared/corpus-dev
    python benchmarks/silent_breakage.py --tree my_repo --keep /tmp/migrated
"""

from __future__ import annotations

import argparse
import ast
import collections
import filecmp
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TREE = ROOT.parent / "shared" / "corpus-dev"
TODO = "TODO(ndd-migrate)"
NDD_MODULE = "nvidia.dali.experimental.dynamic"

#: The loaders of the support module ``migrate`` writes (ndd_support.py): ``next()`` of one is an epoch.
SUPPORT_LOADERS = {
    "dali_iterator_epochs",
    "dali_iterator_epochs_many",
    "dali_iterator_sized_epochs",
    "dali_iterator_source_epochs",
    "dali_external_source",  # `iter(source)` for a source whose kind only the run tells
}

#: What a pipeline (or a DALI iterator over it) has and a generator has not.
PIPELINE_API = {
    "build",
    "run",
    "schedule_run",
    "share_outputs",
    "release_outputs",
    "outputs",
    "epoch_size",
    "feed_input",
    "reset",
    "max_batch_size",
    "batch_size",
    "num_threads",
    "device_id",
    "serialize",
    "reader_meta",
    "executor_statistics",
    "iter_setup",
    "define_graph",
    "set_outputs",
    "checkpoint",
    "empty",
    "size",
}


@dataclass(frozen=True)
class Finding:
    kind: str
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.kind}: {self.message}"


# ------------------------------------------------------------------------------ running migrate


def migrate(tree: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-W", "ignore", "-m", "ndd_migrate.cli", "migrate", "--quiet", str(tree)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )


def _python_files(tree: Path) -> list[Path]:
    return sorted(p for p in tree.rglob("*.py") if ".git" not in p.parts)


def _parse(path: Path) -> ast.Module | None:
    try:
        return ast.parse(path.read_bytes())
    except (SyntaxError, ValueError):
        return None


# ------------------------------------------------------------------------------ the modules


@dataclass
class Module:
    """One migrated module as this script reads it."""

    path: Path
    rel: str
    tree: ast.Module
    lines: list[str]
    original: ast.Module | None
    #: a name imported from another module of the tree → (its rel path, its name there), and a
    #: module of the tree imported under a name → its rel path; filled by :func:`_link`.
    imports: dict[str, tuple[str, str]] = field(default_factory=dict)
    module_aliases: dict[str, str] = field(default_factory=dict)
    #: the functions (nodes) whose calls give a converted value.
    producers: set[ast.AST] = field(default_factory=set)
    parents: dict[ast.AST, ast.AST] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node

    def definition(self, name: str, at: ast.AST) -> ast.AST | None:
        """The function or class ``name`` means at ``at``: the nearest enclosing function's own,
        else the module's (the last one above ``at``, or the first below it)."""
        scope = self.parents.get(at)
        while scope is not None:
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
                found = [
                    n
                    for n in _own_nodes(scope)
                    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name
                ]
                if found:
                    above = [n for n in found if n.lineno <= getattr(at, "lineno", 0)]
                    return (above or found)[-1 if above else 0]
            scope = self.parents.get(scope)
        return None


def _has_yield(function: ast.AST) -> bool:
    for node in _own_nodes(function):
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
    return False


def _own_nodes(function: ast.AST):
    """The nodes of ``function``'s body, not those of functions or classes nested in it."""
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def _mentions_ndd(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) and n.id == "ndd" for n in ast.walk(node))


def _functions(tree: ast.Module) -> list[ast.AST]:
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _generators_made(module: Module) -> set[ast.AST]:
    """Functions of the output that are generators and were not before: the conversions (a
    ``@pipeline_def`` function, a ``Pipeline`` subclass, a graph built by hand) and the support code
    the migration wrote. A function is matched to the input's by name and position among those of
    that name."""
    before = collections.defaultdict(list)
    for node in ast.walk(module.original) if module.original is not None else ():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            before[node.name].append(node)
    seen = collections.Counter()
    made = set()
    for node in _functions(module.tree):
        index = seen[node.name]
        seen[node.name] += 1
        if not _has_yield(node) and not _gives_batches(node):
            continue
        olds = before.get(node.name, [])
        old = olds[index] if index < len(olds) else None
        if old is None or isinstance(old, ast.ClassDef) or not _has_yield(old):
            made.add(node)
    return made


def _gives_batches(function: ast.AST) -> bool:
    """The epoch-aware shape: ``return reader.get_metadata(), batches()`` where ``batches`` is a
    generator function nested in ``function``."""
    nested = {n.name for n in _own_nodes(function) if isinstance(n, ast.FunctionDef) and _has_yield(n)}
    for node in _own_nodes(function):
        value = node.value if isinstance(node, ast.Return) else None
        if isinstance(value, ast.Tuple) and value.elts:
            last = value.elts[-1]
            if isinstance(last, ast.Call) and isinstance(last.func, ast.Name) and last.func.id in nested:
                return True
    return False


def _module_name_of(rel: str) -> list[str]:
    parts = rel[: -len(".py")].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return parts


def _link(modules: dict[str, Module]) -> None:
    """Each module's imports of the tree's own modules, by the dotted path's tail (the tree is a
    checkout whose import root this script does not know)."""
    by_suffix: dict[tuple[str, ...], list[str]] = collections.defaultdict(list)
    for rel in modules:
        parts = _module_name_of(rel)
        for i in range(len(parts)):
            by_suffix[tuple(parts[i:])].append(rel)

    def resolve(module: Module, dotted: str | None, level: int) -> str | None:
        if level:
            base = module.rel.split("/")[:-1]
            base = base[: len(base) - (level - 1)] if level > 1 else base
            parts = [*base, *(dotted.split(".") if dotted else [])]
            rel = "/".join(parts) + ".py"
            init = "/".join(parts) + "/__init__.py"
            return rel if rel in modules else init if init in modules else None
        if not dotted:
            return None
        candidates = by_suffix.get(tuple(dotted.split(".")), [])
        same_dir = [c for c in candidates if c.split("/")[0] == module.rel.split("/")[0]]
        pick = same_dir or candidates
        return pick[0] if len(pick) == 1 else None

    for module in modules.values():
        for node in ast.walk(module.tree):
            if isinstance(node, ast.ImportFrom):
                target = resolve(module, node.module, node.level)
                for alias in node.names:
                    if target is not None:
                        module.imports[alias.asname or alias.name] = (target, alias.name)
                    sub = resolve(module, f"{node.module}.{alias.name}" if node.module else alias.name, node.level)
                    if sub is not None:
                        module.module_aliases[alias.asname or alias.name] = sub
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    target = resolve(module, alias.name, 0)
                    if target is not None and alias.asname:
                        module.module_aliases[alias.asname] = target


def _callee(module: Module, modules: dict[str, Module], func: ast.expr) -> tuple[Module, ast.AST] | None:
    """The tree's function or class a call's ``func`` names: (its module, its node)."""
    if isinstance(func, ast.Name):
        found = module.definition(func.id, func)
        if found is not None:
            return (module, found)
        if func.id in module.imports:
            rel, name = module.imports[func.id]
            found = modules[rel].definition(name, modules[rel].tree.body[-1]) if modules[rel].tree.body else None
            return (modules[rel], found) if found is not None else None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in module.module_aliases:
        owner = modules[module.module_aliases[func.value.id]]
        found = owner.definition(func.attr, owner.tree.body[-1]) if owner.tree.body else None
        return (owner, found) if found is not None else None
    return None


def _is_producer_call(module: Module, modules: dict[str, Module], node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    found = _callee(module, modules, node.func)
    return found is not None and found[1] in found[0].producers


def _find_producers(modules: dict[str, Module]) -> None:
    """Generators the migration made, and (to a fixed point) the functions that return their
    values: a factory that built, and now creates, the loader."""
    for module in modules.values():
        module.producers = _generators_made(module)
    changed = True
    while changed:
        changed = False
        for module in modules.values():
            for node in _functions(module.tree):
                if node in module.producers or _has_yield(node):
                    continue
                values = _tracked_names(module, modules, node)
                for ret in (n for n in _own_nodes(node) if isinstance(n, ast.Return) and n.value is not None):
                    value = ret.value
                    if _is_producer_call(module, modules, value) or (
                        isinstance(value, ast.Name) and value.id in values
                    ):
                        module.producers.add(node)
                        changed = True
                        break


def _tracked_names(module: Module, modules: dict[str, Module], scope: ast.AST) -> set[str]:
    """Names ``scope`` binds to a converted value (a producer's call, or another such name)."""
    names: set[str] = set()
    assigns = [n for n in _own_nodes(scope) if isinstance(n, ast.Assign)]
    assigns.sort(key=lambda n: n.lineno)
    for node in assigns:
        value = node.value
        if _is_producer_call(module, modules, value) or (isinstance(value, ast.Name) and value.id in names):
            for target in node.targets:  # `pipe_meta, pipe = p(...)`: the epoch-aware shape
                names.update(t.id for t in _unpacked(target) if isinstance(t, ast.Name))
    return names


def _tracked_attributes(module: Module, modules: dict[str, Module], cls: ast.ClassDef) -> set[str]:
    attrs = set()
    for method in (n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        local = _tracked_names(module, modules, method)
        for node in _own_nodes(method):
            if not isinstance(node, ast.Assign):
                continue
            value = node.value
            if _is_producer_call(module, modules, value) or (isinstance(value, ast.Name) and value.id in local):
                for target in node.targets:
                    attrs.update(t.attr for t in _unpacked(target) if _is_self_attr(t))
    return attrs


def _unpacked(target: ast.expr) -> list[ast.expr]:
    """The targets a (possibly unpacking) assignment target binds: names, attributes, subscripts."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return [t for element in target.elts for t in _unpacked(element)]
    return [target]


def _is_self_attr(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


# ------------------------------------------------------------------------------ uses


def _is_dali_iterator(func: ast.expr, support: frozenset = frozenset()) -> bool:
    """Is ``func`` a DALI iterator class (not one of the names ``support`` the module imports from
    the support module, whose iterators take migrated pipelines)?"""
    if isinstance(func, ast.Name) and func.id in support:
        return False
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name.startswith("DALI") and (name.endswith("Iterator") or name == "DALIDataset")


def _support_names(tree: ast.Module) -> frozenset:
    """The names a module imports from the support module ``migrate`` writes (``ndd_support``; in a
    ``try:`` too, as a namespace package's module imports it: relatively, else absolutely)."""
    return frozenset(
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == "ndd_support"
        for alias in node.names
    )


def _uses_as_pipeline(node: ast.AST, is_value, support: frozenset = frozenset()) -> str | None:
    """Why ``node`` uses a value (``is_value(expr)``) as a pipeline, or None (``support``: the
    names the module imports from the support module)."""
    if isinstance(node, ast.Attribute) and node.attr in PIPELINE_API and is_value(node.value):
        return f"`.{node.attr}` of a pipeline"
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Name) and node.func.id == "len" and node.args and is_value(node.args[0]):
            return "`len()` of a pipeline or DALI iterator"
        if _is_dali_iterator(node.func, support):
            inside = [*node.args, *(k.value for k in node.keywords)]
            for arg in inside:
                elements = arg.elts if isinstance(arg, (ast.List, ast.Tuple)) else [arg]
                if any(is_value(e) for e in elements):
                    return "a DALI iterator built on it"
    return None


def _parameter_uses(function: ast.AST, index: int | None, keyword: str | None, depth: int = 1) -> str | None:
    """Whether ``function`` (or a class's ``__init__`` and the methods that read what it stored)
    uses the parameter at ``index``/``keyword`` as a pipeline."""
    cls = function if isinstance(function, ast.ClassDef) else None
    init = (
        next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
        if cls
        else function
    )
    if not isinstance(init, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    params = [a.arg for a in [*init.args.posonlyargs, *init.args.args]]
    if cls is not None and params:
        params = params[1:]
    name = keyword if keyword is not None else params[index] if index is not None and index < len(params) else None
    if name is None:
        return None
    stored = set()
    for node in _own_nodes(init):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id == name:
            stored.update(t.attr for t in node.targets if _is_self_attr(t))
    for node in _own_nodes(init):
        why = _uses_as_pipeline(node, lambda e: isinstance(e, ast.Name) and e.id == name)
        if why:
            return why
    if cls is not None and stored:
        methods = {n.name: n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        for method in methods.values():
            for node in _own_nodes(method):
                why = _uses_as_pipeline(node, lambda e: _is_self_attr(e) and e.attr in stored)
                if why:
                    return f"{why} (in `{cls.name}.{method.name}`)"
                if depth and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                    owner = node.func.value
                    if node.func.attr in methods and (isinstance(owner, ast.Name) and owner.id in {"self", cls.name}):
                        callee = methods[node.func.attr]
                        shift = 0 if owner.id == cls.name and not _is_method(callee) else 1
                        for index, arg in enumerate(node.args):
                            if _is_self_attr(arg) and arg.attr in stored:
                                why = _function_parameter_uses(callee, index + shift, depth - 1)
                                if why:
                                    return f"{why} (in `{cls.name}.{callee.name}`)"
    return None


def _is_method(function: ast.AST) -> bool:
    """A function of a class that takes ``self`` (not a static one called through the class)."""
    return (
        not any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorator_list)
        and bool(function.args.args)
        and function.args.args[0].arg == "self"
    )


def _function_parameter_uses(function: ast.AST, index: int, depth: int) -> str | None:
    params = [a.arg for a in [*function.args.posonlyargs, *function.args.args]]
    if index >= len(params):
        return None
    name = params[index]
    for node in _own_nodes(function):
        why = _uses_as_pipeline(node, lambda e: isinstance(e, ast.Name) and e.id == name)
        if why:
            return why
    return None


def _todo_lines(module: Module) -> list[int]:
    return [i + 1 for i, line in enumerate(module.lines) if TODO in line]


def _scopes(tree: ast.Module):
    """Every function, with the class it is a method of (or None); the module itself last."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield item, node
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node, None
    yield tree, None


def _pipeline_api_findings(module: Module, modules: dict[str, Module]) -> list[Finding]:
    out = []
    todos = _todo_lines(module)
    seen = set()
    support = _support_names(module.tree)
    for scope, cls in _scopes(module.tree):
        local = _tracked_names(module, modules, scope)
        attrs = _tracked_attributes(module, modules, cls) if cls is not None else set()

        def is_value(expr, local=local, attrs=attrs):
            if _is_next_call(expr):  # one epoch of a converted loader: a generator too
                expr = expr.args[0]
            if isinstance(expr, ast.Name):
                return expr.id in local
            if _is_self_attr(expr):
                return expr.attr in attrs
            return _is_producer_call(module, modules, expr)

        start = getattr(scope, "lineno", 1)
        end = getattr(scope, "end_lineno", len(module.lines))
        if any(start <= t <= end for t in todos) and scope is not module.tree:
            continue
        for node in _own_nodes(scope):
            why = _uses_as_pipeline(node, is_value, support)
            if why is None and isinstance(node, ast.Call):
                why = _handed_to(module, modules, node, is_value)
            if why is None or node.lineno in seen:
                continue
            if scope is module.tree and any(abs(t - node.lineno) <= 3 for t in todos):
                continue
            seen.add(node.lineno)
            out.append(Finding("pipeline-api", module.rel, node.lineno, why))
    return out


def _handed_to(module: Module, modules: dict[str, Module], call: ast.Call, is_value) -> str | None:
    found = _callee(module, modules, call.func)
    if found is None:
        return None
    owner, target = found
    name = target.name
    if target in owner.producers:
        return None
    for index, arg in enumerate(call.args):
        if is_value(arg):
            why = _parameter_uses(target, index, None)
            if why:
                return f"handed to `{name}`, which makes {why}"
    for kw in call.keywords:
        if kw.arg and is_value(kw.value):
            why = _parameter_uses(target, None, kw.arg)
            if why:
                return f"handed to `{name}`, which makes {why}"
    return None


def _next_of_other_values(module: Module, modules: dict[str, Module]) -> list[Finding]:
    """``next(x)`` the migration added where ``x`` is bound in that scope only to calls of
    something it did not convert."""
    before = collections.Counter()
    if module.original is not None:
        for node in ast.walk(module.original):
            if _is_next_of_name(node):
                before[node.args[0].id] += 1
    out = []
    for scope, _cls in _scopes(module.tree):
        bindings: dict[str, list[ast.expr]] = collections.defaultdict(list)
        params = set()
        if not isinstance(scope, ast.Module):
            params = {a.arg for a in [*scope.args.posonlyargs, *scope.args.args, *scope.args.kwonlyargs]}
        for node in _own_nodes(scope):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        bindings[target.id].append(node.value)
            elif isinstance(node, (ast.For, ast.With, ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
                for target in ast.walk(node.target if hasattr(node, "target") else node):
                    if isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store):
                        bindings[target.id].append(ast.Constant(None))
        for node in _own_nodes(scope):
            if not _is_next_of_name(node):
                continue
            name = node.args[0].id
            values = bindings.get(name)
            if name in params or not values or before[name] > 0:
                continue
            if all(
                isinstance(v, ast.Call)
                and _callee(module, modules, v.func) is not None
                and not _is_producer_call(module, modules, v)
                for v in values
            ) or all(
                isinstance(v, ast.Call)
                and _callee(module, modules, v.func) is None
                and not (isinstance(v.func, ast.Name) and v.func.id in {"iter", "next", *SUPPORT_LOADERS})
                for v in values
            ):
                callee = ast.unparse(values[0].func) if isinstance(values[0], ast.Call) else "?"
                out.append(
                    Finding(
                        "rewrite-of-other-value",
                        module.rel,
                        node.lineno,
                        f"`next({name})` where `{name}` is `{callee}(...)`, not a converted loader",
                    )
                )
    return out


def _is_next_call(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "next"
        and len(node.args) == 1
    )


def _is_next_of_name(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "next"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Name)
    )


# ------------------------------------------------------------------------------ undefined names


def _ndd_aliases(tree: ast.Module) -> set[str]:
    """The names the module binds ``nvidia.dali.experimental.dynamic`` to."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.asname for a in node.names if a.name == NDD_MODULE and a.asname}
        elif isinstance(node, ast.ImportFrom) and node.module == "nvidia.dali.experimental":
            found |= {a.asname or a.name for a in node.names if a.name == "dynamic"}
    return found


def _is_reader_construction(node: ast.AST, aliases: set[str]) -> bool:
    """``ndd.readers.X(...)``: a dynamic-mode reader object, not its outputs."""
    func = node.func if isinstance(node, ast.Call) else None
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Attribute)
        and func.value.attr == "readers"
        and isinstance(func.value.value, ast.Name)
        and func.value.value.id in aliases
    )


def _readers_used_as_outputs(module: Module) -> list[Finding]:
    """A reader object (``ndd.readers.X(...)``) used as what a pipeline-mode reader call gave:
    unpacked, subscripted, handed to an op or returned, rather than bound to a name read only
    through its methods (``reader.next_epoch(...)``)."""
    aliases = _ndd_aliases(module.tree)
    if not aliases:
        return []
    todos = _todo_lines(module)
    out, seen = [], set()
    for scope, _cls in _scopes(module.tree):
        start = getattr(scope, "lineno", 1)
        end = getattr(scope, "end_lineno", len(module.lines))
        if scope is not module.tree and any(start <= t <= end for t in todos):
            continue
        for node in _own_nodes(scope):
            if node in seen or not _is_reader_construction(node, aliases):
                continue
            seen.add(node)
            use = module.parents.get(node)
            while isinstance(use, ast.IfExp):  # `Reader(...) if flag else None`
                use = module.parents.get(use)
            if isinstance(use, ast.Assign) and len(use.targets) == 1:
                target = use.targets[0]
                if _is_self_attr(target) or (
                    isinstance(target, ast.Name) and _read_through_methods(module, scope, target.id)
                ):
                    continue
            why = "a dynamic-mode reader object used as a reader's outputs"
            out.append(Finding("reader-as-outputs", module.rel, node.lineno, why))
    return out


def _read_through_methods(module: Module, scope: ast.AST, name: str) -> bool:
    """Is every read of ``name`` in ``scope`` an attribute of it (``name.next_epoch``)?"""
    for node in _own_nodes(scope):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            if not isinstance(module.parents.get(node), ast.Attribute):
                return False
    return True


def _undefined(tree: Path) -> dict[str, collections.Counter]:
    run = subprocess.run(
        ["ruff", "check", "--isolated", "--no-cache", "--select", "F821,F822,F823", "--output-format", "json", "."],
        cwd=tree,
        capture_output=True,
        text=True,
    )
    out: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for item in json.loads(run.stdout or "[]"):
        rel = str(Path(item["filename"]).resolve().relative_to(tree.resolve()))
        out[rel][(item["code"], item["message"])] += 1
    return out


# ------------------------------------------------------------------------------ the run


def analyse(original: Path, migrated: Path) -> list[Finding]:
    """Every finding in ``migrated`` (the migrated copy of ``original``)."""
    modules: dict[str, Module] = {}
    for path in _python_files(migrated):
        rel = str(path.relative_to(migrated))
        tree = _parse(path) if (original / rel).exists() else None  # not a support module it wrote
        if tree is None:
            continue
        modules[rel] = Module(
            path=path,
            rel=rel,
            tree=tree,
            lines=path.read_text(encoding="utf-8", errors="replace").splitlines(),
            original=_parse(original / rel),
        )
    _link(modules)
    _find_producers(modules)
    findings = []
    for module in modules.values():
        findings += _pipeline_api_findings(module, modules)
        findings += _next_of_other_values(module, modules)
        findings += _readers_used_as_outputs(module)
    before, after = _undefined(original), _undefined(migrated)
    for rel, counts in after.items():
        for (code, message), n in counts.items():
            if n > before.get(rel, {}).get((code, message), 0):
                findings.append(Finding("undefined-name", rel, 0, f"{code} {message}"))
    return findings


def rewritten(original: Path, migrated: Path) -> list[str]:
    """The files of ``original`` that differ in ``migrated`` (the support modules ``migrate`` wrote
    beside them are new files: :func:`written`)."""
    return [
        str(p.relative_to(migrated))
        for p in _python_files(migrated)
        if (original / p.relative_to(migrated)).exists()
        and not filecmp.cmp(p, original / p.relative_to(migrated), shallow=False)
    ]


def written(original: Path, migrated: Path) -> list[str]:
    """The files ``migrate`` created (the project's support modules)."""
    return [
        str(p.relative_to(migrated))
        for p in _python_files(migrated)
        if not (original / p.relative_to(migrated)).exists()
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=DEFAULT_TREE, help="the tree to migrate a copy of")
    parser.add_argument("--keep", type=Path, help="keep the migrated copy here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        original = Path(tmp) / "original"
        migrated = args.keep or Path(tmp) / "migrated"
        again = Path(tmp) / "again"
        shutil.copytree(args.tree, original, ignore=shutil.ignore_patterns(".git"))
        if migrated.exists():
            shutil.rmtree(migrated)
        shutil.copytree(original, migrated)
        for path in migrated.rglob("*"):
            path.chmod(path.stat().st_mode | 0o200)
        first = migrate(migrated)
        shutil.copytree(migrated, again)
        second = migrate(again)
        changed = rewritten(original, migrated)
        created = written(original, migrated)
        findings = analyse(original, migrated)
        findings += [
            Finding("second-run-changes", rel, 0, "a second `migrate` changes the file")
            for rel in rewritten(migrated, again)
        ]
    findings.sort(key=lambda f: (f.kind, f.path, f.line))
    for finding in findings:
        print(finding)
    kinds = collections.Counter(f.kind for f in findings)
    print(
        f"\n{len(_python_files(args.tree))} files, {len(changed)} rewritten, {len(created)} support modules written "
        f"(migrate exit {first.returncode}, second run exit {second.returncode}); "
        + (", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items())) or "no sign of silent breakage")
    )
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
