"""CPython's verdict on a source text, asked before libcst sees it.

A file CPython refuses cannot run, so there is nothing to migrate: its error is CPython's own
message at its line. Asking CPython first also keeps libcst away from input it is not safe on:
its native parser overflows its stack (the process dies, no exception) on brackets nested about
1500 deep, which CPython refuses past 200. Python's parser itself raises ``RecursionError`` or
``MemoryError`` rather than ``SyntaxError`` on some deep nesting (a sum of thousands of terms,
thousands of ``lambda:``); those become a per-file error too.

Parsing is not all: a module-level ``nonlocal``, a ``return`` or ``break`` outside its block, a
duplicate parameter name are refused by CPython's compiler, after parsing. So the tree is also
compiled (a few percent of what libcst costs for the same text). In a notebook, top-level
``await`` is allowed, as IPython allows it.
"""

from __future__ import annotations

import ast
import io
import threading
import tokenize
import warnings

#: One line of an error message at most this long (a message never embeds a dump of code).
MAX_MESSAGE = 200


#: Nesting of brackets and blocks this deep counts as the place where a file nests too deeply.
DEEP = 50


#: CPython 3.11 (up to 3.11.7 at least) keeps the depth counter of its conversion between trees
#: and ``ast`` objects in one place per interpreter: two threads converting at once (``verify``
#: jobs in a thread pool) corrupt it, and the conversion then fails with ``SystemError: AST
#: constructor recursion depth mismatch``. Every such conversion of the package holds this lock
#: (never contended within one run, so it costs nothing).
AST_LOCK = threading.RLock()


def ast_parse(source: str, filename: str = "<unknown>", mode: str = "exec") -> ast.AST:
    """``ast.parse``, under :data:`AST_LOCK`; the ``SyntaxWarning``s of the user's code (``x is 'gpu'``,
    an invalid escape) are not ours to print: they went into the output of a run."""
    with AST_LOCK, warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        return ast.parse(source, filename, mode)


def compile_tree(tree: ast.AST, filename: str, mode: str = "exec", **options):
    """``compile`` of an ``ast`` tree, under :data:`AST_LOCK`, without the code's ``SyntaxWarning``s."""
    with AST_LOCK, warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        return compile(tree, filename, mode, **options)


class Refused(Exception):
    """CPython refuses the text: ``message`` (one short line) at ``line`` (or None)."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def parse(source: str, *, notebook: bool = False) -> ast.Module:
    """The stdlib tree of ``source``, checked by CPython's compiler; :class:`Refused` when
    CPython would not run it."""
    if "\0" in source:
        raise Refused("cannot parse: the file contains a NUL byte, which Python refuses", _line_of(source, "\0"))
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT if notebook else 0
    try:
        with warnings.catch_warnings():  # the user's `SyntaxWarning`s are not ours to print
            warnings.simplefilter("ignore")
            tree = ast_parse(source)
            compile_tree(tree, "<ndd-migrate>", "exec", flags=flags, dont_inherit=True)
    except SyntaxError as exc:
        raise Refused(f"cannot parse: {one_line(exc.msg)}", exc.lineno) from None
    except (RecursionError, MemoryError):
        raise Refused("cannot parse: nested too deeply for Python's parser", deepest_line(source)) from None
    return tree


def one_line(text: str, limit: int = MAX_MESSAGE) -> str:
    """The first line of ``text``, cut to ``limit`` characters."""
    first = text.strip().split("\n", 1)[0].strip() if text else ""
    return first if len(first) <= limit else first[: limit - 1] + "…"


def deepest_line(source: str) -> int | None:
    """The line where brackets and blocks nest deepest, when they nest deep (at least
    :data:`DEEP`), else the longest line (a long chain of operators, ``lambda:``, ...)."""
    best, best_line, depth, indent = -1, None, 0, 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.OP and token.string in "([{":
                depth += 1
            elif token.type == tokenize.OP and token.string in ")]}":
                depth -= 1
            elif token.type == tokenize.INDENT:
                indent += 1
            elif token.type == tokenize.DEDENT:
                indent -= 1
            if depth + indent > best:
                best, best_line = depth + indent, token.start[0]
    except (tokenize.TokenError, SyntaxError, RecursionError, MemoryError):
        pass
    if best >= DEEP:
        return best_line
    lines = source.split("\n")
    return max(range(len(lines)), key=lambda i: len(lines[i])) + 1 if lines else None


def _line_of(source: str, text: str) -> int:
    return source.count("\n", 0, source.index(text)) + 1
