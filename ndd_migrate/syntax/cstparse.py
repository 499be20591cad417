"""libcst's ``parse_module``, in pieces for a large module: the same tree, in less time.

libcst's native parser costs more per byte the longer its input is: on the generated modules of
``benchmarks/bench_large_files.py`` a 1 MB module parses in about 1.5 times the time of its own
top-level statements parsed in runs of about 16 KB, and each doubling of the size costs it 2.2–2.3
times the time (docs/benchmarks.md). So a module of more than :data:`CHUNK_BYTES` twice over is
parsed as consecutive runs of whole top-level statements and the pieces are joined into one
:class:`libcst.Module`.

The joined tree is libcst's own tree of the whole text, node for node (``deep_equals``; tested on
the fixtures, the whole programs, generated large modules and hypothesmith's programs in
tests/test_cstparse.py), so every rule sees what it would have seen. That holds because a piece
begins only where the parser's state is the start of a file: at a line that starts a top-level
statement (CPython's ``ast`` gives the lines), with no bracket or backslash continuing into it. What
differs in a piece parsed alone is put back:

* a piece's leading blank and comment lines are the module's ``header`` when parsed alone, and the
  ``leading_lines`` of its first statement in the whole module: they are joined onto them;
* a piece between two others would end with the module's ``footer`` when parsed alone: a piece
  ends right after its last statement's last line, so there is none, and the lines between two
  statements go with the statement after them (a boundary is taken only where those lines are
  empty or comments at column 0: an indented comment after a block belongs to the block's
  ``footer`` in the whole module, so no piece starts there);
* ``default_indent`` and ``default_newline`` are detected per piece, and libcst leaves out of the
  nodes any indentation or line break equal to them: the pieces are joined only when every piece
  detected the same (the first indented piece's indentation, the first piece's line break), and
  otherwise the module is parsed whole. So is a module with a form feed, a carriage return or a
  line continuation at a boundary, and one ``ast`` cannot parse (libcst then gives its own error).
"""

from __future__ import annotations

import ast

import libcst as cst

from ndd_migrate.syntax import pyparse, tree

#: Pieces of about this many characters (whole top-level statements); a module shorter than twice
#: this is parsed whole. Per byte, libcst's parser is fastest on inputs of some tens of KB.
CHUNK_BYTES = 16 * 1024


def parse_module(source: str, tree: ast.Module | None = None, *, chunk_bytes: int | None = None) -> cst.Module:
    """``libcst.parse_module(source)``: the same tree (and the same errors), parsed in pieces when
    ``source`` is large. ``tree`` is CPython's tree of ``source`` when the caller has it;
    ``chunk_bytes`` overrides :data:`CHUNK_BYTES` (tests)."""
    chunk_bytes = chunk_bytes or CHUNK_BYTES
    if len(source) < 2 * chunk_bytes or "\r" in source or "\f" in source:
        return cst.parse_module(source)
    pieces = _pieces(source, tree, chunk_bytes)
    if pieces is None or len(pieces) < 2:
        return cst.parse_module(source)
    modules = [cst.parse_module(piece) for piece in pieces]
    joined = _join(modules)
    return joined if joined is not None else cst.parse_module(source)


def _pieces(source: str, tree: ast.Module | None, chunk_bytes: int) -> list[str] | None:
    """``source`` cut into runs of whole top-level statements of about ``chunk_bytes`` characters,
    cut only where a piece may start (see the module's docstring); None when ``ast`` refuses it."""
    if tree is None:
        try:
            tree = pyparse.ast_parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
    lines = [line + "\n" for line in source.split("\n")]  # not splitlines(): "\v", "\x85"... are no breaks here
    lines[-1] = lines[-1][:-1]
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    body = tree.body
    pieces, start = [], 0  # start: the line index (0-based) where the current piece begins
    for before, stmt in zip(body, body[1:]):
        if offsets[before.end_lineno] - offsets[start] < chunk_bytes:
            continue
        cut = before.end_lineno  # 0-based index of the first line after `before`
        first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))]) - 1
        if first < cut or not _may_start_piece(lines, cut, first):
            continue
        pieces.append(source[offsets[start] : offsets[cut]])
        start = cut
    pieces.append(source[offsets[start] :])
    return pieces


def _may_start_piece(lines: list[str], cut: int, first: int) -> bool:
    """May a piece start at line ``cut`` (0-based), the statement after it starting at ``first``?
    Only if the line before does not continue into it, the lines between are empty or comments at
    column 0, and the statement starts at column 0."""
    previous = lines[cut - 1]
    if not previous.endswith("\n") or previous.rstrip("\n").endswith("\\"):
        return False
    for line in lines[cut:first]:
        if line != "\n" and not line.startswith("#"):
            return False
    return not lines[first][:1].isspace()


def _join(modules: list[cst.Module]) -> cst.Module | None:
    """One module of the pieces' statements, or None when the pieces detected different
    indentation or line breaks (their nodes would then not be the whole module's)."""
    newline = modules[0].default_newline
    indents = {m.default_indent for m in modules if _indented(m)}
    if len(indents) > 1 or any(m.default_newline != newline for m in modules):
        return None
    body = list(modules[0].body)
    if any(not m.body or m.footer for m in modules[:-1]) or not modules[-1].body:
        return None
    for module in modules[1:]:
        first = module.body[0]
        if module.header:
            first = first.with_changes(leading_lines=[*module.header, *first.leading_lines])
        body.append(first)
        body.extend(module.body[1:])
    last = modules[-1]
    return modules[0].with_changes(
        body=body,
        footer=last.footer,
        has_trailing_newline=last.has_trailing_newline,
        default_indent=indents.pop() if indents else modules[0].default_indent,
    )


def _indented(module: cst.Module) -> bool:
    """Is anything in the module indented, so that libcst detected its default indentation? Only
    a top-level compound statement can be, in one of its own clauses (a ``match`` always is)."""
    return any(_has_indented_block(stmt) for stmt in module.body if isinstance(stmt, cst.BaseCompoundStatement))


_CLAUSES = (cst.Else, cst.ExceptHandler, cst.ExceptStarHandler, cst.Finally, cst.If)


def _has_indented_block(node: cst.CSTNode) -> bool:
    if isinstance(node, cst.Match):
        return True
    for child in tree.children(node):
        if isinstance(child, cst.IndentedBlock) or isinstance(child, _CLAUSES) and _has_indented_block(child):
            return True
    return False
