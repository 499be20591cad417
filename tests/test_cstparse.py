"""A large module parsed in pieces (ndd_migrate/syntax/cstparse.py) is libcst's tree of the whole text.

Each test cuts the text into pieces far smaller than the engine would (down to one top-level
statement per piece) so that every boundary the cutter allows is exercised, and requires the
joined module to print the text byte for byte *and* to equal, node for node, libcst's own parse of
the whole text (``deep_equals``, which compares every field: whitespace, comments, the module's
``default_indent`` and ``default_newline``). Then the rules see the same tree either way; the last
tests check that too, on the fixtures and the whole programs: the same findings, the same output.
"""

from __future__ import annotations

import functools
import sys
import warnings
from pathlib import Path

import libcst as cst
import pytest

from ndd_migrate.engine.transform import transform
from ndd_migrate.io.policy import Policy
from ndd_migrate.syntax import cstparse
from tests.conftest import FIXTURES, ROOT

SOURCES = sorted(FIXTURES.glob("*/*.py")) + sorted((ROOT / "tests" / "programs").glob("*.py"))


def _pieces(source: str, chunk_bytes: int) -> list[str]:
    return cstparse._pieces(source, None, chunk_bytes) or [source]


@functools.lru_cache(maxsize=4)
def _whole(source: str) -> cst.Module:
    """libcst's own parse of the whole text: once per text, which each test cuts several ways (the
    tree is immutable)."""
    return cst.parse_module(source)


def _nodes(node: cst.CSTNode, out: list[int]) -> list[int]:
    out.append(id(node))
    for child in node.children:
        _nodes(child, out)
    return out


def assert_same_tree(source: str, chunk_bytes: int = 1) -> cst.Module:
    joined = cstparse.parse_module(source, chunk_bytes=chunk_bytes)
    assert joined.code == source
    whole = _whole(source)
    assert joined.deep_equals(whole)
    # `deep_equals` cannot see one node object in two places of the joined tree, which would
    # confuse the metadata providers (they key on node identity); libcst's own parse has none.
    found = _nodes(joined, [])
    assert len(found) == len(set(found)), "a node is shared between two places of the joined tree"
    assert (joined.default_indent, joined.default_newline, joined.has_trailing_newline, joined.encoding) == (
        whole.default_indent,
        whole.default_newline,
        whole.has_trailing_newline,
        whole.encoding,
    )
    return joined


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixtures_and_programs(path: Path) -> None:
    source = path.read_text()
    for chunk_bytes in (1, 200, 2000):
        assert_same_tree(source, chunk_bytes)


def test_pieces_are_cut() -> None:
    """The tests above would prove nothing if nothing were cut."""
    source = (FIXTURES / "image_classification" / "pipeline.py").read_text()
    pieces = _pieces(source, 1)
    assert len(pieces) > 5 and "".join(pieces) == source


#: Layouts around the boundaries, each parsed whole and in pieces.
LAYOUTS = {
    "indented comment after a block": "def f():\n    x = 1\n    # trailing\n\ny = 2\n# top\n\n\nz = 3\n",
    "whitespace-only line after a block": "def f():\n    x = 1\n    \ny = 2\nclass A:\n    pass\n\n\nw = 1\n",
    "tabs, first in a later piece": "x = 1\ny = 2\ndef f():\n\treturn 1\nz = 3\ndef g():\n\treturn 2\n",
    "two indentations": "def f():\n    return 1\nz = 3\ndef g():\n\treturn 2\n",
    "two-space indentation, first in a match": "match x:\n  case 1:\n    pass\ny = 1\ndef f():\n    pass\n",
    "indentation first in an elif": "if a: pass\nelif b:\n   c\nx = 1\ndef f():\n   pass\n",
    "one-line compound statements only": "if a: pass\nwhile b: c\nx = 1\nclass C: pass\n",
    "no trailing newline": "x = 1\ny = 2\nz = 3",
    "header, docstring and comments": (
        '#!/usr/bin/env python\n# c\n\n"""doc"""\nimport os\n\n# about f\ndef f():\n    pass\n\n\n'
        "# about g\n\n# more\ndef g(): pass\n"
    ),
    "backslash continuation": "x = 1 + \\\n    2\ny = 3\nz = 4 \\\n\nw = 5\n",
    "semicolons": "x = 1; y = 2\nz = 3;\nw = 4\n",
    "footer comments": "x = 1\ny = 2\n# end\n\n",
    "decorators and comments between them": "@dec\n# between\n@dec2\ndef f(): pass\n@dec\nclass C: pass\n",
    "line-break characters inside strings": 'x = """\nabc\n"""\ny = \'\x0b\x0c\x1c\x85\u2028\'\nz = 1\n',
    "strings across boundaries": 's = """\nx = 1\n"""\nt = (\n    1,\n)\nu = 2\n',
    "carriage returns": "x = 1\r\ny = 2\r\nz = 3\n",
    "form feed": "x = 1\n\x0c\ny = 2\nz = 3\n",
    "async and nested blocks": (
        "async def f():\n    async with a:\n        async for b in c:\n            await d\n"
        "try:\n    pass\nexcept* E:\n    pass\nfinally:\n    pass\n"
    ),
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_layouts(name: str) -> None:
    source = LAYOUTS[name]
    for chunk_bytes in (1, 3, 8, 20):
        assert_same_tree(source, chunk_bytes)


def test_large_generated_module_is_parsed_in_pieces() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from bench_large_files import generate
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    source = generate(200 * 1024)
    assert len(_pieces(source, cstparse.CHUNK_BYTES)) >= 10
    assert_same_tree(source, cstparse.CHUNK_BYTES)
    assert_same_tree(source, 1)


def test_syntax_errors_are_libcsts() -> None:
    """What ``ast`` refuses is parsed whole: libcst's own error, as before."""
    source = "x = 1\n" * 10 + "def f(:\n"
    with pytest.raises(cst.ParserSyntaxError) as joined:
        cstparse.parse_module(source, chunk_bytes=1)
    with pytest.raises(cst.ParserSyntaxError) as whole:
        cst.parse_module(source)
    assert str(joined.value) == str(whole.value)


hypothesis = pytest.importorskip("hypothesis")
hypothesmith = pytest.importorskip("hypothesmith")

from hypothesis import HealthCheck, given, settings  # noqa: E402

from tests.test_properties import PROFILE  # noqa: E402


def _parses(source: str) -> bool:
    """Both parsers accept it, and libcst prints it back (it does not, for some mixes of form feeds
    and carriage returns: then there is nothing to compare with)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, "<generated>", "exec", dont_inherit=True)
        return cst.parse_module(source).code == source
    except Exception:  # noqa: BLE001 - generated programs either tool may refuse
        return False


@settings(PROFILE, max_examples=max(PROFILE.max_examples, 40), suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_grammar(auto_target=False) | hypothesmith.from_node(auto_target=False))
def test_hypothesmith_programs(source: str) -> None:
    hypothesis.assume(_parses(source))
    for chunk_bytes in (1, 10):
        assert_same_tree(source, chunk_bytes)


# ------------------------------------------------------------------ the rules see the same tree


def _outcome(source: str, path: str, policy: Policy):
    result = transform(source, path, policy)
    assert result.error is None, result.error
    return result.new_source, [(d.code, d.line, d.column, d.message, d.fix) for d in result.diagnostics]


@pytest.mark.parametrize("path", SOURCES[::4], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_rules_same_on_pieces(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """End to end, on every fourth source: the tree tests above prove, for every source, the joined
    tree equal node for node and without a node in two places, which is all the rules see. ``migrate``
    resolves every provider and every conversion rule over the tree; ``check`` reads the same
    providers over the same parse, so one policy is the whole of what this adds."""
    source = path.read_text()
    policy = Policy.migrate()
    whole = _outcome(source, str(path), policy)
    with monkeypatch.context() as patch:
        patch.setattr(cstparse, "CHUNK_BYTES", 1)  # every boundary the cutter allows
        pieces = _outcome(source, str(path), policy)
    assert pieces == whole
