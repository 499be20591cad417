"""NDD111: pipeline mode ran arithmetic on the GPU when one operand was there and moved the others;
dynamic mode refuses to mix devices. The migration moves a CPU operand (`.gpu()` where its partner is
always on the GPU, `to_gpu_with(...)` where the run decides), leaves CPU-only code alone, and keeps
the pipeline where no name tells the device."""

from __future__ import annotations

import numpy as np
import pytest

from ndd_migrate.support.template import ndd_support
from tests.conftest import HAS_DALI, migrate_text

HEAD = (
    "import nvidia.dali.fn as fn\nimport nvidia.dali.math as dmath\nfrom nvidia.dali import pipeline_def, types\n\n\n"
)
DEC = "@pipeline_def(batch_size=2)\n"
READ = '    jpegs, labels = fn.readers.file(file_root=root)\n    images = fn.decoders.image(jpegs, device="mixed")\n'


def _migrate(body: str, extra: str = "", params: str = "root") -> tuple[str, list]:
    source = HEAD + extra + DEC + f"def p({params}):\n" + body
    text, result = migrate_text(source)
    assert migrate_text(text)[0] == text, "a second migration changed the output"
    return text, [d for d in result.diagnostics if d.code == "NDD111"]


@pytest.mark.parametrize(
    ("line", "written"),
    [
        ("    return images * fn.random.uniform(range=[0.5, 1.5]), labels\n", "images * ndd.random.uniform("),
        ("    return fn.random.uniform(range=[0.5, 1.5]) + images, labels\n", ").gpu() + images"),
        ("    return images > fn.random.uniform(range=[0, 255]), labels\n", "images > ndd.random.uniform("),
        ("    images *= fn.random.uniform(range=[0.5, 1.5])\n    return images, labels\n", "images *= ndd.random"),
        ("    return dmath.clamp(images, fn.random.uniform(range=[0, 9]), 200), labels\n", "ndd.math.clamp(images"),
    ],
    ids=["product", "sum, CPU first", "comparison", "augmented assignment", "math function"],
)
def test_a_cpu_operand_of_a_gpu_value_gets_gpu(line, written):
    text, found = _migrate(READ + line)
    assert "@pipeline_def" not in text and "TODO" not in text, text
    assert written in text and ".gpu()" in text and "to_gpu_with" not in text, text
    assert [d.fixed for d in found] == [True], found


def test_the_random_number_itself_moves_not_the_images():
    text, _ = _migrate(READ + "    return images * fn.random.uniform(range=[0.5, 1.5]), labels\n")
    assert "range=[0.5, 1.5], batch_size=batch_size).gpu()" in text, text
    assert "images.gpu()" not in text, text


def test_cpu_only_graph_code_is_left_alone():
    body = (
        "    jpegs, labels = fn.readers.file(file_root=root)\n"
        "    images = fn.decoders.image(jpegs)\n"
        "    return images * fn.random.uniform(range=[0.5, 1.5]), labels\n"
    )
    text, found = _migrate(body)
    assert ".gpu()" not in text and "to_gpu_with" not in text and not found, text


def test_two_gpu_operands_and_python_numbers_move_nothing():
    body = READ + "    flipped = fn.flip(images, horizontal=1)\n    return (images + flipped) * 0.5 - 1, labels\n"
    text, found = _migrate(body)
    assert ".gpu()" not in text and "to_gpu_with" not in text and not found, text


HELPER = (
    "def maybe(probability, augmented, original):\n"
    "    condition = fn.cast(fn.random.coin_flip(probability=probability), dtype=types.BOOL)\n"
    "    return condition * augmented + (condition ^ True) * original\n\n\n"
)


def test_a_helper_called_with_gpu_images_and_cpu_numbers_moves_at_run_time():
    body = (
        READ + "    images = maybe(0.5, images * 0.5, images)\n"
        "    scale = maybe(0.5, fn.random.uniform(range=(0.5, 1.5)), 1.0)\n"
        "    return images * scale, labels\n"
    )
    text, found = _migrate(body, HELPER)
    assert "to_gpu_with(condition, augmented) * augmented" in text, text
    assert "to_gpu_with(condition ^ True, original) * original" in text, text
    assert "yield (images * scale.gpu()).evaluate(), labels.evaluate()" in text, text
    assert "from ndd_support import prefetching, to_gpu_with" in text, text
    assert found and all(d.fixed for d in found)


def test_images_on_the_gpu_only_when_asked_move_their_partner_at_run_time():
    body = (
        "    jpegs, labels = fn.readers.file(file_root=root)\n"
        "    images = fn.decoders.image(jpegs)\n"
        "    if on_gpu:\n"
        "        images = images.gpu()\n"
        "    images = fn.cast(images, dtype=types.FLOAT)\n"
        "    return images * fn.random.uniform(range=(0.5, 1.5)), labels\n"
    )
    text, _ = _migrate(body, params="root, on_gpu")
    assert "images * to_gpu_with(ndd.random.uniform(" in text and "), images)" in text, text


def test_a_partner_whose_device_the_run_decides_and_that_has_no_name_keeps_the_pipeline():
    body = (
        "    jpegs, labels = fn.readers.file(file_root=root)\n"
        "    images = fn.decoders.image(jpegs)\n"
        "    if on_gpu:\n"
        "        images = images.gpu()\n"
        "    return fn.random.uniform(range=(0.5, 1.5)) * fn.cast(images, dtype=types.FLOAT), labels\n"
    )
    text, found = _migrate(body, params="root, on_gpu")
    assert "@pipeline_def" in text and "# TODO(ndd-migrate): NDD111" in text, text
    (diag,) = found
    assert not diag.fixed and "fn.random.uniform(range=(0.5, 1.5))" in diag.message, diag.message


def test_a_legacy_pipeline_moves_the_output_of_its_cpu_operator():
    source = (
        "from nvidia.dali import ops\nfrom nvidia.dali.pipeline import Pipeline\n\n\n"
        "class P(Pipeline):\n"
        "    def __init__(self, root):\n"
        "        super().__init__(batch_size=2, num_threads=1, device_id=0)\n"
        "        self.input = ops.readers.File(file_root=root)\n"
        '        self.decode = ops.decoders.Image(device="mixed")\n'
        "        self.scale = ops.random.Uniform(range=[0.5, 1.5])\n\n"
        "    def define_graph(self):\n"
        "        jpegs, labels = self.input()\n"
        "        return self.decode(jpegs) * self.scale(), labels\n"
    )
    text, result = migrate_text(source)
    assert "class P(Pipeline)" not in text and "TODO" not in text, text
    assert ".gpu()).evaluate(), labels.evaluate()" in text, text
    assert any(d.code == "NDD111" and d.fixed for d in result.diagnostics)


class _Device:
    def __init__(self, kind: str) -> None:
        self.device_type = kind


class _Data:
    """Stands for a DALI batch on a device (no GPU here): ``gpu()`` says where it went."""

    def __init__(self, kind: str) -> None:
        self.device = _Device(kind)

    def gpu(self):
        return _Data("gpu")


def test_to_gpu_with_moves_only_when_a_partner_is_on_the_gpu():
    cpu = _Data("cpu")
    assert ndd_support.to_gpu_with(cpu, _Data("cpu"), 2.0) is cpu
    assert ndd_support.to_gpu_with(cpu, _Data("gpu")).device.device_type == "gpu"
    assert ndd_support.to_gpu_with(cpu, 1.0, _Data("gpu")).device.device_type == "gpu"
    assert ndd_support.to_gpu_with(0.5, _Data("gpu")) == 0.5  # a number: dynamic mode places it


@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_to_gpu_with_leaves_cpu_batches_as_they_are():
    from nvidia.dali.experimental import dynamic as ndd

    batch = ndd.as_batch([np.ones([2], np.float32), np.zeros([2], np.float32)])
    scale = ndd.as_batch([np.float32(2), np.float32(3)])
    assert ndd_support.to_gpu_with(scale, batch) is scale
    out = batch * ndd_support.to_gpu_with(scale, batch)
    assert [np.asarray(t).tolist() for t in out.tensors] == [[2.0, 2.0], [0.0, 0.0]]


def test_a_cpu_target_of_an_augmented_assignment_with_a_gpu_value_keeps_the_pipeline():
    body = READ + "    scale = fn.random.uniform(range=[0.5, 1.5])\n    scale *= images\n    return scale, labels\n"
    text, found = _migrate(body)
    assert "@pipeline_def" in text and "# TODO(ndd-migrate): NDD111" in text, text
    assert [d.fixed for d in found] == [False]


def test_a_move_the_run_may_not_write_keeps_the_pipeline():
    """`# noqa: NDD111` on the operation: written as it was, it fails on the GPU, so the pipeline stays."""
    line = "    return images * fn.random.uniform(range=[0.5, 1.5]), labels  # noqa: NDD111\n"
    text, _ = _migrate(READ + line)
    assert "@pipeline_def" in text and "is not moved to the GPU here" in text, text


@pytest.mark.parametrize(
    "head",
    [
        "import nvidia.dali.fn as fn\nfrom nvidia.dali import pipeline_def\n\n\n",
        "from nvidia.dali import fn, pipeline_def\n\n\n",
        "try:\n    from nvidia.dali import fn, pipeline_def\nexcept ImportError:\n    fn = pipeline_def = None\n\n\n",
    ],
    ids=["import nvidia.dali.fn as fn", "from nvidia.dali import fn", "guarded import"],
)
def test_every_import_spelling_of_fn(head):
    source = head + DEC + "def p(root):\n" + READ + "    return images * fn.random.uniform(range=[0.5, 1.5]), labels\n"
    text, result = migrate_text(source)
    assert "batch_size=batch_size).gpu()" in text, text
    assert any(d.code == "NDD111" and d.fixed for d in result.diagnostics)
