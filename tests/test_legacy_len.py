"""``len(pipe)`` of a ``Pipeline`` subclass whose ``__len__`` returns ``self.epoch_size("Reader")``
(DALI's Paddle ResNet-50 example and its copies): the reader's epoch size after the conversion.

DALI 2.4 cannot build such a class: ``_OperatorInstance`` tests ``if Pipeline.current():`` while the
graph is built, which calls ``__len__``, whose ``epoch_size`` builds the pipeline again
(RecursionError). So the migrated program is compared with the program its author meant, the same
one with ``pipe.epoch_size("Reader")`` written where ``len(pipe)`` stood."""

from __future__ import annotations

import pytest

from tests.conftest import HAS_DALI, migrate_text

PROGRAM = '''import math
import sys

from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
from nvidia.dali.plugin.pytorch import DALIClassificationIterator


class TrainPipe(Pipeline):
    def __init__(self, root, batch_size):
        super(TrainPipe, self).__init__(batch_size, 1, None, seed=7)
        self.input = ops.readers.File(file_root=root, random_shuffle=True)
        self.decode = ops.decoders.Image()
        self.res = ops.Resize(resize_x=8, resize_y=6)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        images = self.res(self.decode(jpegs))
        return [images, labels]

    def __len__(self):
        """The samples of one epoch."""
        return self.epoch_size("Reader")


def main(root):
    pipe = TrainPipe(root, 3)
    pipe.build()
    steps = math.ceil(len(pipe) / 3)
    loader = DALIClassificationIterator(pipe, size=len(pipe))
    print("samples", len(pipe), "steps", steps)
    for epoch in range(2):
        for i, data in enumerate(loader):
            print(epoch, i, tuple(data[0]["data"].shape), data[0]["label"].view(-1).tolist())
        loader.reset()


main(sys.argv[1])
'''

#: What the author meant, and what DALI 2.4 builds: `__len__` written out at each use.
INTENDED = PROGRAM.replace(
    '    def __len__(self):\n        """The samples of one epoch."""\n        return self.epoch_size("Reader")\n\n', ""
).replace("len(pipe)", 'pipe.epoch_size("Reader")')


def test_len_becomes_the_readers_epoch_size_and_the_method_goes_with_the_class():
    """Before, NDD401 kept the class: "`__len__` has no counterpart in a generator function"."""
    migrated, result = migrate_text(PROGRAM, "train.py")
    assert [d for d in result.diagnostics if d.needs_human] == []
    assert "__len__" not in migrated and "len(pipe)" not in migrated
    assert migrated.count('pipe_meta["epoch_size"]') == 3
    assert "pipe_meta, pipe = TrainPipe(root, 3)" in migrated


def test_len_of_another_reader_or_of_a_class_without_such_len_stays():
    """`__len__` naming a reader the class does not have, or `len()` of a pipeline whose class has
    no `__len__`, is no epoch size: the pipeline stays, with the use named."""
    other = PROGRAM.replace('return self.epoch_size("Reader")', 'return self.epoch_size("Other")')
    plain = INTENDED.replace('size=pipe.epoch_size("Reader")', "size=len(pipe)")
    why = "(`__len__` of `TrainPipe` asks the epoch size of `Other`, not of its reader (`Reader`))"
    for source, said in ((other, why), (plain, "`len()` of `pipe`")):
        migrated, result = migrate_text(source, "train.py")
        assert any(d.code == "NDD008" and said in d.message for d in result.diagnostics if d.needs_human)
        assert "class TrainPipe(Pipeline):" in migrated


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_the_migrated_program_prints_what_the_intended_one_does(programs):
    from fixtures import datasets

    root = programs.dataset(datasets.make_all)["jpeg"]
    migrated, _ = migrate_text(PROGRAM, "train.py")
    intended, got = programs.both(INTENDED, migrated, [root], name="train.py", timeout=300)
    assert intended.stdout.startswith("samples 13 steps 5\n")
    assert got.stdout == intended.stdout


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_dali_cannot_build_the_class_with_such_len(programs, tmp_path):
    """Why the comparison above is with the intended program: the original never builds."""
    from fixtures import datasets

    root = programs.dataset(datasets.make_all)["jpeg"]
    script = tmp_path / "train.py"
    script.write_text(PROGRAM, encoding="utf-8")
    ran = programs.run(script, [root], timeout=300)
    assert ran.returncode != 0 and "RecursionError" in ran.stderr
