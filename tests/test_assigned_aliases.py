"""DALI bound to a name by assignment (`fn = dali.fn`): the migration resolves DALI names through
imports, so calls through such a name would stay pipeline-mode calls inside a converted generator
(a program that breaks with exit 0). Every pipeline of the module stays, with the reason."""

from __future__ import annotations

import re

import pytest

from tests.conftest import migrate_text

TODO = re.compile(r"^[ \t]*# TODO\(ndd-migrate\): .*\n(?:[ \t]*#   .*\n)*", re.MULTILINE)
BODY = (
    "@pipeline_def(batch_size=2)\n"
    "def p(root):\n"
    "    jpegs, labels = fn.readers.file(file_root=root)\n"
    "    return decode(jpegs), labels\n"
)


@pytest.mark.parametrize(
    "head",
    [
        "import nvidia.dali as dali\nfrom nvidia.dali import pipeline_def\n\nfn = dali.fn\ndecode = fn.decoders.image\n",
        "import nvidia.dali.fn as fn\nfrom nvidia.dali import pipeline_def\n\ndecode = fn.decoders.image\n",
    ],
    ids=["a module", "an operator"],
)
def test_dali_bound_by_assignment_keeps_the_pipeline(head):
    source = head + "\n\n" + BODY
    text, result = migrate_text(source)
    assert TODO.sub("", text) == source, text
    (finding,) = [d for d in result.diagnostics if d.needs_human]
    assert finding.code == "NDD001" and "binds DALI by assignment" in finding.message


def test_a_dali_constant_bound_by_assignment_is_no_alias():
    source = (
        "import nvidia.dali.fn as fn\nimport nvidia.dali.types as types\nfrom nvidia.dali import pipeline_def\n\n"
        "FLOAT = types.FLOAT\n\n\n"
        "@pipeline_def(batch_size=2)\n"
        "def p(root):\n"
        "    jpegs, labels = fn.readers.file(file_root=root)\n"
        "    return fn.cast(fn.decoders.image(jpegs), dtype=FLOAT), labels\n"
    )
    text, result = migrate_text(source)
    assert "@pipeline_def" not in text and not [d for d in result.diagnostics if d.needs_human], text
