"""The epoch-aware shape across modules: a pipeline defined in one module whose reader's metadata
another module of the run asks for (a framework iterator given ``reader_name=``, ``epoch_size()``).

The defining module is asked (``FileResult.epoch_requests``), migrates the pipeline in that shape
when it can (``FileResult.epochs``), and the importers unpack each call: ``pipe_meta, pipe =
p(...)`` (ndd_migrate.model.importers). Where the shape is not open, the pipeline stays in pipeline
mode in both modules, and the finding at its definition says which use asked and why."""

from __future__ import annotations

import pytest

from ndd_migrate.app import runner
from ndd_migrate.io.policy import Policy
from ndd_migrate.model import migrated_shape
from tests.conftest import HAS_DALI

PIPES = """\
from nvidia.dali import fn, pipeline_def, types


@pipeline_def
def train_pipe(root, shard_id=0, num_shards=1):
    jpegs, labels = fn.readers.file(
        file_root=root, shard_id=shard_id, num_shards=num_shards, random_shuffle=True, seed=3, name="Reader"
    )
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    return fn.resize(images, resize_x=16, resize_y=16), labels
"""

# A training script: the iterator asks for the reader's epochs by name, and resets by hand.
TRAIN = """\
import sys

from nvidia.dali.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy

from pipes import train_pipe

pipe = train_pipe(sys.argv[1], batch_size=4, num_threads=2, device_id=None)
pipe.build()
loader = DALIClassificationIterator(pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL)
print("steps", len(loader))
for epoch in range(2):
    for step, data in enumerate(loader):
        print(epoch, step, tuple(data[0]["data"].shape), data[0]["label"].view(-1).tolist())
    loader.reset()
"""

# A script that counts its steps from the epoch size and runs the pipeline itself.
STEPS = """\
import sys

from pipes import train_pipe

pipe = train_pipe(sys.argv[1], batch_size=4, num_threads=1, device_id=None)
pipe.build()
size = pipe.epoch_size("Reader")
for step in range((size + 3) // 4):
    images, labels = pipe.run()
    print(step, [labels.at(i).tolist() for i in range(len(labels))])
"""

# The ResNet-50 example's lineage: classes in one module, the script rebinding `pipe` to each.
CLASSES = """\
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class HybridTrainPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir, crop, local_rank=0, world_size=1):
        super(HybridTrainPipe, self).__init__(batch_size, num_threads, device_id, seed=12)
        self.input = ops.readers.File(
            file_root=data_dir, shard_id=local_rank, num_shards=world_size, random_shuffle=True, seed=7
        )
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.res = ops.Resize(device="cpu", resize_x=crop, resize_y=crop)

    def define_graph(self):
        self.jpegs, self.labels = self.input(name="Reader")
        return [self.res(self.decode(self.jpegs)), self.labels]


class HybridValPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir, crop, local_rank=0, world_size=1):
        super(HybridValPipe, self).__init__(batch_size, num_threads, device_id, seed=12)
        self.input = ops.readers.File(
            file_root=data_dir, shard_id=local_rank, num_shards=world_size, random_shuffle=False
        )
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.res = ops.Resize(device="cpu", resize_x=crop, resize_y=crop, interp_type=types.INTERP_TRIANGULAR)

    def define_graph(self):
        self.jpegs, self.labels = self.input(name="Reader")
        return [self.res(self.decode(self.jpegs)), self.labels]
"""

MAIN = """\
import argparse

from nvidia.dali.plugin.pytorch import DALIClassificationIterator

from dali_pipe import HybridTrainPipe, HybridValPipe


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    args = parser.parse_args()
    pipe = HybridTrainPipe(batch_size=4, num_threads=2, device_id=None, data_dir=args.data, crop=24)
    pipe.build()
    train_loader = DALIClassificationIterator(pipe, size=int(pipe.epoch_size("Reader")))
    pipe = HybridValPipe(batch_size=5, num_threads=2, device_id=None, data_dir=args.data, crop=24)
    pipe.build()
    val_loader = DALIClassificationIterator(pipe, size=int(pipe.epoch_size("Reader")))
    for epoch in range(2):
        for step, data in enumerate(train_loader):
            print(epoch, step, tuple(data[0]["data"].shape), data[0]["label"].view(-1).tolist())
        train_loader.reset()
        for step, data in enumerate(val_loader):
            print("val", epoch, step, data[0]["label"].view(-1).tolist())
        val_loader.reset()


if __name__ == "__main__":
    main()
"""


# A Lightning-style data module: the pipeline kept in an attribute that `setup()` stores, given to
# a subclass of DALI's iterator (the shape of DALI's Lightning tutorial).
DATAMODULE = """\
import sys

from nvidia.dali.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy

from pipes import train_pipe


class LightningWrapper(DALIClassificationIterator):
    def __init__(self, *kargs, **kvargs):
        super().__init__(*kargs, **kvargs)

    def __next__(self):
        out = super().__next__()[0]
        return [out[k] for k in self.output_map]


class DataModule:
    def __init__(self, root):
        self.root = root

    def setup(self, stage=None):
        self.pipe = train_pipe(self.root, batch_size=5, num_threads=1, device_id=None)
        self.loader = LightningWrapper(
            self.pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True
        )

    def train_dataloader(self):
        return self.loader


module = DataModule(sys.argv[1])
module.setup()
for epoch in range(2):
    for step, (images, labels) in enumerate(module.train_dataloader()):
        print(epoch, step, tuple(images.shape), labels.flatten().tolist())
"""


def write(folder, files: dict[str, str]) -> list:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return [folder / name for name in files]


def migrated(folder, files: dict[str, str]):
    """The run over the files, written in ``folder``, each result's new text written back."""
    paths = write(folder, files)
    summary = runner.run(paths, Policy.migrate())
    for path, result in zip(paths, summary.results):
        assert result.error is None, result.error
        if result.new_source is not None:
            path.write_text(result.new_source, encoding="utf-8")
    return summary.results


def human(results) -> list[str]:
    return [f"{d.code} {d.message}" for r in results for d in r.diagnostics if d.needs_human]


def test_an_importer_asking_for_epochs_gets_the_epoch_aware_shape(tmp_path):
    pipes, train, steps = migrated(tmp_path, {"pipes.py": PIPES, "train.py": TRAIN, "steps.py": STEPS})
    assert human([pipes, train, steps]) == []
    assert pipes.epochs == ("train_pipe",)
    assert "    return reader.get_metadata(), batches()\n" in pipes.new_source
    assert "pipe_meta, pipe = train_pipe(sys.argv[1], batch_size=4, num_threads=2, device_id=None)" in train.new_source
    assert "reader_meta=pipe_meta" in train.new_source and ".build()" not in train.new_source
    assert 'size = pipe_meta["epoch_size_padded"]' in steps.new_source  # what DALI's epoch_size(name) gives
    assert "images, labels = next(pipe)" in steps.new_source
    again = runner.run(sorted(tmp_path.glob("*.py")), Policy.migrate()).results
    assert [r.path for r in again if r.changed] == [], "a second run changed the migrated files"


def test_a_pipeline_given_in_a_list_through_a_package_import_takes_the_shape(tmp_path):
    """`from . import pipes as P`, and the iterator given `[pipe]`, as DALI's examples write it."""
    train = (
        "from nvidia.dali.plugin.pytorch import DALIGenericIterator\n\nfrom . import pipes as P\n\n\n"
        "def loader(root):\n    pipe = P.train_pipe(root, batch_size=4, num_threads=1, device_id=None)\n"
        '    return DALIGenericIterator([pipe], ["x", "y"], reader_name="Reader", auto_reset=True)\n'
    )
    results = migrated(tmp_path / "pkg", {"__init__.py": "", "pipes.py": PIPES, "train.py": train})
    assert human(results) == []
    assert results[2].new_source.startswith("from . import pipes as P\n")  # no blank line above it
    assert "    pipe_meta, pipe = P.train_pipe(root, batch_size=4" in results[2].new_source
    assert "reader_meta=[pipe_meta]" in results[2].new_source


def test_rebound_pipeline_classes_of_another_module_take_the_shape(tmp_path):
    dali_pipe, main = migrated(tmp_path, {"dali_pipe.py": CLASSES, "main.py": MAIN})
    assert human([dali_pipe, main]) == []
    assert dali_pipe.epochs == ("HybridTrainPipe", "HybridValPipe")
    assert main.new_source.count("pipe_meta, pipe = Hybrid") == 2
    assert main.new_source.count('int(pipe_meta["epoch_size_padded"])') == 2


def test_a_pipeline_kept_in_an_attribute_by_setup_takes_the_shape(tmp_path):
    pipes, module = migrated(tmp_path, {"pipes.py": PIPES, "module.py": DATAMODULE})
    assert human([pipes, module]) == []
    assert "        self.pipe_meta, self.pipe = train_pipe(self.root, batch_size=5," in module.new_source
    assert "            (self.pipe_meta, self.pipe), reader_name=" in module.new_source


def test_a_pipeline_the_shape_is_not_open_to_stays_in_both_modules(tmp_path):
    """`make` returns the pipeline: its callers would get `(metadata, batches)`."""
    factory = PIPES + "\n\ndef make(root):\n    return train_pipe(root, batch_size=2, num_threads=1, device_id=None)\n"
    pipes, train = migrated(tmp_path, {"pipes.py": factory, "train.py": TRAIN})
    assert not train.changed and pipes.epochs == ()
    (found,) = [d for d in pipes.diagnostics if d.needs_human]
    assert found.code == "NDD008" and found.message.startswith("`train_pipe` not migrated: ")
    assert found.message.endswith(
        "train.py:9 (`pipe`) asks for its reader's metadata (a framework iterator given `reader_name=`, "
        "`epoch_size()`), and the epoch-aware shape that gives it is not open here: it is not made by plain "
        "`pipe = p(...)` statements only (`return train_pipe(root, batch_size=2, num_threads=1, devi...` makes "
        "one otherwise)"
    )
    assert "@pipeline_def\ndef train_pipe(" in pipes.new_source


def test_an_importer_that_cannot_unpack_the_call_keeps_it(tmp_path):
    """One importer asks for the epochs; another returns the call from a factory of its own, which
    would hand its callers `(metadata, batches)`: the pipeline stays, and so do both importers."""
    other = (
        "from pipes import train_pipe\n\n\n"
        "def make(root):\n    return train_pipe(root, batch_size=2, num_threads=1, device_id=None)\n\n\n"
        "pipe = make('d')\npipe.build()\nprint(pipe.run())\n"
    )
    pipes, train, _ = migrated(tmp_path, {"pipes.py": PIPES, "train.py": TRAIN, "other.py": other})
    assert not train.changed and pipes.epochs == ()
    (found,) = [d for d in pipes.diagnostics if d.needs_human]
    assert "other.py:5 (`train_pipe(" in found.message
    assert "makes it other than by a plain `pipe = train_pipe(...)`" in found.message


def test_an_importer_whose_meta_name_is_taken_keeps_it(tmp_path):
    """`pipe_meta` is the importer's own name: the metadata would overwrite it."""
    train = TRAIN.replace(
        'print("steps", len(loader))', 'pipe_meta = {"run": 1}\nprint("steps", len(loader), pipe_meta)'
    )
    plain = "import sys\n\nfrom pipes import train_pipe\n\npipe = train_pipe(sys.argv[1], batch_size=2)\nprint(pipe.run())\n"
    pipes, train_result, _ = migrated(tmp_path, {"pipes.py": PIPES, "train.py": train, "plain.py": plain})
    assert not train_result.changed and pipes.epochs == ()
    (found,) = [d for d in pipes.diagnostics if d.needs_human]
    assert "train.py:7 (`train_pipe(sys.argv[1], batch_size=4" in found.message
    assert found.message.endswith(
        "cannot take the epoch-aware shape: `pipe_meta`, where it would keep the reader's metadata, is a name "
        "of this module already (rename it)"
    )


def test_check_reports_rebound_pipeline_classes_of_a_module_outside_the_run(tmp_path, monkeypatch):
    """pre-commit stages `main.py` only: its calls of the classes are reported (NDD007), each use."""
    write(tmp_path, {"dali_pipe.py": CLASSES, "main.py": MAIN, "pyproject.toml": ""})
    monkeypatch.chdir(tmp_path)
    (result,) = runner.run(["main.py"], Policy.check()).results
    found = [d for d in result.diagnostics if d.code == "NDD007"]
    assert [d.line for d in found] == [13, 16]
    assert found[0].message.startswith("`pipe` comes from `HybridTrainPipe` or `HybridValPipe` of `dali_pipe`")


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize(
    "files, scripts",
    [
        ({"pipes.py": PIPES, "train.py": TRAIN, "steps.py": STEPS}, ["train.py", "steps.py"]),
        ({"dali_pipe.py": CLASSES, "main.py": MAIN}, ["main.py"]),
        ({"pipes.py": PIPES, "module.py": DATAMODULE}, ["module.py"]),
    ],
    ids=["function", "classes", "data module"],
)
def test_the_migrated_programs_print_the_same(programs, tmp_path, files, scripts):
    from fixtures import datasets
    from ndd_migrate import support

    data = programs.dataset(datasets.make_all)["jpeg"]
    original = tmp_path / "original"
    write(original, files)
    expected = [programs.run(original / script, [data]) for script in scripts]
    results = migrated(tmp_path / "migrated", files)
    assert human(results) == [] and all(r.changed for r in results)
    (tmp_path / "migrated" / support.FILE_NAME).write_text(support.text(), encoding="utf-8")
    for script, before in zip(scripts, expected):
        after = programs.run(tmp_path / "migrated" / script, [data])
        assert before.returncode == 0 and after.returncode == 0, after.stderr[-3000:]
        assert before.stdout.strip() and after.stdout == before.stdout


# -- a defining module migrated before the run (pre-commit stages the importer only) ---------------


def test_the_epoch_aware_shape_is_recognised_on_disk(tmp_path):
    pipes, _ = migrated(tmp_path, {"pipes.py": PIPES, "train.py": TRAIN})
    assert migrated_shape.migrated_shapes(pipes.new_source.encode()) == (set(), {"train_pipe"})


def test_an_importer_staged_alone_unpacks_a_pipeline_migrated_in_the_epoch_aware_shape(tmp_path, monkeypatch):
    """`pipes.py` and `train.py` were migrated together; `steps.py`, written later in pipeline
    mode, is the only file of this run: its call site unpacks the metadata, its `epoch_size()`
    reads it."""
    migrated(tmp_path, {"pipes.py": PIPES, "train.py": TRAIN})
    write(tmp_path, {"steps.py": STEPS, "pyproject.toml": ""})
    monkeypatch.chdir(tmp_path)
    (checked,) = runner.run(["steps.py"], Policy.check()).results
    assert {d.code for d in checked.diagnostics} >= {"NDD002", "NDD003", "NDD005"}
    (result,) = runner.run(["steps.py"], Policy.migrate()).results
    assert human([result]) == []
    assert "pipe_meta, pipe = train_pipe(sys.argv[1], batch_size=4, num_threads=1, device_id=None)" in result.new_source
    assert 'size = pipe_meta["epoch_size_padded"]' in result.new_source


def test_check_reports_pipeline_api_on_a_generator_unpacked_from_the_epoch_aware_shape(tmp_path, monkeypatch):
    migrated(tmp_path, {"pipes.py": PIPES, "train.py": TRAIN})
    later = (
        "import sys\n\nfrom pipes import train_pipe\n\n"
        "pipe_meta, pipe = train_pipe(sys.argv[1], batch_size=4, num_threads=1, device_id=None)\n"
        "pipe.build()\nprint(next(pipe)[1], pipe_meta)\n"
    )
    write(tmp_path, {"later.py": later, "pyproject.toml": ""})
    monkeypatch.chdir(tmp_path)
    (result,) = runner.run(["later.py"], Policy.check()).results
    assert [(d.code, d.line) for d in result.diagnostics] == [("NDD002", 6)]


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_an_importer_migrated_alone_later_prints_the_same(programs, tmp_path, monkeypatch):
    from fixtures import datasets
    from ndd_migrate import support

    data = programs.dataset(datasets.make_all)["jpeg"]
    original = tmp_path / "original"
    write(original, {"pipes.py": PIPES, "steps.py": STEPS})
    expected = programs.run(original / "steps.py", [data])
    folder = tmp_path / "migrated"
    migrated(folder, {"pipes.py": PIPES, "train.py": TRAIN})
    write(folder, {"steps.py": STEPS, "pyproject.toml": ""})
    (folder / support.FILE_NAME).write_text(support.text(), encoding="utf-8")
    monkeypatch.chdir(folder)
    (result,) = runner.run(["steps.py"], Policy.migrate()).results
    (folder / "steps.py").write_text(result.new_source, encoding="utf-8")
    after = programs.run(folder / "steps.py", [data])
    assert expected.returncode == 0 and after.returncode == 0, after.stderr[-3000:]
    assert expected.stdout.strip() and after.stdout == expected.stdout
