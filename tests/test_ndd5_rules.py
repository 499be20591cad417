"""NDD5xx (mistakes in hand-written dynamic-mode code): examples, positive and negative cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from ndd_migrate.catalog import all_rules
from ndd_migrate.context import Policy
from ndd_migrate.engine import transform

ROOT = Path(__file__).resolve().parents[1]
NDD5 = [r for r in all_rules() if r.code.startswith("NDD5")]
IMPORT = "import nvidia.dali.experimental.dynamic as ndd\n"


def codes(source: str, policy: Policy | None = None) -> list[str]:
    result = transform(source, "t.py", policy or Policy.check())
    assert result.error is None, result.error
    return [d.code for d in result.diagnostics]


def fixed(source: str) -> str:
    result = transform(source, "t.py", Policy.check(fix=True))
    assert result.error is None, result.error
    return result.new_source if result.changed else source


@pytest.mark.parametrize("rule", NDD5, ids=lambda r: r.code)
def test_examples_and_valid(rule):
    assert rule.examples and rule.lint_only
    for ex in rule.examples:
        result = transform(ex.before, "example.py", Policy.migrate())
        assert result.error is None
        assert (result.new_source if result.changed else ex.before) == ex.after
        assert rule.code in {d.code for d in result.diagnostics}
    for snippet in rule.valid:
        result = transform(snippet, "example.py", Policy.migrate())
        assert result.error is None
        assert rule.code not in {d.code for d in result.diagnostics}


@pytest.mark.parametrize("path", sorted(ROOT.glob("fixtures/*/migrated.py")), ids=lambda p: p.parent.name)
def test_golden_migrated_code_is_clean(path):
    found = [c for c in codes(path.read_text()) if c.startswith("NDD5")]
    assert found == []


# -- the data flow ------------------------------------------------------------------------------

LOOP = (
    "reader = {ndd}.readers.File(file_root='/d')\n"
    "for jpegs, labels in reader.next_epoch(batch_size=4):\n"
    "    x = labels[0]\n"
    "    n = len(labels)\n"
)


@pytest.mark.parametrize("header,alias", [
    (IMPORT, "ndd"),
    ("import nvidia.dali.experimental.dynamic as d\n", "d"),
    ("from nvidia.dali.experimental import dynamic\n", "dynamic"),
    ("import nvidia.dali.experimental.dynamic\n", "nvidia.dali.experimental.dynamic"),
])
def test_loop_targets_are_batches_under_any_alias(header, alias):
    src = header + LOOP.format(ndd=alias)
    assert codes(src) == ["NDD501", "NDD502"]
    out = fixed(src)
    assert "labels.tensors[0]" in out and "labels.batch_size" in out


def test_single_loop_target_is_a_tuple_not_a_batch():
    src = IMPORT + "reader = ndd.readers.File(file_root='/d')\nfor out in reader.next_epoch(batch_size=4):\n    x = out[0]\n"
    assert codes(src) == []


def test_shadowed_ndd_is_silent():
    src = "import mylib as ndd\n" + LOOP.format(ndd="ndd")
    assert codes(src) == []
    src = IMPORT + "\n\ndef f():\n    ndd = object()\n    b = ndd.random.uniform(batch_size=2)\n    return b[0], len(b)\n"
    assert codes(src) == []


def test_rebinding_makes_a_name_unknown():
    src = IMPORT + "b = ndd.random.uniform(batch_size=2)\nif cond:\n    b = load()\nx = b[0]\n"
    assert codes(src) == []
    src = IMPORT + "b = ndd.random.uniform(batch_size=2)\nb += 1\nx = b[0]\n"
    assert codes(src) == []


def test_ops_propagate_batches_and_recursive_bindings():
    src = IMPORT + (
        "reader = ndd.readers.File(file_root='/d')\n"
        "for jpegs, labels in reader.next_epoch(batch_size=4):\n"
        "    images = ndd.decoders.image(jpegs)\n"
        "    images = ndd.resize(images, size=[8, 8])\n"
        "    y = (images * 2).cpu()\n"
        "    a, b = images[0], y[1]\n"
    )
    assert codes(src) == ["NDD501", "NDD501"]


def test_tensor_is_subscriptable_but_has_no_truth_value():
    src = IMPORT + "t = ndd.random.uniform(shape=[3])\nx = t[0]\nif not t:\n    pass\n"
    assert codes(src) == ["NDD509"]


def test_batch_from_as_batch_and_tensor_of_batch():
    src = IMPORT + "b = ndd.as_batch([a, c])\ns = b.tensors[0]\nif s:\n    pass\nwhile b and ok:\n    pass\n"
    assert codes(src) == ["NDD509", "NDD509"]


def test_numpy_of_batch():
    src = "import numpy\n" + IMPORT + "b = ndd.random.uniform(batch_size=2)\nx = numpy.array(b)\ny = numpy.asarray(b.tensors[0])\n"
    assert codes(src) == ["NDD503"]


def test_lowercase_reader_and_batch_size():
    src = IMPORT + "r = ndd.readers.file(file_root='/d', batch_size=4)\n"
    assert codes(src) == ["NDD504", "NDD505"]
    assert fixed(src) == IMPORT + "r = ndd.readers.File(file_root='/d', batch_size=4)\n"
    # a pipeline name under ndd that is not a one-word change is reported, not rewritten
    src = IMPORT + "r = ndd.file_reader(file_root='/d')\n"
    assert codes(src) == ["NDD504"] and fixed(src) == src


def test_break_only_directly_out_of_next_epoch():
    body = "reader = ndd.readers.File(file_root='/d')\nfor a, b in reader.next_epoch(batch_size=2):\n"
    assert codes(IMPORT + body + "    if a.batch_size:\n        break\n") == ["NDD508"]
    assert codes(IMPORT + body + "    while True:\n        break\n") == []
    assert codes(IMPORT + "for a, b in other.next_epoch(batch_size=2):\n    break\n") == []


def test_dtype_forms():
    src = "import numpy as onp\nfrom nvidia.dali.experimental import dynamic\n\nx = dynamic.cast(y, dtype=onp.int32)\n"
    assert codes(src) == ["NDD510"]
    assert "dtype=dynamic.int32" in fixed(src)
    # unknown names and non-ndd calls are left alone
    assert codes(IMPORT + "x = ndd.cast(y, dtype='float')\n") == []
    assert codes("import numpy as np\n\nx = np.zeros(3, dtype=np.float32)\n") == []


def test_check_without_fix_leaves_code_unchanged():
    src = IMPORT + LOOP.format(ndd="ndd")
    result = transform(src, "t.py", Policy.check())
    assert not result.changed
