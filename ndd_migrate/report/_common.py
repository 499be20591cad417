"""What every output format needs: stable ordering, display paths, rule metadata and counts.

Kept free of heavy imports: a clean pre-commit run renders a summary line and must not pay for the
rule catalogue (which imports every rule module). Rule metadata is therefore looked up lazily, only
for codes that actually have findings.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ndd_migrate.io.diagnostics import Diagnostic, FileError, FileResult, FixSafety

#: The documentation, and the rule reference in it (``docs/rules.md``). The single place to change
#: when the documentation moves.
DOCS_URL = "https://ndd-migrate.readthedocs.io/en/latest/"
RULES_DOCS_URL = DOCS_URL + "rules/"

#: Returns a rule's metadata (a :class:`ndd_migrate.engine.catalog.Rule`) or ``None`` for an unknown code.
RuleLookup = Callable[[str], object]


def rule_url(code: str, name: str) -> str:
    """The rule's section in the rule reference. Its heading is ``## NDD103 `mixed-device```
    (:mod:`ndd_migrate.docs`), which GitHub and MkDocs both turn into ``#ndd103-mixed-device``."""
    slug = re.sub(r"[^a-z0-9]+", "-", f"{code} {name}".lower()).strip("-")
    return f"{RULES_DOCS_URL}#{slug}"


def catalog_lookup(code: str):
    """The default lookup: the rule catalogue, imported only when a finding needs it."""
    from ndd_migrate.engine.catalog import get_rule

    return get_rule(code)


class RuleInfo:
    """Memoised rule lookups for one render, so each code hits the catalogue once."""

    def __init__(self, lookup: RuleLookup | None = None) -> None:
        self._lookup = lookup or catalog_lookup
        self._cache: dict[str, object | None] = {}

    def get(self, code: str):
        if code not in self._cache:
            self._cache[code] = self._lookup(code)
        return self._cache[code]

    def name(self, code: str) -> str | None:
        rule = self.get(code)
        return getattr(rule, "name", None) if rule is not None else None


@dataclass(frozen=True)
class Options:
    """Render options shared by all formats."""

    root: Path
    rules: RuleInfo
    unsafe_fixes: bool = False


def display_path(path: str, root: Path) -> str:
    """:func:`relative_path`, printable: a name that is not UTF-8 (its undecodable bytes are
    surrogates in ``path``, as ``os.fsdecode`` gives them) shows those bytes as ``\\xff``, since
    no stream and no JSON document can carry a lone surrogate."""
    return printable(relative_path(path, root))


def printable(path: str) -> str:
    """``path`` with the bytes of a name that is not UTF-8 written ``\\xNN``."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(path).decode("utf-8", "backslashreplace")
    return path


def relative_path(path: str, root: Path) -> str:
    """``path`` relative to ``root`` when it lies inside it, else as given.

    Relative paths are taken relative to the current directory (as the OS does). ``abspath`` rather
    than ``resolve`` so a symlinked checkout is shown by the name the user gave it.
    """
    absolute = os.path.abspath(path)
    base = os.path.abspath(root)
    try:
        rel = os.path.relpath(absolute, base)
    except ValueError:  # another drive on Windows
        return path
    if rel == os.curdir or rel.startswith(os.pardir + os.sep) or rel == os.pardir:
        return path
    return rel


def posix_path(path: str) -> str:
    return path.replace(os.sep, "/") if os.sep != "/" else path


def sorted_results(results: Iterable[FileResult], root: Path) -> list[FileResult]:
    """The results with something to show (findings or an error), in the order of their shown
    paths. A run over a tree has a result for every file, nearly all of them empty."""
    return sorted(
        (r for r in results if r.diagnostics or r.error is not None), key=lambda r: display_path(r.path, root)
    )


def sorted_diagnostics(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    return sorted(diagnostics, key=lambda d: (d.cell or 0, d.line, d.column, d.code, d.message))


def remaining(results: Iterable[FileResult], root: Path) -> Iterator[Diagnostic]:
    """Findings still in the code (not fixed by this run), in output order.

    Text and annotation formats show only these: a fixed finding needs no one's attention.
    """
    for result in sorted_results(results, root):
        for diagnostic in sorted_diagnostics(result.diagnostics):
            if not diagnostic.fixed:
                yield diagnostic


def file_errors(results: Iterable[FileResult], root: Path) -> list[FileError]:
    return [r.error for r in sorted_results(results, root) if r.error is not None]


def is_fixable(diagnostic: Diagnostic, unsafe_fixes: bool) -> bool:
    """Whether ``check --fix`` (with ``--unsafe-fixes`` when given) would fix this finding."""
    if diagnostic.fixed:
        return False
    return diagnostic.fix is FixSafety.SAFE or (unsafe_fixes and diagnostic.fix is FixSafety.UNSAFE)


def indent_continuation(text: str) -> str:
    """Indent every line of a multi-line message after the first, so that in line-oriented output
    only a finding's first line starts at column 0 (``grep``/editors jump to ``path:line:col``)."""
    return "\n  ".join(text.splitlines()) if "\n" in text or "\r" in text else text


def plural(n: int, word: str, words: str | None = None) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {words or word + 's'}"
