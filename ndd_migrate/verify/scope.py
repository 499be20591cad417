"""What a run does not prove: the uses of a migrated function outside its own body.

``verify`` drives the migrated generator itself (``next(g)`` N times), so the code that calls it
in the program — ``g = train_pipe(...)`` in ``main()``, a training loop reading its batches, an
iterator wrapper — is not exercised, though the migration rewrote it too. The report lists those
lines so that EQUAL is read as what it is: the pipeline function is equivalent.
"""

from __future__ import annotations

import ast

from ndd_migrate.syntax import pyparse


def uses_outside(source: str, path: str, function: str, limit: int = 20) -> list[str]:
    """``path:line: code`` for each line outside ``def function`` that names ``function``."""
    try:
        tree = pyparse.ast_parse(source)
    except SyntaxError:
        return []
    lines = source.splitlines()
    inside: list[tuple[int, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            inside.append((node.lineno, node.end_lineno or node.lineno))
    found: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == function and isinstance(node.ctx, ast.Load):
            line = node.lineno
        elif isinstance(node, ast.Attribute) and node.attr == function:
            line = node.lineno
        else:
            continue
        if any(a <= line <= b for a, b in inside) or line in found:
            continue
        found.append(line)
    found.sort()
    out = [f"{path}:{n}: {lines[n - 1].strip()}" for n in found[:limit]]
    if len(found) > limit:
        out.append(f"... and {len(found) - limit} more")
    return out
