"""Continuation lines the user aligned under a bracket stay under it after the rewrite
(ndd_migrate/codegen/visual_indent.py)."""

from __future__ import annotations

from ndd_migrate.codegen.visual_indent import realign
from tests.conftest import migrate_text

PIPELINE = """\
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def p(root):
    jpegs, labels = fn.readers.file(file_root=root,
                                    random_shuffle=False)
    images = fn.decoders.image(jpegs, device="cpu",
                               output_type=types.RGB)
    images = fn.resize(images, resize_x=8,
                       resize_y=8)
    return images, labels
"""


def columns_under_brackets(text: str) -> list[bool]:
    """For each line that continues a call opened on the line before it: is it under the bracket?"""
    lines = text.split("\n")
    found = []
    for above, line in zip(lines, lines[1:]):
        if above.rstrip().endswith(",") and "(" in above and not above.strip().endswith("("):
            found.append(line.index(line.strip()) == above.index("(") + 1)
    return found


def test_a_migrated_pipeline_keeps_its_arguments_under_the_brackets():
    out, _ = migrate_text(PIPELINE)
    assert "ndd.decoders.image(jpegs" in out
    assert "    reader = ndd.readers.File(file_root=root,\n                              random_shuffle=False)\n" in out
    assert (
        '            images = ndd.decoders.image(jpegs, device="cpu",\n'
        "                                        output_type=types.RGB)\n"
    ) in out
    assert "            images = ndd.resize(images, resize_x=8,\n                                resize_y=8)\n" in out
    assert columns_under_brackets(out) and all(columns_under_brackets(out))


def test_a_line_the_rules_appended_follows_the_users_lines():
    original = "x = fn.op(a,\n          b)\n"
    rewritten = "x = ndd.op(a,\n          b,\n          rng=rng)\n"
    assert realign(rewritten, original) == "x = ndd.op(a,\n           b,\n           rng=rng)\n"


def test_brackets_on_a_moved_line_move_the_lines_under_them():
    original = "x = fn.op(a, f(b,\n               c),\n          d)\n"
    rewritten = "x = ndd.op(a, f(b,\n               c),\n          d)\n"
    assert realign(rewritten, original) == "x = ndd.op(a, f(b,\n                c),\n           d)\n"


def test_a_moved_statement_is_aligned_at_its_new_depth():
    original = "def p():\n    x = fn.op(a,\n              b)\n"
    rewritten = "def p():\n    while True:\n        x = ndd.op(a,\n              b)\n"
    assert realign(rewritten, original).endswith("        x = ndd.op(a,\n                   b)\n")


def test_what_the_user_did_not_align_is_left_as_it_is():
    cases = [
        ("x = fn.op(\n    a,\n    b,\n)\n", "x = ndd.op(\n    a,\n    b,\n)\n"),  # hanging indent
        ("x = fn.op(a,\n      b)\n", "x = ndd.op(a,\n      b)\n"),  # not under the bracket
        ("x = fn.op(a,\n\tb)\n", "x = ndd.op(a,\n\tb)\n"),  # a tab
        ('x = fn.op("""a\n          b""")\n', 'x = ndd.op("""a\n          b""")\n'),  # inside a string
    ]
    for original, rewritten in cases:
        assert realign(rewritten, original) == rewritten


def test_a_line_the_original_holds_both_aligned_and_not_is_left_as_it_is():
    original = "x = fn.op(a,\n          b)\ny = fn.op(a,\n     b)\n"
    rewritten = "x = ndd.op(a,\n          b)\ny = ndd.op(a,\n     b)\n"
    assert realign(rewritten, original) == rewritten


def test_code_that_does_not_tokenize_is_returned_as_it_is():
    assert realign("x = (\n", "x = fn.op(a,\n          b)\n") == "x = (\n"


def test_windows_newlines_are_kept_and_lines_aligned():
    original = "x = fn.op(a,\r\n          b)\r\n"
    rewritten = "x = ndd.op(a,\r\n          b)\r\n"
    assert realign(rewritten, original) == "x = ndd.op(a,\r\n           b)\r\n"
