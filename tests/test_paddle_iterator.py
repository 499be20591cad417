"""PaddlePaddle's `DALIGenericIterator` and `DALIClassificationIterator` (NDD411): a pipeline fed to
them converts, and the iterator becomes the support module's `DALIPaddleGenericIterator` /
`DALIPaddleClassificationIterator` over the migrated pipeline, every argument as written
(`reader_meta=` added with `reader_name`): the same `[{name: DenseTensor}]` batches per epoch,
`len()` and `size` as DALI's, under every last-batch policy, shards and padding, `size=`, several
pipelines, `auto_reset` and `reset()`.

DALI 2.4's Paddle iterator asks Paddle for a CUDA place and stream even for a CPU pipeline
(`paddle.CUDAPlace(None)` raises): the original programs run with :data:`CPU_ONLY`, which gives it
the CPU place and no stream there; the migrated programs do not need it."""

from __future__ import annotations

import re

import pytest

from tests.conftest import HAS_DALI, migrate_text
from tests.test_jax_iterator import _equal

CPU_ONLY = """\
import paddle
_cuda_place = paddle.CUDAPlace
paddle.CUDAPlace = lambda device_id: paddle.CPUPlace() if device_id is None else _cuda_place(device_id)
paddle.device.cuda.current_stream = lambda device=None: type("NoStream", (), {"cuda_stream": None})()
"""

SOURCE = """\
import numpy as np
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.base_iterator import LastBatchPolicy
from nvidia.dali.plugin.paddle import DALIClassificationIterator, DALIGenericIterator


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def features(root, shard=0):
    x = fn.readers.numpy(file_root=root, name="Reader"{reader})
    x = fn.pad(x)
    return x, fn.reductions.sum(x, axes=0)


{pipes}
loader = {call}
for epoch in range(3):
    SEEN.append((epoch, len(loader), loader.size))
    for batch in loader:
        for part in batch:
            kinds = sorted({{type(v).__name__ for v in part.values()}})
            SEEN.append((epoch, kinds, *[np.array(v) for v in part.values()]))
{reset}"""


def source(call: str, reader: str = "", reset: bool = True, pipes: str = "pipe = features(ROOT)") -> str:
    return SOURCE.format(call=call, reader=reader, reset="    loader.reset()\n" if reset else "", pipes=pipes)


def test_the_iterators_become_the_support_modules_over_the_migrated_pipeline():
    text = source(
        'DALIClassificationIterator(pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL)'
    ).replace("import DALIClassificationIterator, DALIGenericIterator", "import DALIClassificationIterator")
    out, result = migrate_text(text)
    assert not [d for d in result.diagnostics if d.needs_human], out
    assert (  # 97 columns on one line: one name per line, as black writes it
        "from ndd_support import (\n    DALIPaddleClassificationIterator as DALIClassificationIterator,\n"
        "    prefetching,\n)\n" in out
    )
    assert (
        'loader = DALIClassificationIterator(pipe, reader_name="Reader", '
        "last_batch_policy=LastBatchPolicy.PARTIAL, reader_meta=pipe_meta)\n" in out
    )
    assert "plugin.paddle" not in out and "@pipeline_def" not in out and "    loader.reset()\n" in out
    assert result.support == ("DALIPaddleClassificationIterator", "prefetching")
    assert migrate_text(out)[0] == out


def test_the_plugin_module_called_through_its_name_goes():
    text = source('pd.DALIGenericIterator(pipe, ["x", "total"], size=11)').replace(
        "from nvidia.dali.plugin.paddle import DALIClassificationIterator, DALIGenericIterator",
        "import nvidia.dali.plugin.paddle as pd",
    )
    out, result = migrate_text(text)
    assert not [d for d in result.diagnostics if d.needs_human], out
    assert 'loader = DALIPaddleGenericIterator(pipe, ["x", "total"], size=11)\n' in out
    assert "pd." not in out and "from ndd_support import DALIPaddleGenericIterator, prefetching\n" in out


@pytest.mark.parametrize(
    "output_map", ['[("x", 1), "total"]', "NAMES", '["x", ("total", 0)]'], ids=["lod", "name", "lod0"]
)
def test_an_output_map_not_a_list_of_names_keeps_the_pipeline(output_map):
    """A LoD level is not ported, and a name may hold one."""
    text = source(f'DALIGenericIterator(pipe, {output_map}, reader_name="Reader")').replace(
        "pipe = features(ROOT)", 'NAMES = ["x", "total"]\npipe = features(ROOT)'
    )
    out, result = migrate_text(text)
    found = [d for d in result.diagnostics if d.needs_human]
    assert [d.code for d in found] == ["NDD008"] and "a LoD level" in found[0].hint, found
    assert re.sub(r"(?m)^[ \t]*# TODO\(ndd-migrate\): .*\n", "", out) == text


def test_a_subclass_of_paddles_iterator_is_reported_and_its_pipeline_left_alone():
    text = source('Loader(pipe, reader_name="Reader")').replace(
        "pipe = features(ROOT)", "class Loader(DALIClassificationIterator):\n    pass\n\n\npipe = features(ROOT)"
    )
    out, result = migrate_text(text)
    found = [d for d in result.diagnostics if d.needs_human]
    assert {d.code for d in found} == {"NDD411"} and "@pipeline_def" in out, found


READERS = (
    "",
    ", num_shards=2, shard_id=1",
    ", num_shards=3, shard_id=0, stick_to_shard=True",
    ", num_shards=2, shard_id=0, pad_last_batch=True",
)
GENERIC = 'DALIGenericIterator(pipe, ["x", "total"]{})'
CASES = [
    *[
        (f'DALIClassificationIterator(pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.{policy})', reader)
        for policy in ("FILL", "PARTIAL", "DROP")
        for reader in READERS
        if policy != "DROP" or "num_shards=3" not in reader  # DROP: no batch of 4 in a shard of 3
    ],
    (GENERIC.format(', reader_name="Reader", auto_reset=True, fill_last_batch=False'), ", num_shards=2, shard_id=1"),
    (GENERIC.format(", size=11"), ""),
    (GENERIC.format(", size=7, last_batch_policy=LastBatchPolicy.PARTIAL"), ""),
    (
        GENERIC.format(", size=11, last_batch_padded=True, last_batch_policy=LastBatchPolicy.DROP"),
        ", pad_last_batch=True",
    ),
]


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("call, reader", CASES)
def test_same_batches_per_epoch_as_dalis_paddle_iterator(call, reader, programs):
    pytest.importorskip("paddle")
    from fixtures.datasets import make_numpy

    root = str(programs.dataset(make_numpy))
    original = source(call, reader.replace("shard_id=1", "shard_id=shard"), reset="auto_reset" not in call)
    if "shard_id=shard" in original:
        original = original.replace("pipe = features(ROOT)", "pipe = features(ROOT, 1)")
    _check(programs, original, root)


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("policy", ["FILL", "PARTIAL", "DROP"])
def test_same_batches_over_several_pipelines(policy, programs):
    """One dict per pipeline in each batch, as DALI gave them."""
    pytest.importorskip("paddle")
    from fixtures.datasets import make_numpy

    root = str(programs.dataset(make_numpy))
    call = (
        f'DALIGenericIterator(pipes, ["x", "total"], reader_name="Reader", last_batch_policy=LastBatchPolicy.{policy})'
    )
    original = source(call, ", num_shards=2, shard_id=shard", pipes="pipes = [features(ROOT, i) for i in range(2)]")
    _check(programs, original, root)


def _check(programs, original: str, root: str) -> None:
    migrated, result = migrate_text(original)
    assert "DALIPaddle" in migrated and "TODO" not in migrated, migrated
    expected, got = programs.seen_by_both(CPU_ONLY + original, migrated, root)
    assert len(expected) > 3 and [e[:2] for e in got] == [e[:2] for e in expected]
    assert any(e[1] == ["DenseTensor"] for e in expected if len(e) == 4)
    for a, b in zip(expected, got):
        assert len(a) == len(b) and all(_equal(x, y) for x, y in zip(a[2:], b[2:])), (a, b)
