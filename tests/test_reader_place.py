"""A reader the generator cannot create once, before its loop: one TODO, at the reader call, saying
where the call is (a block, a nested function, an expression) and what to do."""

from __future__ import annotations

import pytest

from tests.conftest import migrate_text

HEADER = "from nvidia.dali import pipeline_def, fn\n\n\n@pipeline_def(batch_size=2)\n"


def _todos(out: str) -> list[tuple[int, str]]:
    return [(n, line.strip()) for n, line in enumerate(out.splitlines(), 1) if "TODO(ndd-migrate)" in line]


@pytest.mark.parametrize(
    "body, reason, hint",
    [
        (
            "    if flag:\n        data, = fn.readers.numpy(file_root='a')\n    else:\n        data = fn.zeros(shape=[1])\n",
            "a reader called inside an `if` cannot be created once, before the batch loop",
            "call the reader at the top of the function, outside any block",
        ),
        (  # beside a reader at the top: the reason is the second reader, not where it is
            "    data, = fn.readers.numpy(file_root='a')\n    if flag:\n        more, = fn.readers.numpy(file_root='b')\n"
            "        data = data + more\n",
            "a second reader, called inside an `if` beside the one at the top of the function: decide how their epochs",
            "one loop over both readers' epochs",
        ),
        (
            "    for _ in range(2):\n        data, = fn.readers.numpy(file_root='a')\n",
            "a reader called inside a `for` loop cannot be created once",
            "outside any block",
        ),
        (
            "    data = fn.cast(fn.readers.numpy(file_root='a'), dtype=1)\n",
            "a reader called inside an expression cannot be created once",
            "assign its outputs in a statement of its own",
        ),
        (  # the helper's value is returned: reported once, naming the helper
            "    def read():\n        return fn.readers.numpy(file_root='a')\n    data = read()\n",
            "`read` creates a reader: called for every batch",
            "create the reader in the pipeline function",
        ),
        (
            "    def read():\n        return fn.readers.numpy(file_root='a')\n    read()\n    data = fn.zeros(shape=[1])\n",
            "a reader called in a function nested in the pipeline function",
            "create the reader in the pipeline function",
        ),
    ],
)
def test_the_todo_says_where_the_reader_is(body, reason, hint):
    source = f"{HEADER}def p(flag=True):\n{body}    return data\n"
    out, result = migrate_text(source)
    assert "@pipeline_def" in out, "the pipeline must stay"
    found = _todos(out)
    assert len(found) == 1, found
    line, todo = found[0]
    assert reason in todo and hint in todo, todo
    assert "fn.readers.numpy" in out.splitlines()[line], "the TODO stands above the reader call"
