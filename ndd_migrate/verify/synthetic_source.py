"""Reading what an original pipeline's readers read, for ``verify --synthetic`` (:mod:`.synthetic`).

The original function is read statically (no DALI in the parent process): its reader calls, with
their keyword arguments, and the names a path argument can come from (the function's parameters,
its local assignments, the module's top-level assignments). :func:`evaluate` computes a path
expression (``os.path.join(root, f"{SPLIT}.idx")``) once its parameters have generated values.
"""

from __future__ import annotations

import ast
import fnmatch
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ndd_migrate.syntax import pyparse

#: Reader kinds by the last name of their call: current (``readers.file``, ``ndd.readers.File``)
#: and legacy (``ops.FileReader``) spellings.
READER_KINDS = {
    "file": "file",
    "filereader": "file",
    "numpy": "numpy",
    "numpyreader": "numpy",
    "coco": "coco",
    "cocoreader": "coco",
    "tfrecord": "tfrecord",
    "tfrecordreader": "tfrecord",
    "webdataset": "webdataset",
}


@dataclass
class Scope:
    """What a path expression may name: the function's parameters, its local assignments
    (``self.x = ...`` in a legacy class), and the module's top-level assignments."""

    params: set[str]
    #: the parameters in order, for the names positional arguments give
    positional: list[str]
    locals: dict[str, ast.expr]
    module: dict[str, ast.expr]
    audio: bool
    #: the ``batch_size=`` literal of the ``@pipeline_def`` decorator, if any
    batch_size: int | None = None

    def resolvable(self, name: str) -> bool:
        return name in self.params or name in self.module


@dataclass
class Reader:
    kind: str
    call: ast.Call
    args: dict[str, ast.expr] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.kind if self.kind == "external_source" else f"readers.{self.kind}"


class Unresolvable(Exception):
    """A path expression this module cannot evaluate."""


# --------------------------------------------------------------------------------------------------
# Reading the original


def chain(node: ast.expr) -> list[str]:
    out = []
    while isinstance(node, ast.Attribute):
        out.insert(0, node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        out.insert(0, node.id)
    return out


def _reader_kind(call: ast.Call) -> str | None:
    names = chain(call.func)
    if not names:
        return None
    last = names[-1].lower()
    if last in ("external_source", "externalsource"):
        return "external_source"
    if "readers" in names[:-1]:
        return READER_KINDS.get(last, last)
    if last.endswith("reader") and len(names) > 1:
        return READER_KINDS.get(last, last.removesuffix("reader"))
    return None


def _assignments(body: Iterable[ast.AST], prefix: str = "") -> dict[str, ast.expr]:
    """``{name: value}`` of single-target assignments (``self.x`` as ``self.x``), first one wins."""
    out: dict[str, ast.expr] = {}
    for node in body:
        for sub in ast.walk(node) if prefix else [node]:
            if isinstance(sub, ast.Assign) and len(sub.targets) == 1:
                target = sub.targets[0]
                if isinstance(target, ast.Name):
                    out.setdefault(target.id, sub.value)
                elif isinstance(target, ast.Attribute) and chain(target)[:1] == ["self"]:
                    out.setdefault(".".join(chain(target)), sub.value)
    return out


def _definition(tree: ast.Module, name: str) -> ast.AST | None:
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return node
    return None


def _parameters(node: ast.AST) -> list[str]:
    """The parameters callers give, in order: a function's, a class's ``__init__`` without ``self``."""
    if isinstance(node, ast.ClassDef):
        init = _definition(ast.Module(body=node.body, type_ignores=[]), "__init__")
        return _parameters(init)[1:] if init is not None else []
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        a = node.args
        return [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    return []


def read_function(source: str, function: str) -> tuple[list[Reader], Scope]:
    """The readers the original ``function`` (or legacy class) creates, and its scope."""
    try:
        tree = pyparse.ast_parse(source)
    except SyntaxError:
        return [], Scope(set(), [], {}, {}, False)  # loading reports it
    node = _definition(tree, function.split(".")[-1])
    if node is None:
        return [], Scope(set(), [], {}, {}, False)
    readers = []
    audio = False
    for sub in ast.walk(node):
        if not isinstance(sub, ast.Call):
            continue
        names = [c.lower() for c in chain(sub.func)]
        audio = audio or names[-2:] == ["decoders", "audio"] or names[-1:] == ["audiodecoder"]
        kind = _reader_kind(sub)
        if kind is not None:
            readers.append(Reader(kind, sub, {k.arg: k.value for k in sub.keywords if k.arg}))
    params = _parameters(node)
    scope = Scope(set(params), params, _assignments(node.body, prefix="local"), _assignments(tree.body), audio)
    scope.batch_size = _decorator_batch_size(node, scope)
    return readers, scope


def _decorator_batch_size(node: ast.AST, scope: Scope) -> int | None:
    for decorator in getattr(node, "decorator_list", []):
        if isinstance(decorator, ast.Call):
            for k in decorator.keywords:
                if k.arg == "batch_size" and isinstance(value := literal(k.value, scope), int):
                    return value
    return None


# --------------------------------------------------------------------------------------------------
# Evaluating path expressions


def path_names(expr: ast.expr, scope: Scope, seen: frozenset = frozenset()) -> set[str]:
    """The parameters and module-level names a path expression depends on, through locals. A
    module-level string constant is a name to replace when it is the whole path, and stays a
    constant inside a larger expression (``os.path.join(root, SPLIT)``)."""
    whole = key_of(expr)
    if whole is not None and whole not in seen:
        if whole in scope.locals and whole not in scope.params:
            return path_names(scope.locals[whole], scope, seen | {whole})
        if isinstance(expr, ast.Name) and scope.resolvable(whole):
            return {whole}
    out: set[str] = set()
    for node in ast.walk(expr):
        key = ".".join(chain(node)) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if key is None or key in seen:
            continue
        if key in scope.locals and key not in scope.params:
            out |= path_names(scope.locals[key], scope, seen | {key})
        elif isinstance(node, ast.Name) and scope.resolvable(key) and not _is_literal_constant(key, scope):
            out.add(key)
    return out


def _is_literal_constant(name: str, scope: Scope) -> bool:
    """A module-level string constant inside a path (``os.path.join(root, SPLIT)``) stays."""
    value = scope.module.get(name)
    return name not in scope.params and isinstance(value, ast.Constant) and isinstance(value.value, str)


_PASS_THROUGH = {"str", "Path", "PurePath", "fspath", "abspath", "expanduser", "normpath", "realpath"}


def evaluate(expr: ast.expr, env: dict[str, Any], scope: Scope) -> Any:
    """The value of a path expression with ``env`` for its parameters: strings, joins, f-strings,
    ``+``, ``Path(...) / ...``, lists and the locals they go through. :class:`Unresolvable` for
    anything else."""
    key = key_of(expr)
    if key is not None:
        return _evaluate_name(key, expr, env, scope)
    if isinstance(expr, ast.Constant) and isinstance(expr.value, (str, int, float)):
        return expr.value
    if isinstance(expr, (ast.List, ast.Tuple)):
        return [evaluate(e, env, scope) for e in expr.elts]
    if isinstance(expr, ast.JoinedStr):
        return "".join(
            str(evaluate(v.value, env, scope)) if isinstance(v, ast.FormattedValue) else str(v.value)
            for v in expr.values
        )
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Div)):
        left, right = evaluate(expr.left, env, scope), evaluate(expr.right, env, scope)
        return os.path.join(str(left), str(right)) if isinstance(expr.op, ast.Div) else left + right
    if isinstance(expr, ast.Call) and not expr.keywords:
        return _evaluate_call(expr, env, scope)
    raise Unresolvable(ast.unparse(expr))


def _evaluate_name(key: str, expr: ast.expr, env: dict[str, Any], scope: Scope) -> Any:
    """A parameter's generated value, or what a local or module-level name is assigned."""
    if key in env:
        return env[key]
    if key not in scope.params:
        source = scope.locals.get(key)
        source = source if source is not None else scope.module.get(key)
        if source is not None:
            return evaluate(source, env, scope)
    raise Unresolvable(ast.unparse(expr))


def _evaluate_call(expr: ast.Call, env: dict[str, Any], scope: Scope) -> Any:
    """``os.path.join(...)``, and the calls that give their one argument back as a path."""
    name = (chain(expr.func)[-1:] or [""])[0]
    args = [evaluate(a, env, scope) for a in expr.args]
    if name == "join" and args:
        return os.path.join(*[str(a) for a in args])
    if name in _PASS_THROUGH and len(args) == 1:
        return str(args[0])
    raise Unresolvable(ast.unparse(expr))


def literal(expr: ast.expr | None, scope: Scope, default: Any = None) -> Any:
    """A non-path argument's value (``file_filter="*.npy"``, ``ext=["jpg", "cls"]``) when it is a
    literal or a name of one; ``default`` otherwise."""
    if expr is None:
        return default
    try:
        return evaluate(expr, {}, scope)
    except (Unresolvable, TypeError):
        return default


def key_of(expr: ast.expr) -> str | None:
    """``name`` or ``self.attr`` for an expression that is one, else None."""
    return ".".join(chain(expr)) if isinstance(expr, (ast.Name, ast.Attribute)) else None


def content(reader: Reader, scope: Scope) -> tuple[str, str]:
    """(file extension, what one file is) for a file-based reader."""
    if reader.kind == "numpy":
        return ".npy", "float32 (length, 6) array"
    return (".wav", "16 kHz mono WAV") if scope.audio else (".jpg", "JPEG")


def as_list(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, (list, tuple)) else [str(value)]


def name_for(pattern: str, stem: str) -> str:
    """A file name ``pattern`` (a glob: ``*.npy``, ``img_?.JPEG``) matches."""
    name = pattern.replace("*", stem, 1).replace("*", "").replace("?", "0")
    return name if fnmatch.fnmatchcase(name, pattern) else stem
