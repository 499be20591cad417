"""``# noqa``: which comments count, which lines they cover, and that clean files pay nothing."""

from __future__ import annotations

import re
import textwrap
import tokenize

import pytest

from ndd_migrate.io import noqa
from ndd_migrate.io.noqa import ALL, noqa_lines, parse_directive, suppressor


def lines(src: str) -> dict:
    return noqa_lines(textwrap.dedent(src))


@pytest.mark.parametrize(
    ("comment", "expected"),
    [
        ("# noqa", ALL),
        ("#noqa", ALL),
        ("# NOQA", ALL),
        ("# NoQa", ALL),
        ("# noqa because the reader is shared", ALL),
        ("# noqa: NDD002", frozenset({"NDD002"})),
        ("#noqa:NDD002", frozenset({"NDD002"})),
        ("# NOQA : NDD002,NDD101", frozenset({"NDD002", "NDD101"})),
        ("# noqa: NDD002, NDD101 NDD103", frozenset({"NDD002", "NDD101", "NDD103"})),
        ("# noqa: NDD103 keeps the old reader", frozenset({"NDD103"})),
        ("# noqa: E501, NDD103", frozenset({"E501", "NDD103"})),
        ("# type: ignore  # noqa: NDD103", frozenset({"NDD103"})),
        ("# noqa:", None),  # not a blanket noqa: it suppresses nothing
        ("# noqa: ndd103", None),  # codes are exact, upper case
        ("# noqa: because", None),
        ("# noqalike", None),
        ("# this is not noqa", None),
        ("# nothing here", None),
    ],
)
def test_parse_directive(comment, expected):
    assert parse_directive(comment) == expected


def test_only_real_comments_count():
    src = '''\
        a = "# noqa"
        b = 'x  # noqa: NDD103'
        c = f"{a}  # noqa"
        d = """
        # noqa
        """
        e = 1  # noqa: NDD103
        '''
    assert lines(src) == {7: frozenset({"NDD103"})}


def test_multi_line_string_is_covered_by_its_last_line():
    src = '''\
        x = 1
        doc = """first
        second
        third"""  # noqa: NDD101
        y = 2
        '''
    assert lines(src) == {2: {"NDD101"}, 3: {"NDD101"}, 4: {"NDD101"}}


def test_multi_line_fstring_is_covered_by_its_last_line():
    src = '''\
        msg = f"""{a}
        {b}"""  # noqa
        '''
    assert lines(src) == {1: ALL, 2: ALL}


def test_backslash_continuation_is_one_line():
    src = """\
        x = fn.resize(a) + \\
            fn.crop(b) + \\
            fn.flip(c)  # noqa: NDD103
        y = 1  # noqa
        """
    assert lines(src) == {1: {"NDD103"}, 2: {"NDD103"}, 3: {"NDD103"}, 4: ALL}


def test_bracketed_statement_lines_are_separate():
    """As in ruff: inside brackets a comment can sit on any line, so it covers only its own."""
    src = """\
        out = fn.resize(  # noqa: NDD103
            images,
            size=224,  # noqa: NDD104
        )
        """
    assert lines(src) == {1: {"NDD103"}, 3: {"NDD104"}}


def test_codes_on_one_line_merge():
    src = '''\
        s = """a
        b"""  # noqa: NDD1
        '''
    assert lines(src)[1] == {"NDD1"}
    src2 = 's = """a\nb""" + \\\n  t  # noqa: NDD2\n'
    assert noqa_lines(src2) == {1: {"NDD2"}, 2: {"NDD2"}, 3: {"NDD2"}}


def test_no_noqa_means_no_tokenizing(monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("tokenized a file without noqa")

    monkeypatch.setattr(tokenize, "generate_tokens", fail)
    big = "import nvidia.dali.fn as fn\nx = fn.resize(y)\n" * 10_000
    assert noqa_lines(big) == {}
    assert not suppressor(big)("NDD103", 2)


def test_untokenizable_source_falls_back_to_a_line_scan():
    src = "x = fn.resize(  # noqa: NDD103\n"  # unclosed bracket: tokenize fails at EOF
    with pytest.raises(tokenize.TokenError):
        list(tokenize.generate_tokens(iter([src]).__next__))
    assert noqa_lines(src) == {1: {"NDD103"}}


@pytest.mark.parametrize(
    ("code", "line", "expected"),
    [
        ("NDD103", 1, True),
        ("NDD104", 1, False),
        ("NDD103", 2, True),  # blanket
        ("NDD103", 3, False),
        ("NDD1034", 4, False),  # exact, not prefix
        ("NDD103", 4, False),
    ],
)
def test_is_suppressed(code, line, expected):
    suppressed = suppressor("a = 1  # noqa: NDD103\nb = 2  # noqa\nc = 3\nd = 4  # noqa: NDD10\n")
    assert suppressed(code, line) is expected


def test_all_is_a_distinct_sentinel():
    assert noqa.ALL is ALL and repr(ALL) == "ALL"
    assert ALL != frozenset() and not isinstance(ALL, frozenset)


@pytest.mark.parametrize(
    ("comment", "expected"),
    [
        ("# ndd-migrate: noqa", ALL),
        ("#ndd-migrate:noqa", ALL),
        ("# ndd-migrate: NOQA", ALL),
        ("# ndd-migrate: noqa: NDD001, NDD008", frozenset({"NDD001", "NDD008"})),
        ("# ndd-migrate: noqa:", None),
        ("# ruff: noqa", None),
    ],
)
def test_a_file_level_directive_covers_every_line(comment, expected):
    """As ruff's `# ruff: noqa`: anywhere in the file, on a line of its own or not; it is not a
    line-level directive of the line it is on."""
    src = f'"""Doc."""\n{comment}\nimport os\nx = 1  # noqa: NDD101\n'
    found = noqa_lines(src)
    assert found.get(noqa.FILE) == expected
    suppressed = suppressor(src)
    for line in (1, 3, 40):
        assert suppressed("NDD008", line) is (expected is not None and (expected is ALL or "NDD008" in expected))
    assert suppressed("NDD101", 4) and (2 not in found)


def test_a_file_level_directive_exempts_the_file_from_migrate_and_check(cli, tmp_path):
    """The whole file is left as it is, and `check` finds nothing in it; with codes, only those."""
    source = (
        "# ndd-migrate: noqa\nfrom nvidia.dali import fn, pipeline_def\n\n\n@pipeline_def(batch_size=2)\n"
        "def p():\n    return fn.random.uniform(range=[0, 1])\n\n\npipe = p()\npipe.build()\nprint(pipe.run())\n"
    )
    path = tmp_path / "loader.py"
    path.write_text(source)
    assert cli("check", "--no-cache", path).exit_code == 0
    assert cli("migrate", path).exit_code == 0 and path.read_text() == source
    path.write_text(source.replace("# ndd-migrate: noqa\n", "# ndd-migrate: noqa: NDD002\n"))
    found = cli("check", "--no-cache", "--output-format", "concise", path)
    codes = set(re.findall(r":\d+:\d+: (NDD\d+) ", found.stdout))
    assert found.exit_code == 1 and codes and "NDD002" not in codes, found.stdout


def test_with_directives_adds_merges_and_leaves_blankets():
    text = 'x = 1\ny = 2  # keep\nz = 3  # noqa: E501\nw = """a\nb"""\nv = 4  # noqa\nu = 5  # noqa:\n'
    new, added = noqa.with_directives(
        text, {1: {"NDD101"}, 2: {"NDD008", "NDD001"}, 3: {"NDD103"}, 4: {"NDD110"}, 6: {"NDD102"}, 7: {"NDD104"}}
    )
    assert new == (
        "x = 1  # noqa: NDD101\ny = 2  # keep  # noqa: NDD001, NDD008\nz = 3  # noqa: E501, NDD103\n"
        'w = """a\nb"""  # noqa: NDD110\nv = 4  # noqa\nu = 5  # noqa: NDD104\n'
    )
    assert added == 5 and noqa.with_directives(new, {1: {"NDD101"}}) == (new, 0)


def test_add_noqa_silences_every_finding_and_a_second_run_adds_nothing(cli, tmp_path):
    """As ruff's `--add-noqa`: after it, `check` passes; it runs until nothing is new (a suppressed
    rewrite reports at its pipeline), and says how many it added. Standard input is refused."""
    source = (
        "from nvidia.dali import fn, pipeline_def\n\n\n@pipeline_def(batch_size=2)\n"
        "def p():\n    return fn.random.uniform(range=[0, 1])\n\n\npipe = p()\npipe.build()\nprint(pipe.run())\n"
    )
    path = tmp_path / "loader.py"
    path.write_text(source)
    first = cli("check", "--add-noqa", path)
    assert first.exit_code == 0 and "noqa directives." in first.stderr and path.read_text() != source
    assert "def p():  # noqa: NDD001\n" in path.read_text()
    assert cli("check", "--no-cache", path).exit_code == 0
    again = cli("check", "--add-noqa", path)
    assert again.exit_code == 0 and "Added 0 noqa directives." in again.stderr
    assert cli("check", "--add-noqa", "-").exit_code == 2


def test_add_noqa_keeps_crlf_and_the_encoding_and_leaves_an_unparsable_file_untouched(cli, tmp_path):
    body = (
        "from nvidia.dali import fn, pipeline_def\n\n\n@pipeline_def(batch_size=2)\n"
        "def p():\n    return fn.random.uniform(range=[0, 1])\n\n\npipe = p()\npipe.build()\nprint(pipe.run())\n"
    )
    crlf = tmp_path / "crlf.py"
    crlf.write_bytes(body.replace("\n", "\r\n").encode())
    latin = tmp_path / "latin.py"
    latin.write_bytes(("# -*- coding: latin-1 -*-\n# café\n" + body).encode("latin-1"))
    bad = tmp_path / "bad.py"
    bad.write_bytes(b"from nvidia.dali import fn\ndef f(:\n")
    done = cli("check", "--add-noqa", tmp_path)
    assert done.exit_code == 2 and bad.read_bytes() == b"from nvidia.dali import fn\ndef f(:\n"
    data = crlf.read_bytes()
    assert b"noqa" in data and data.count(b"\r\n") == data.count(b"\n")
    assert "# café\n" in latin.read_bytes().decode("latin-1") and b"noqa" in latin.read_bytes()
