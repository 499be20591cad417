"""What libcst needs to see of a module, found first with the stdlib ``ast`` (ten times cheaper).

libcst is pure Python: parsing a module, resolving its names and computing positions costs
about a millisecond per line, and a module that imports DALI is mostly other code. ``check``
only reports, so it can hand libcst just the part of the module that the rules can act on: the
*region*. The region is a set of whole top-level statements, closed over the names that connect
them; every other top-level statement is cut out. Findings are mapped back to the original
lines (:meth:`Region.original_line`), so nothing downstream can tell the difference; the test
suite checks that the findings are the same as on the whole module for every example it has.
(``check --fix`` with something to fix, and ``migrate``, work on the whole module.)

Which statements are in the region (everything here errs on the side of keeping):

* **seeds**: statements that import anything from ``nvidia`` (at any depth, ``try``/``if`` blocks
  and function-local imports included), or import numpy anywhere (the migration reuses the
  module's numpy alias), or call ``.build()``/``.run()``/``.serialize()`` (NDD007 finds pipelines
  made in modules the run does not see by those calls alone), or use pipeline-only API
  (``.schedule_run()``, ``.epoch_size()``, ...: NDD008 keeps a pipeline made elsewhere for them);
* **the closure**: a statement that shares an identifier with a region statement joins it, when
  that identifier is bound at the top level (by an assignment, ``def``, ``class``, ``for``,
  ``with``, ``global``...) or by a seed. A function's identifiers are the names it may read or
  bind in the module's namespace, not its local variables: two functions that both loop over
  ``i`` share nothing. That brings in the uses of everything the DALI code
  binds (``pipe = train_pipe(...)`` → ``pipe.run()``), the helpers and constants DALI code uses
  (``def train(pipe): ...`` when a region statement calls ``train``), and it keeps every binding of
  a region name, so libcst resolves each name in the region exactly as in the whole module;
* every other top-level ``import`` (a single line each, and what names in the region resolve to).

A module CPython refuses never gets here (:mod:`ndd_migrate.syntax.pyparse`). A module is not
narrowed when a lone ``\\r`` breaks its lines, when it star-imports from ``nvidia``, or when the
run knows pipelines defined in other modules (the cross-file pass: their names arrive by imports this
module does not spell as DALI). :func:`module_level_names` is the other fact the engine takes
from the whole module: the names fresh names must not collide with.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from dataclasses import dataclass

#: Pipeline API no other object has: NDD008 keeps a pipeline made outside the module where the
#: module's code uses it on a value it is given (``rules/ndd008_unfollowed_use.py``).
PIPELINE_ONLY_API = frozenset({"share_outputs", "schedule_run", "release_outputs", "max_batch_size", "epoch_size"})
#: Calls found by method name alone (see ``analysis._find_foreign_pipelines``), and the pipeline-only API.
_SEED_METHODS = frozenset({"build", "run", "serialize", *PIPELINE_ONLY_API})
_LONE_CR = re.compile(r"\r(?!\n)")
#: Narrowing pays only when it cuts at least this share of the lines.
_MIN_CUT = 0.1


@dataclass(frozen=True)
class Region:
    """The kept lines of a module, joined, and for each the line number it had (1-based)."""

    text: str
    lines: tuple[int, ...]

    def original_line(self, line: int) -> int:
        """The module's line for ``line`` of :attr:`text` (past the end: the last kept line's)."""
        if 1 <= line <= len(self.lines):
            return self.lines[line - 1]
        return self.lines[-1] + (line - len(self.lines)) if self.lines else line


def dali_region(source: str, tree: ast.Module) -> Region | None:
    """The region of a parsed module, or None when it would not cut enough to be worth it."""
    if _LONE_CR.search(source):
        return None
    statements = tree.body
    lines = source.split("\n")
    facts = [_Facts(stmt, "\n".join(lines[_first_line(stmt) - 1 : stmt.end_lineno])) for stmt in statements]
    if any(f.star_from_nvidia for f in facts):
        return None
    keep = _closure(facts)
    cut = _cut_lines(statements, keep, len(lines))
    if len(cut) < _MIN_CUT * len(lines):
        return None
    # Line 1 stays, emptied if cut: the module itself starts there, and findings about the whole
    # module (a missing import) are reported at 1:1. The last line stays for the same reason:
    # the module ends there.
    last = len(lines)
    kept = [1, *(n for n in range(2, last) if n not in cut), *([last] if last > 1 else [])]
    text = "\n".join("" if n in cut else lines[n - 1] for n in kept)
    return Region(text=text, lines=tuple(kept))


def _first_line(stmt: ast.stmt) -> int:
    return min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])


#: Text without these cannot hold a seed, so its tree is not searched for one.
_SEED_HINT = re.compile(r"import|\.[\s\\]*(?:" + "|".join(sorted(_SEED_METHODS)) + r")\b")


class _Facts:
    """What the closure needs to know of one top-level statement (``text``: its lines). Walking
    trees is the slow part here, so only what the text says may matter is walked for."""

    def __init__(self, stmt: ast.stmt, text: str) -> None:
        self.stmt = stmt
        self.text = text
        self.is_import = isinstance(stmt, (ast.Import, ast.ImportFrom))
        self.seed = self.star_from_nvidia = False
        if _SEED_HINT.search(text):
            self._find_seed()
        self.bound = _top_level_bindings(stmt, text)  # names it binds at the top level (over-approximated)
        self._identifiers: set[str] | None = None

    def _find_seed(self) -> None:
        for node in _walk(self.stmt):
            if isinstance(node, ast.Import):
                self.seed = self.seed or any(_is_seed_module(a.name) for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if not node.level and node.module and _is_seed_module(node.module):
                    self.seed = True
                    if node.module.startswith("nvidia") and any(a.name == "*" for a in node.names):
                        self.star_from_nvidia = True
            elif isinstance(node, ast.Attribute) and node.attr in _SEED_METHODS:
                self.seed = True

    @property
    def identifiers(self) -> set[str]:
        """Names it may read or bind in the module's namespace (computed on first use)."""
        if self._identifiers is None:
            stmt = self.stmt
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self._identifiers = self.bound | _outer_names(stmt) | _free_names(stmt)
            else:
                self._identifiers = _all_names(stmt)
        return self._identifiers


_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def _all_names(node: ast.AST) -> set[str]:
    """Every identifier under ``node``, whatever scope it belongs to."""
    found: set[str] = set()
    for child in _walk(node):
        if isinstance(child, ast.Name):
            found.add(child.id)
        elif isinstance(child, ast.arg):
            found.add(child.arg)
        elif isinstance(child, (ast.Global, ast.Nonlocal)):
            found.update(child.names)
        else:
            found.update(_binder_names(child))
    return found


def _binder_names(node: ast.AST) -> list[str]:
    """Names a node binds other than a ``Name`` target or a parameter: a ``def`` or ``class``, an
    import alias, ``except ... as``, a ``match`` capture."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.alias):
        return [(node.asname or node.name).split(".")[0]]
    if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
        return [node.name] if node.name else []
    if isinstance(node, ast.MatchMapping):
        return [node.rest] if node.rest else []
    return []


def _outer_names(scope: ast.AST) -> set[str]:
    """Names in the parts of a ``def``/``class``/``lambda`` evaluated where it is defined:
    decorators, defaults, annotations, base classes."""
    parts: list[ast.AST] = list(getattr(scope, "decorator_list", ()))
    if isinstance(scope, ast.ClassDef):
        parts += [*scope.bases, *scope.keywords]
    else:
        a = scope.args
        parts += [d for d in (*a.defaults, *a.kw_defaults) if d is not None]
        if not isinstance(scope, ast.Lambda):
            parts += [
                x.annotation
                for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg)
                if x is not None and x.annotation is not None
            ]
            parts += [scope.returns] if scope.returns is not None else []
    return set().union(*(_all_names(p) for p in parts)) if parts else set()


def _free_names(scope: ast.AST) -> set[str]:
    """Names a scope (function, class body, lambda, comprehension) reads from outside itself,
    over-approximated: every name it uses and does not bind, what its nested scopes read from
    outside them, and its ``global``/``nonlocal`` names. Local variables are what keep
    unrelated functions apart: two functions that both loop over ``i`` share nothing."""
    params: set[str] = set()
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        a = scope.args
        params = {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if x is not None}
        body: list[ast.AST] = [scope.body] if isinstance(scope, ast.Lambda) else list(scope.body)
    elif isinstance(scope, ast.ClassDef):
        body = list(scope.body)
    elif isinstance(scope, ast.DictComp):
        body = [scope.key, scope.value, *scope.generators]
    else:
        body = [scope.elt, *scope.generators]
    used: set[str] = set()
    bound: set[str] = set(params)
    declared: set[str] = set()
    inner: set[str] = set()
    todo = body
    while todo:
        node = todo.pop()
        if isinstance(node, _SCOPES):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(node.name)
            used |= _outer_names(node) if not isinstance(node, _COMPREHENSIONS) else set()
            inner |= _free_names(node)
            continue
        if isinstance(node, ast.Name):
            (used if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
        else:
            bound.update(_binder_names(node))
        todo.extend(_children(node))
    if isinstance(scope, _COMPREHENSIONS):
        # Its stores are loop targets (or walrus targets, local to the enclosing function); its
        # first iterable is evaluated outside: `[x for x in x]` reads an outer `x`.
        return ((used | inner) - bound) | _all_names(scope.generators[0].iter)
    if isinstance(scope, ast.ClassDef):
        # `x = x` in a class body reads a global `x`: nothing the body binds is taken off.
        return used | inner | declared
    return ((used | inner) - bound) | declared


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


#: Fields that hold no names: expression contexts (``Load()``...) and operators are nodes too, a
#: third of a tree, and skipping them is most of what makes these walks cheaper than ``ast.walk``.
_NAMELESS_FIELDS = frozenset({"ctx", "op", "ops"})
_FIELDS: dict[type, tuple[str, ...]] = {}


def _children(node: ast.AST) -> list[ast.AST]:
    """``ast.iter_child_nodes`` without contexts and operators."""
    fields = _FIELDS.get(type(node))
    if fields is None:
        fields = _FIELDS[type(node)] = tuple(f for f in node._fields if f not in _NAMELESS_FIELDS)
    out: list[ast.AST] = []
    for name in fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            out.append(value)
        elif isinstance(value, list):
            out.extend(v for v in value if isinstance(v, ast.AST))
    return out


def _walk(node: ast.AST) -> list[ast.AST]:
    """``ast.walk`` (in another order) without contexts and operators."""
    found = [node]
    todo = [node]
    while todo:
        children = _children(todo.pop())
        found.extend(children)
        todo.extend(children)
    return found


def _is_seed_module(module: str) -> bool:
    root = module.split(".")[0]
    return root in ("nvidia", "numpy")


def _top_level_bindings(stmt: ast.stmt, text: str) -> set[str]:
    """Names ``stmt`` may bind in the module's namespace: a ``def``/``class`` binds its name (and
    what its body declares ``global``); any other statement, every name stored anywhere in it."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        if "global" not in text:
            return {stmt.name}
        declared = {name for node in _walk(stmt) if isinstance(node, ast.Global) for name in node.names}
        return {stmt.name} | declared
    bound: set[str] = set()
    for node in _walk(stmt):
        if isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Load):
                bound.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
        else:
            bound.update(_binder_names(node))
    return bound


def _closure(facts: list[_Facts]) -> set[int]:
    """Indexes of the statements in the region (imports included)."""
    # Identifiers that connect statements: bound at the top level by something other than a plain
    # import (`import os` must not pull in every user of `os`), or bound by a seed.
    connecting: set[str] = set()
    for f in facts:
        if f.seed or not f.is_import:
            connecting |= f.bound
    # Only a statement whose text spells a connecting name can share one: the others are not
    # walked for their identifiers at all.
    spelled = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(connecting))) + r")\b") if connecting else None
    users: dict[str, list[int]] = defaultdict(list)
    for index, f in enumerate(facts):
        if f.seed or (spelled is not None and spelled.search(f.text)):
            for name in f.identifiers & connecting:
                users[name].append(index)
    keep = {index for index, f in enumerate(facts) if f.seed}
    todo = list(keep)
    while todo:
        for name in facts[todo.pop()].identifiers & connecting:
            for other in users.pop(name, ()):
                if other not in keep:
                    keep.add(other)
                    todo.append(other)
    return keep | {index for index, f in enumerate(facts) if f.is_import}


def _cut_lines(statements: list[ast.stmt], keep: set[int], line_count: int) -> set[int]:
    """Lines (1-based) that only statements outside the region occupy."""
    cut: set[int] = set()
    kept: set[int] = set()
    for index, stmt in enumerate(statements):
        span = range(_first_line(stmt), (stmt.end_lineno or stmt.lineno) + 1)
        (kept if index in keep else cut).update(span)
    return {line for line in cut - kept if line <= line_count}


def module_level_names(tree: ast.Module) -> set[str]:
    """Every name spelled in the module outside function definitions (class bodies included).

    Fresh names the migration adds at the module level (``types`` for an external source's
    ``SampleInfo``) or in a migrated ``Pipeline`` subclass (``rng``, ``reader``, ...) avoid these.
    Taken from the whole module, so that a ``check`` of its region chooses the same names.
    """
    found: set[str] = set()
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        for child in _children(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                todo.append(child)
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.keyword) and node.arg:
            found.add(node.arg)
        elif isinstance(node, ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, ast.alias):
            found.update(node.name.split("."))
            if node.asname:
                found.add(node.asname)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.update(node.module.split("."))
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            found.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            found.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            found.add(node.name)
    return found
