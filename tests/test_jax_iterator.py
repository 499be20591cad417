"""JAX's `DALIGenericIterator` (NDD411): a pipeline fed to it converts, and the iterator becomes the
support module's `DALIJaxGenericIterator` over the migrated pipeline, every argument as written
(`reader_meta=` added with `reader_name`): the same `{name: jax.Array}` batches per epoch, `len()`
and `size` as DALI's, under each last-batch policy it takes, shards and padding, `size=` and
`reader_name`, `auto_reset` and `reset()`."""

from __future__ import annotations

import re

import pytest

from tests.conftest import HAS_DALI, ROOT, migrate_text
from tests.harness import seen_script, with_support_module
from tests.test_iterators import FRAMEWORK

SOURCE = """\
import numpy as np
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.base_iterator import LastBatchPolicy
from nvidia.dali.plugin.jax import DALIGenericIterator


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def features(root):
    x = fn.readers.numpy(file_root=root, name="Reader"{reader})
    x = fn.pad(x)
    return x, fn.reductions.sum(x, axes=0)


pipe = features(ROOT)
loader = DALIGenericIterator(pipe, ["x", "total"]{arguments})
for epoch in range(3):
    SEEN.append((epoch, len(loader), loader.size))
    for batch in loader:
        kinds = sorted({{type(v).__module__.split(".")[0] for v in batch.values()}})
        SEEN.append((epoch, kinds, np.asarray(batch["x"]), np.asarray(batch["total"])))
{reset}"""


def source(arguments: str, reader: str = "", reset: bool = True) -> str:
    return SOURCE.format(arguments=arguments, reader=reader, reset="    loader.reset()\n" if reset else "")


def test_the_iterator_becomes_the_support_modules_over_the_migrated_pipeline():
    text = source(', reader_name="Reader", last_batch_policy=LastBatchPolicy.DROP')
    out, result = migrate_text(text)
    assert not [d for d in result.diagnostics if d.needs_human], out
    assert "from ndd_support import DALIJaxGenericIterator as DALIGenericIterator, prefetching\n" in out
    assert (
        'loader = DALIGenericIterator(pipe, ["x", "total"], reader_name="Reader", '
        "last_batch_policy=LastBatchPolicy.DROP, reader_meta=pipe_meta)\n" in out
    )
    assert "pipe_meta, pipe = features(ROOT)" in out and "plugin.jax" not in out and "@pipeline_def" not in out
    assert "    loader.reset()\n" in out and "from nvidia.dali.plugin.base_iterator import LastBatchPolicy" in out
    assert result.support == ("DALIJaxGenericIterator", "prefetching")
    assert migrate_text(out)[0] == out


@pytest.mark.parametrize(
    "pipes, given, call",
    [
        ("", "make(0)", "DALIGenericIterator(make(0), ['x'], reader_name='R')"),
        ("pipe = make(0)", "[pipe]", "DALIGenericIterator([pipe], ['x'], reader_name='R', reader_meta=[pipe_meta])"),
        ("", "[make(0)]", "DALIGenericIterator([make(0)], ['x'], reader_name='R')"),
    ],
)
def test_one_pipeline_given_as_dalis_docs_give_it(pipes, given, call):
    """Made in the call (its metadata comes with it), or a list of one."""
    text = FRAMEWORK.format(plugin="jax", cls="DALIGenericIterator", pipes=pipes, given=given)
    out, result = migrate_text(text)
    assert not [d for d in result.diagnostics if d.needs_human], out
    assert out.endswith(f"it = {call}\n") and "def make(shard, *, batch_size=2):" in out


def test_the_plugin_module_called_through_its_name_goes():
    text = (
        source(", size=11")
        .replace("from nvidia.dali.plugin.jax import DALIGenericIterator", "import nvidia.dali.plugin.jax as dax")
        .replace("= DALIGenericIterator(", "= dax.DALIGenericIterator(")
    )
    out, result = migrate_text(text)
    assert not [d for d in result.diagnostics if d.needs_human], out
    assert 'loader = DALIJaxGenericIterator(pipe, ["x", "total"], size=11)\n' in out
    assert "dax" not in out and "from ndd_support import DALIJaxGenericIterator, prefetching\n" in out


@pytest.mark.parametrize(
    "change, why",
    [
        (', reader_name="Reader", sharding=mesh', "arguments ['sharding'] are not handled"),
        (', reader_name="Reader", pmap_compatible=True', "arguments ['pmap_compatible'] are not handled"),
        (', reader_name="Reader", last_batch_padded=True', "`last_batch_padded` other than `False`"),
        ("", "without `reader_name` or `size=`"),
    ],
)
def test_what_the_support_modules_iterator_does_not_take_keeps_the_pipeline(change, why):
    """As for PyTorch's iterator: one NDD008 at the pipeline names the iterator and NDD411's reason."""
    text = source(change).replace("pipe = features(ROOT)", "mesh = None\npipe = features(ROOT)")
    out, result = migrate_text(text)
    found = [d for d in result.diagnostics if d.needs_human]
    assert [d.code for d in found] == ["NDD008"] and why in found[0].hint, found
    assert re.sub(r"(?m)^[ \t]*# TODO\(ndd-migrate\): .*\n", "", out) == text


def test_several_pipelines_keep_their_pipeline():
    text = source(', reader_name="Reader"', reader=", shard_id=shard, num_shards=2")
    text = text.replace("def features(root):", "def features(root, shard):").replace(
        "pipe = features(ROOT)\nloader = DALIGenericIterator(pipe,",
        "pipes = [features(ROOT, i) for i in range(2)]\nloader = DALIGenericIterator(pipes,",
    )
    out, result = migrate_text(text)
    found = [d for d in result.diagnostics if d.needs_human]
    assert [d.code for d in found] == ["NDD008"] and "JAX iterator takes one" in found[0].hint, found
    assert "@pipeline_def" in out


def test_an_attribute_the_support_modules_iterator_lacks_keeps_the_pipeline():
    text = source(', reader_name="Reader"') + "state = loader.checkpoints()\n"
    out, result = migrate_text(text)
    found = [d for d in result.diagnostics if d.needs_human]
    assert found and "`.checkpoints` of the iterator" in found[0].hint, found
    assert "@pipeline_def" in out


def test_a_subclass_of_jaxs_iterator_is_reported_and_its_pipeline_left_alone():
    text = source(', reader_name="Reader"').replace(
        "pipe = features(ROOT)\nloader = DALIGenericIterator(",
        "class Loader(DALIGenericIterator):\n    pass\n\n\npipe = features(ROOT)\nloader = Loader(",
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
CASES = [
    *[
        (f', reader_name="Reader", last_batch_policy=LastBatchPolicy.{policy}', reader, True)
        for policy in ("FILL", "DROP")
        for reader in READERS
        if policy == "FILL" or "num_shards=3" not in reader  # DROP: no batch of 4 in a shard of 3
    ],
    (', reader_name="Reader", auto_reset=True', ", num_shards=2, shard_id=1", False),
    (', reader_name="Reader", prepare_first_batch=False', "", True),
    (", size=11", "", True),
    (", size=7, last_batch_policy=LastBatchPolicy.DROP", "", True),
    (", size=11, last_batch_padded=True", ", pad_last_batch=True", True),
    (', 11, auto_reset="yes", last_batch_policy=LastBatchPolicy.DROP', "", False),  # `size` by position
]


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("arguments, reader, reset", CASES)
def test_same_batches_per_epoch_as_dalis_jax_iterator(arguments, reader, reset, programs):
    pytest.importorskip("jax")
    from fixtures.datasets import make_numpy

    root = str(programs.dataset(make_numpy))
    original = source(arguments, reader, reset)
    migrated, result = migrate_text(original)
    assert "DALIJaxGenericIterator" in migrated and "TODO" not in migrated, migrated
    expected, got = programs.seen_by_both(original, migrated, root)
    assert len(expected) > 3 and [e[:2] for e in got] == [e[:2] for e in expected]
    assert all(e[1] == ["jaxlib"] for e in expected if len(e) == 4)
    for a, b in zip(expected, got):
        assert len(a) == len(b) and all(_equal(x, y) for x, y in zip(a[2:], b[2:])), (a, b)


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_partial_is_refused_as_dali_refuses_it(programs, tmp_path):
    pytest.importorskip("jax")
    from fixtures.datasets import make_numpy

    root = str(programs.dataset(make_numpy))
    original = source(', reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL')
    migrated, _ = migrate_text(original)
    assert "DALIJaxGenericIterator" in migrated and "TODO" not in migrated, migrated
    for side, text in (("original", original), ("migrated", migrated)):
        script = tmp_path / side / "case.py"
        script.parent.mkdir()
        script.write_text(seen_script(text), encoding="utf-8")
        with_support_module(script.parent, text)
        ran = programs.run(script, [root], cwd=ROOT)
        assert ran.returncode != 0 and "JAX iterator does not support partial last batch policy" in ran.stderr


def _equal(a, b) -> bool:
    return a == b if not hasattr(a, "shape") else a.shape == b.shape and a.dtype == b.dtype and (a == b).all()
