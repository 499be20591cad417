"""Reader metadata of pipelines made in a list (NDD005, NDD411): `pipes_meta, pipes =
zip(*[...])`, `pipes[i].epoch_size(name)` the metadata of item i, a comprehension over `pipes`
walks the paired metadata; `epoch_size()` is the padded size when the reader may pad its shards.
What cannot be paired exactly keeps the block."""

from __future__ import annotations

import pytest

from tests.conftest import HAS_DALI, migrate_text

HEAD = """\
import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def shard_pipe(root, shard):
    jpegs, labels = fn.readers.file(file_root=root, shard_id=shard, num_shards=2, name="Reader"{reader})
    return labels


pipes = [shard_pipe(sys.argv[1], n) for n in range(2)]
"""

READS = (
    'size = pipes[0].epoch_size("Reader")\n'
    'assert all(pipe.epoch_size("Reader") == size for pipe in pipes)\n'
    'print(size, pipes[-1].reader_meta("Reader")["shard_id"], [p.reader_meta("Reader") for p in pipes])\n'
    "for step in range(3):\n"
    "    for pipe in pipes:\n"
    "        print(step, pipe.run()[0].as_array().ravel().tolist())\n"
)


def _migrated(reader: str = "", reads: str = READS):
    text = HEAD.format(reader=reader) + reads
    out, result = migrate_text(text)
    return text, out, [d for d in result.diagnostics if d.needs_human]


def test_reads_of_a_list_become_reads_of_the_paired_metadata():
    _, out, human = _migrated()
    assert not human, [d.message for d in human]
    assert "pipes_meta, pipes = zip(*[shard_pipe(sys.argv[1], n) for n in range(2)])" in out
    assert 'size = pipes_meta[0]["epoch_size"]' in out
    assert 'all(pipe_meta["epoch_size"] == size for pipe_meta, pipe in zip(pipes_meta, pipes))' in out
    assert 'pipes_meta[-1]["shard_id"]' in out and "[p_meta for p_meta, p in zip(pipes_meta, pipes)]" in out
    assert "for pipe in pipes:\n" in out  # the statement loop that only runs the pipelines stays
    assert migrate_text(out)[0] == out


def test_a_reader_that_pads_its_shards_reads_the_padded_size():
    """`Pipeline.epoch_size(name)` is the reader's `epoch_size_padded` (DALI 2.4 pipeline.py)."""
    _, out, human = _migrated(reader=", pad_last_batch=True")
    assert not human and 'size = pipes_meta[0]["epoch_size_padded"]' in out
    assert '"epoch_size"' not in out
    _, named, _ = _migrated(reader=", pad_last_batch=False")
    assert 'size = pipes_meta[0]["epoch_size"]' in named


@pytest.mark.parametrize(
    "reads, why",
    [
        (
            'for pipe in pipes:\n    print(pipe.epoch_size("Reader"))\n',
            "a `for` statement would bind `pipe_meta` outside",
        ),
        ('pipe_meta = 1\nprint([pipe.epoch_size("Reader") + pipe_meta for pipe in pipes])\n', "`pipe_meta` is taken"),
        ('first = pipes[0]\nprint(first.epoch_size("Reader"))\n', "a name bound to an item"),
    ],
)
def test_reads_that_cannot_be_paired_keep_the_block(reads, why):
    text, out, human = _migrated(reads=reads)
    assert [d.code for d in human] == ["NDD008"], why
    assert "epoch-aware shape" in human[0].message, human[0].message
    assert "zip(" not in out and "pipes_meta" not in out, why


CLASSES = """\
import sys

import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class Base(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super().__init__(batch_size, num_threads, device_id)


class Plain(Base):
    def __init__(self, batch_size, num_threads, device_id, shard):
        super().__init__(batch_size, num_threads, device_id)
        self.input = ops.readers.File(file_root=sys.argv[1], shard_id=shard, num_shards=2)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return labels


class Padded(Base):
    def __init__(self, batch_size, num_threads, device_id, shard):
        super().__init__(batch_size, num_threads, device_id)
        self.input = ops.readers.File(file_root=sys.argv[1], shard_id=shard, num_shards=2, pad_last_batch=True)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return labels


for cls in {classes}:
    pipes = [cls(batch_size=3, num_threads=1, device_id=None, shard=n) for n in range(2)]
    {more}size = pipes[0].epoch_size("Reader")
    assert all(pipe.epoch_size("Reader") == size for pipe in pipes)
    for step in range(2):
        for pipe in pipes:
            print(cls.__name__, size, step, pipe.run()[0].as_array().ravel().tolist())
"""


def test_pipelines_made_through_a_loop_name_get_the_metadata_beside_them():
    out, result = migrate_text(CLASSES.format(classes="[Plain, Padded]", more=""))
    assert not any(d.needs_human for d in result.diagnostics), [d.message for d in result.diagnostics]
    assert (
        "pipes_meta, pipes = zip(*[cls(batch_size=3, num_threads=1, device_id=None, shard=n) for n in range(2)])" in out
    )
    assert 'size = pipes_meta[0]["epoch_size_padded"]' in out  # one of the classes pads
    assert out.count("return reader.get_metadata(), batches()") == 2
    assert migrate_text(out)[0] == out


def test_another_call_through_the_loop_name_keeps_the_block():
    """`print(cls(...))` is no creation the epoch-aware shape can rewrite."""
    more = "print(cls(batch_size=3, num_threads=1, device_id=None, shard=0))\n    "
    out, result = migrate_text(CLASSES.format(classes="[Plain, Padded]", more=more))
    assert any(d.needs_human for d in result.diagnostics)
    assert "pipes_meta" not in out


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("reader", ["", ", pad_last_batch=True", ", pad_last_batch=True, stick_to_shard=True"])
def test_the_values_are_pipeline_modes(reader, programs):
    """Each shard's `epoch_size` in pipeline mode is the whole data set (padded with
    `pad_last_batch`): the migrated reads print the same, run on DALI."""
    from fixtures.datasets import make_jpeg

    data = programs.dataset(make_jpeg)
    text, out, human = _migrated(reader=reader)
    assert not human
    before, after = programs.both(text, out, [data], timeout=300)
    assert after.stdout == before.stdout and before.stdout.strip()
    assert before.stdout.split()[0] == ("14" if "pad" in reader else "13")  # 13 images


THROUGH = """\
import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def plain(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return labels


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def padded(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader", pad_last_batch=True, num_shards=2)
    return labels


for make in [plain, padded]:
    one = make(sys.argv[1])
    print(one.epoch_size("Reader"), one.run()[0].as_array().tolist())
"""


def test_one_pipeline_made_through_a_loop_name_gets_its_metadata_beside_it():
    out, result = migrate_text(THROUGH)
    assert not any(d.needs_human for d in result.diagnostics), [d.message for d in result.diagnostics]
    assert "one_meta, one = make(sys.argv[1])" in out and 'one_meta["epoch_size_padded"]' in out
    assert migrate_text(out)[0] == out


_ONE_READER = (
    "from nvidia.dali import fn, pipeline_def\n\n\n"
    "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
    "def p(root):\n"
    "    jpegs, labels = fn.readers.file(file_root=root, name='Reader')\n"
    "    return jpegs, labels\n\n\n"
    "pipe = p('/d')\n"
    "pipe.build()\n"
    "n = pipe.epoch_size({call})\n"
    "out = pipe.run()\n"
)


def test_the_reader_named_by_keyword_is_read_from_the_metadata():
    out, result = migrate_text(_ONE_READER.format(call="name='Reader'"))
    assert "n = pipe_meta['epoch_size']\n" in out and not [d for d in result.diagnostics if d.needs_human]


def test_without_one_reader_name_the_pipeline_stays_instead_of_a_broken_use():
    """`pipe.epoch_size()` gives a dict by reader name: converting the pipeline left the call on
    the generator under a TODO (exit 1, but the program broken); it stays, saying why."""
    out, result = migrate_text(_ONE_READER.format(call=""))
    assert "@pipeline_def" in out and "n = pipe.epoch_size()" in out and "next(pipe)" not in out
    assert [d.code for d in result.diagnostics if d.needs_human] == ["NDD008"]
