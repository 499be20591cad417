"""``return`` statements that end ``if`` branches, moved to the end of their paths
(ndd_migrate.syntax.tail_returns): the same statements run on every path, each path ends in its
own ``return``, and what cannot be moved so is refused."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from ndd_migrate.syntax import tail_returns


def folded(source: str) -> str | None:
    function = cst.parse_module(textwrap.dedent(source)).body[0]
    body = tail_returns.single_exit(list(function.body.body))
    if body is None:
        return None
    assert tail_returns.is_tail_form(body)
    return cst.Module([]).code_for_node(function.with_changes(body=function.body.with_changes(body=body)))


def run(source: str, *args):
    scope: dict = {}
    exec(source, scope)  # noqa: S102 (our own test functions)
    return scope["f"](*args)


EARLY = """\
def f(a, b):
    x = [a]
    if a:
        x.append(1)
        if b:
            return x, "ab"
        return x, "a"
    elif b: return x, "b"
    x.append(2)
    return x
"""


def test_statements_after_an_if_go_into_its_branch_that_falls_through():
    out = folded(EARLY)
    assert out == (
        "def f(a, b):\n"
        "    x = [a]\n"
        "    if a:\n"
        "        x.append(1)\n"
        "        if b:\n"
        '            return x, "ab"\n'
        "        else:\n"
        '            return x, "a"\n'
        "    elif b:\n"
        '        return x, "b"\n'
        "    else:\n"
        "        x.append(2)\n"
        "        return x\n"
    )
    for a in (0, 1):
        for b in (0, 1):
            assert run(out, a, b) == run(EARLY, a, b)


def test_the_end_of_the_function_is_a_bare_return_where_it_is_reached():
    out = folded("def f(a):\n    if a:\n        return 1\n    a = 2\n")
    assert out == "def f(a):\n    if a:\n        return 1\n    else:\n        a = 2\n        return\n"


@pytest.mark.parametrize(
    "source",
    [
        "def f(a):\n    for i in a:\n        return i\n    return 0\n",
        "def f(a):\n    with a:\n        if a:\n            return 1\n    return 0\n",
        "def f(a):\n    try:\n        return a()\n    except ValueError:\n        pass\n    return 0\n",
        "def f(a):\n    return 1\n    a = 2\n",
        # the statements after the `if` would be copied into two branches
        "def f(a):\n    if a == 1:\n        return 1\n    elif a == 2:\n        a = 3\n    a += 1\n    return a\n",
    ],
    ids=["loop", "with", "try", "dead-code", "two-branches-fall-through"],
)
def test_what_cannot_be_moved_is_refused(source):
    assert folded(source) is None


def test_a_body_returning_once_at_its_end_or_never_is_left_alone():
    for source in ("def f(a):\n    a = 1\n    return a\n", "def f(a):\n    if a:\n        a = 1\n"):
        assert folded(source) == source


def test_map_tails_puts_a_statement_in_place_of_each_return_and_drops_an_empty_else():
    out = folded(EARLY)
    function = cst.parse_module(out).body[0]

    def tail(ret, line):
        if isinstance(ret.value, cst.Tuple) and cst.Module([]).code_for_node(ret.value.elements[1].value) == '"a"':
            return []
        return [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name("r"))], ret.value)])]

    body = tail_returns.map_tails(list(function.body.body), tail)
    code = cst.Module([]).code_for_node(function.with_changes(body=function.body.with_changes(body=body)))
    assert '            r = x, "ab"\n    elif b:' in code and "return" not in code
