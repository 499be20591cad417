"""NDD517: in hand-written dynamic-mode code, arithmetic of a batch on the CPU with one on the GPU
raises "Cannot mix GPU and CPU inputs"; `check` finds it where the function itself shows both
devices, and `--fix` moves the CPU operand."""

from __future__ import annotations

import pytest

from ndd_migrate.engine.context import Policy
from ndd_migrate.engine.transform import transform
from ndd_migrate.io.diagnostics import FixSafety
from tests.conftest import migrate_text

HEAD = "import nvidia.dali.experimental.dynamic as ndd\n\n\ndef batches(root, factor):\n"
LOOP = "    reader = ndd.readers.File(file_root=root)\n    for jpegs, labels in reader.next_epoch(batch_size=4):\n"


def _findings(body: str) -> list:
    result = transform(HEAD + body, "loader.py", Policy.check())
    assert result.error is None, result.error
    return [d for d in result.diagnostics if d.code == "NDD517"]


def _fixed(body: str) -> str:
    result = transform(HEAD + body, "loader.py", Policy.check(fix=True))
    assert result.error is None, result.error
    return result.new_source if result.changed else HEAD + body


@pytest.mark.parametrize(
    ("body", "operand"),
    [
        (
            LOOP + '        images = ndd.decoders.image(jpegs, device="gpu")\n'
            "        yield images * ndd.random.uniform(range=[0.5, 1.5], batch_size=4)\n",
            "ndd.random.uniform(range=[0.5, 1.5], batch_size=4)",
        ),
        (
            '    reader = ndd.readers.Numpy(file_root=root, device="gpu")\n'
            "    for (data,) in reader.next_epoch(batch_size=4):\n"
            "        noise = ndd.random.normal(ndd.cast(data.cpu(), dtype=ndd.float32))\n"
            "        yield data + noise\n",
            "noise",
        ),
        (
            LOOP + '        images = ndd.decoders.image(jpegs, device="gpu")\n'
            "        low = ndd.random.uniform(range=[0, 9], batch_size=4)\n"
            "        yield ndd.math.clamp(images, low, 200)\n",
            "low",
        ),
    ],
    ids=["decoded on the GPU, a CPU random number", "a GPU reader, a CPU copy", "ndd.math function"],
)
def test_a_cpu_operand_of_a_gpu_value_is_found_and_fixed(body, operand):
    (found,) = _findings(body)
    assert f"`{operand}` is on the CPU" in found.message and found.fix is FixSafety.SAFE
    fixed = _fixed(body)
    assert f"{operand}.gpu()" in fixed, fixed
    assert _findings(fixed[len(HEAD) :]) == []


@pytest.mark.parametrize(
    "body",
    [
        LOOP + "        yield jpegs * ndd.random.uniform(range=[0.5, 1.5], batch_size=4)\n",  # both on the CPU
        LOOP
        + '        images = ndd.decoders.image(jpegs, device="gpu")\n        yield images * factor\n',  # a parameter
        LOOP + '        images = ndd.decoders.image(jpegs, device="gpu")\n        yield (images + images.gpu()) * 2\n',
    ],
    ids=["CPU only", "a parameter of unknown device", "GPU only"],
)
def test_nothing_is_found_where_nothing_mixes(body):
    assert _findings(body) == []


def test_what_migrate_writes_for_gpu_arithmetic_is_clean():
    """NDD111's output (`.gpu()`, `to_gpu_with`) is what this rule asks for: no finding on it."""
    source = (
        "import nvidia.dali.fn as fn\nfrom nvidia.dali import pipeline_def, types\n\n\n"
        "def maybe(p, augmented, original):\n"
        "    c = fn.cast(fn.random.coin_flip(probability=p), dtype=types.BOOL)\n"
        "    return c * augmented + (c ^ True) * original\n\n\n"
        "@pipeline_def(batch_size=2)\n"
        "def p(root):\n"
        "    jpegs, labels = fn.readers.file(file_root=root)\n"
        '    images = fn.decoders.image(jpegs, device="mixed")\n'
        "    images = maybe(0.5, images * 0.5, images)\n"
        "    scale = maybe(0.5, fn.random.uniform(range=(0.5, 1.5)), 1.0)\n"
        "    return images * scale, labels\n"
    )
    migrated, _ = migrate_text(source)
    assert "to_gpu_with(c, augmented)" in migrated and "images * scale.gpu()" in migrated, migrated
    result = transform(migrated, "loader.py", Policy.check())
    assert [d for d in result.diagnostics if d.code == "NDD517"] == []


@pytest.mark.parametrize(
    "head",
    [
        "from nvidia.dali.experimental import dynamic as D\n\n\ndef batches(root, factor):\n",
        "import nvidia.dali.experimental.dynamic as D\n\n\ndef batches(root, factor):\n",
    ],
)
def test_every_import_spelling_of_ndd(head):
    body = (
        "    reader = D.readers.File(file_root=root)\n    for jpegs, labels in reader.next_epoch(batch_size=4):\n"
        '        images = D.decoders.image(jpegs, device="gpu")\n'
        "        yield images * D.random.uniform(range=[0.5, 1.5], batch_size=4)\n"
    )
    result = transform(head + body, "loader.py", Policy.check())
    assert [d.code for d in result.diagnostics if d.code == "NDD517"] == ["NDD517"]
