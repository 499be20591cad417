"""Arguments for the parameters the migrated function requires and nobody gave.

The migration turns every pipeline setting that the decorator *or a call site* gives into a
keyword-only parameter; one only call sites give (``pipe = train_pipe(d, num_threads=4, seed=7)``)
has no default (docs/target-shape.md). A legacy ``Pipeline`` subclass keeps its constructor's
required parameters (``batch_size, num_threads, device_id``). So a migrated function may require
arguments that ``verify``'s user never thinks of: the check would stop at "missing argument".

Each such parameter gets, in this order (both sides get the same value, and the report says
where it came from):

1. the literal the original module's call sites give it (``crop=32``, or a positional literal,
   matched by the original's signature);
2. for a pipeline setting, verify's own: ``batch_size`` :data:`DEFAULT_BATCH_SIZE`,
   ``num_threads`` 1, ``seed`` the verify seed (``--seed``, else the reader seed).

Anything else is ``missing``: the check asks for it by name before running anything. A reader
argument's schema default is not taken: it is no value the program gives (``annotations_file=''``
made DALI fail instead of asking for the file), and a shard a run did not ask for is not proven.
Stdlib only (and :mod:`ndd_migrate.syntax.pyparse`, itself stdlib only): runs in the parent.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from ndd_migrate.syntax import pyparse

#: ``batch_size`` when neither the user, the decorator nor a call site gives one.
DEFAULT_BATCH_SIZE = 4


@dataclass(frozen=True)
class Inferred:
    """What the parent found: ``values`` to pass, one note per value, and the parameters still
    ``missing`` (required, and nothing gives them), in the function's order."""

    values: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()


def _definition(tree: ast.Module, name: str) -> ast.FunctionDef | ast.ClassDef | None:
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return node
    return None


def _parameters(node: ast.AST) -> ast.arguments | None:
    """The parameters callers give: a function's, a class's ``__init__`` without ``self``."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return node.args
    if isinstance(node, ast.ClassDef):
        init = _definition(ast.Module(body=node.body, type_ignores=[]), "__init__")
        if isinstance(init, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = init.args
            return ast.arguments(
                posonlyargs=args.posonlyargs,
                args=args.args[1:],
                vararg=args.vararg,
                kwonlyargs=args.kwonlyargs,
                kw_defaults=args.kw_defaults,
                kwarg=args.kwarg,
                defaults=args.defaults,
            )
    return None


def required(args: ast.arguments) -> tuple[list[str], list[str]]:
    """(positional parameters without a default, in order; keyword-only ones without one)."""
    positional = [a.arg for a in args.posonlyargs + args.args]
    with_default = len(args.defaults)
    pos_required = positional[: len(positional) - with_default] if with_default else positional
    kw_required = [a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None]
    return pos_required, kw_required


def _call_site_literals(tree: ast.Module, name: str, params: ast.arguments | None) -> dict[str, tuple[Any, int]]:
    """``{parameter: (literal, line)}`` from the calls ``name(...)`` in the module, first one wins."""
    positional = [a.arg for a in params.posonlyargs + params.args] if params else []
    found: dict[str, tuple[Any, int]] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name):
            continue
        given = [(positional[i], a) for i, a in enumerate(node.args) if i < len(positional)]
        if any(isinstance(a, ast.Starred) for a in node.args):
            given = []
        given += [(k.arg, k.value) for k in node.keywords if k.arg is not None]
        for param, value in given:
            try:
                found.setdefault(param, (ast.literal_eval(value), node.lineno))
            except (ValueError, TypeError, SyntaxError, RecursionError):
                continue
    return found


def infer(
    original_source: str,
    written: str,
    original_name: str,
    migrated_source: str,
    migrated_name: str,
    *,
    positional: int,
    given: set[str],
    seed: int,
) -> Inferred:
    """The arguments for what the migrated function requires beyond ``positional`` positional
    arguments and the keywords ``given`` (the user's, and those verify passes anyway).
    ``original_source`` is what the original side runs, ``written`` the text its call sites are
    read from (the same unless hand-built graphs were read as functions)."""
    try:
        original, migrated = pyparse.ast_parse(original_source), pyparse.ast_parse(migrated_source)
        call_sites = pyparse.ast_parse(written)
    except SyntaxError:
        return Inferred()  # loading reports it
    target = _definition(migrated, migrated_name.split(".")[-1])
    params = _parameters(target) if target is not None else None
    if params is None:
        return Inferred()
    pos_required, kw_required = required(params)
    missing = [p for p in pos_required[positional:] + kw_required if p not in given]
    if not missing:
        return Inferred()
    original_def = _definition(original, original_name.split(".")[-1])
    literals = _call_site_literals(
        call_sites, original_name.split(".")[-1], _parameters(original_def) if original_def else None
    )
    settings = {"batch_size": DEFAULT_BATCH_SIZE, "num_threads": 1, "seed": seed}
    values: dict[str, Any] = {}
    notes, still = [], []
    for p in missing:
        if p in literals:
            values[p], line = literals[p]
            notes.append(f"{p}={values[p]!r} from the original's call site (line {line})")
        elif p in settings:
            values[p] = settings[p]
            notes.append(f"{p}={values[p]!r}: verify's default (no call site gives a literal)")
        else:
            still.append(p)
    return Inferred(values, tuple(notes), tuple(still))
