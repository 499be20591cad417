"""Every block of every compound statement kind (ndd_migrate/syntax/cstutil.blocks), in source
order: the walk that read ``.body`` of each statement stopped on ``match`` with an internal error."""

from __future__ import annotations

import libcst as cst
import pytest

from ndd_migrate.syntax.cstutil import blocks

CASES = {
    "if": ("if a:\n    x = 1\nelif b:\n    x = 2\nelse:\n    x = 3\n", ["x = 1", "x = 2", "x = 3"]),
    "for": ("for i in a:\n    x = 1\nelse:\n    x = 2\n", ["x = 1", "x = 2"]),
    "while": ("while a:\n    x = 1\nelse:\n    x = 2\n", ["x = 1", "x = 2"]),
    "try": (
        "try:\n    x = 1\nexcept E:\n    x = 2\nelse:\n    x = 3\nfinally:\n    x = 4\n",
        ["x = 1", "x = 2", "x = 3", "x = 4"],
    ),
    "try-star": ("try:\n    x = 1\nexcept* E:\n    x = 2\n", ["x = 1", "x = 2"]),
    "with": ("with a as b:\n    x = 1\n", ["x = 1"]),
    "match": ("match a:\n    case 1:\n        x = 1\n    case _ if b:\n        x = 2\n", ["x = 1", "x = 2"]),
    "def": ("async def f():\n    x = 1\n", ["x = 1"]),
    "class": ("class C:\n    x = 1\n", ["x = 1"]),
    "one-line": ("if a: x = 1\n", ["x = 1"]),
}


@pytest.mark.parametrize("kind", sorted(CASES))
def test_every_block_of_a_compound_statement_in_source_order(kind):
    source, expected = CASES[kind]
    stmt = cst.parse_module(source).body[0]
    code = [cst.Module([]).code_for_node(block).strip() for block in blocks(stmt)]
    assert code == expected


def test_a_simple_statement_has_no_block():
    assert list(blocks(cst.parse_statement("x = [y for y in z]\n"))) == []


def test_a_class_in_a_match_case_is_found_by_the_iterator_analysis():
    from tests.conftest import migrate_text

    source = (
        "from nvidia.dali.plugin.pytorch import DALIGenericIterator\n"
        "match mode:\n"
        '    case "train":\n'
        "        class Loader(DALIGenericIterator):\n"
        "            pass\n"
    )
    _, result = migrate_text(source)
    assert any(d.code == "NDD411" for d in result.diagnostics), result.diagnostics
