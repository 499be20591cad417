"""A user class that wraps DALI's PyTorch iterator: its ``__init__`` makes ``DALIGenericIterator``
(or ``DALIClassificationIterator``) over the pipelines its caller gives it and keeps it in a
``self`` attribute. Where the class uses that iterator only as DALI's and the support module's
both allow, the iterator it makes becomes the support module's and the pipelines given to the class
migrate (NDD411); the class and its callers keep their code. Whole programs:
``tests/programs/iterator_wrapper_*.py``."""

from __future__ import annotations

import pytest

from tests.conftest import HAS_DALI, migrate_text, write_tree

PIPELINE = """\
import math
import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIClassificationIterator


@pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=5)
def train(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, name="Reader")
    return fn.resize(fn.decoders.image(jpegs), resize_x=6, resize_y=4), labels


"""

WRAPPER = """\
class Loader:
    def __init__(self, pipelines, size, **kwargs):
        self._it = DALIClassificationIterator(pipelines=pipelines, size=size)

    def __len__(self):
        return math.ceil(self._it._size / self._it.batch_size)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._it)[0]["label"]


"""

USE = """\
pipe = train(sys.argv[1])
pipe.build()
loader = Loader(pipelines=pipe, size=pipe.epoch_size("Reader"))
print(len(loader), [labels.tolist() for labels in loader])
loader._it.reset()
"""


def _human(result) -> list[str]:
    return [f"{d.code} {d.message}" for d in result.diagnostics if d.needs_human]


def test_the_iterator_a_wrapper_makes_is_the_support_modules_and_its_callers_keep_their_code():
    """Before, the pipeline stayed: "passed to `Loader()`, which the migration does not follow"."""
    migrated, result = migrate_text(PIPELINE + WRAPPER + USE)
    assert _human(result) == []
    assert "from ndd_support import DALIClassificationIterator" in migrated
    assert "nvidia.dali.plugin" not in migrated  # DALI's class is read nowhere else: its import moved
    assert "        self._it = DALIClassificationIterator(pipelines=pipelines, size=size)\n" in migrated
    assert 'loader = Loader(pipelines=pipe, size=pipe_meta["epoch_size"])\n' in migrated
    assert "loader._it.reset()\n" in migrated


@pytest.mark.parametrize(
    "before, after, why",
    [
        # the class reads state the support module's iterator does not keep as DALI's does
        (
            "return next(self._it)[0]",
            "return self._it._pipes[0].run()[0]",
            "`self._it`, DALI's iterator: its `._pipes`",
        ),
        # it hands the iterator on: what is asked of it there is not followed
        ("return self\n", "return self._it.__iter__() or consume(self._it)\n", "it is handed to `consume()`"),
        # it keeps another iterator there later
        ("return self\n", "self._it = iter([])\n        return self\n", "`self._it` is set again"),
        # the caller reaches the iterator for state the support module does not keep
        ("loader._it.reset()", "print(loader._it._pipes)", "`._it`, DALI's iterator, is used where"),
        # a class derived from it reads state the support module's iterator does not keep
        (
            "print(len(loader)",
            "class Sub(Loader):\n    def pipes(self):\n        return self._it._pipes\n\n\nprint(len(loader)",
            "its subclass `Sub`: `self._it`, DALI's iterator: its `._pipes`",
        ),
        # or it is used otherwise
        ("print(len(loader)", "kinds = [Loader]\nprint(len(loader)", "`Loader` is used other than"),
        # an argument the iterator is given is read from the object itself
        ("size=size)", "size=self.size)", "gives `DALIClassificationIterator` a value of `self`"),
    ],
)
def test_a_wrapper_that_uses_its_iterator_otherwise_keeps_the_pipeline(before, after, why):
    source = PIPELINE + WRAPPER + USE
    assert before in source
    migrated, result = migrate_text(source.replace(before, after, 1))
    human = _human(result)
    assert human and any(why in message for message in human), human
    assert "@pipeline_def" in migrated and "ndd_support" not in migrated


def test_a_wrapper_beside_a_pipeline_made_only_elsewhere_takes_the_support_modules_iterator():
    """A pipeline of the module that no code of it makes is made in another module, which may give
    it to the wrapper migrated or, from code the run did not see, as DALI's `Pipeline`: the
    support module's iterator takes both (tests/programs: `wrapper_given_either_mode`), so the
    wrapper takes it and both pipelines convert. Before, both stayed: "`val` of this module is made
    only outside it, where it may be given to `Loader` as DALI's `Pipeline`"."""
    other = PIPELINE.replace(
        "def train(root):",
        "def val(root):\n    jpegs, labels = fn.readers.file(file_root=root)\n    return labels\n\n\n"
        "@pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=5)\ndef train(root):",
    )
    migrated, result = migrate_text(other + WRAPPER + USE)
    assert _human(result) == []
    assert "from ndd_support import DALIClassificationIterator" in migrated and "@pipeline_def" not in migrated


LOADER_MODULE = PIPELINE.replace("import sys\n", "") + WRAPPER
TRAIN_MODULE = "import sys\n\nfrom loaders import Loader, train\n\n\n" + USE


def _two_modules(folder) -> None:
    folder.mkdir()
    (folder / "loaders.py").write_text(LOADER_MODULE, encoding="utf-8")
    (folder / "train.py").write_text(TRAIN_MODULE, encoding="utf-8")


def test_a_wrapper_of_another_module_of_the_run_takes_the_migrated_pipeline(tmp_path, monkeypatch, cli):
    """The wrapper and the pipeline in a module of loaders, the pipeline made and given to the
    wrapper in the training script (the layout of the repositories that have this shape). Before,
    the loaders module kept both: "`Loader` runs DALI's `DALIClassificationIterator` on a pipeline
    it is given, and `train` is made only outside this module"."""
    monkeypatch.chdir(tmp_path)
    _two_modules(tmp_path / "project")
    result = cli("migrate", "project")
    assert result.exit_code == 0, result.stderr
    loaders = (tmp_path / "project" / "loaders.py").read_text()
    train = (tmp_path / "project" / "train.py").read_text()
    assert "from ndd_support import DALIClassificationIterator" in loaders and "TODO" not in loaders + train
    assert "pipe_meta, pipe = train(sys.argv[1])" in train and "loader._it.reset()" in train
    assert cli("migrate", "project").exit_code == 0 and (tmp_path / "project" / "train.py").read_text() == train
    # the loaders module alone: the training script of the project, outside the run, makes the
    # pipeline and gives it to the wrapper, and both stay
    _two_modules(tmp_path / "alone")
    (tmp_path / "alone" / "pyproject.toml").write_text("", encoding="utf-8")
    result = cli("migrate", "alone/loaders.py")
    alone = (tmp_path / "alone" / "loaders.py").read_text()
    assert "@pipeline_def" in alone and "ndd_support" not in alone and "TODO(ndd-migrate): NDD008" in alone
    assert result.exit_code == 1 and "train.py imports it, and this run does not migrate that file" in result.stderr


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_a_wrapper_of_another_module_gives_what_it_gave(tmp_path, monkeypatch, cli, programs):
    """Both modules migrated: the program prints the same labels, in the same order, and length."""
    root = _both_sides(tmp_path, monkeypatch, programs, lambda folder: None)
    expected, got = programs.project_both(_two_modules, cli, "train.py", [root])
    assert expected.stdout.startswith("4 [[") and got.stdout == expected.stdout


def _both_sides(tmp_path, monkeypatch, programs, make) -> str:
    """A JPEG dataset's root, with ``make(folder)`` written as ``original/`` and ``migrated/`` under
    ``tmp_path`` (the current folder)."""
    pytest.importorskip("torch")
    from fixtures.datasets import make_jpeg

    root = programs.dataset(make_jpeg)
    monkeypatch.chdir(tmp_path)
    for side in ("original", "migrated"):
        make(tmp_path / side)
    return root


ELSEWHERE = """\
import sys

from nvidia.dali import fn, pipeline_def

from loaders import Loader


@pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=7)
def small(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, name="Reader")
    return fn.resize(fn.decoders.image(jpegs), resize_x=3, resize_y=3), labels


pipe = small(sys.argv[1])
pipe.build()
loader = Loader(pipelines=pipe, size=pipe.epoch_size("Reader"))
print(type(loader._it).__module__, len(loader), [labels.tolist() for labels in loader])
"""


def _loaders_only(folder, text: str = LOADER_MODULE) -> None:
    """The loaders module as a library: its pipeline made, and its wrapper called, by code elsewhere."""
    folder.mkdir()
    (folder / "pyproject.toml").write_text("", encoding="utf-8")
    (folder / "loaders.py").write_text(text, encoding="utf-8")


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_a_migrated_wrapper_runs_what_code_the_run_did_not_see_gives_it(tmp_path, monkeypatch, cli, programs):
    """The loaders module migrated alone (no code of the project makes its pipeline or calls its
    wrapper): then code the run did not see gives the wrapper a pipeline-mode pipeline of its own,
    and a script migrated later gives it the module's migrated pipeline. Each prints what it
    printed with the original module: DALI's own iterator runs the pipeline-mode pipeline."""
    root = _both_sides(tmp_path, monkeypatch, programs, _loaders_only)
    result = cli("migrate", "migrated/loaders.py")
    assert result.exit_code == 0, result.stderr
    loaders = (tmp_path / "migrated" / "loaders.py").read_text()
    assert "from ndd_support import DALIClassificationIterator" in loaders and "@pipeline_def" not in loaders
    outputs = {}
    for side in ("original", "migrated"):
        (tmp_path / side / "elsewhere.py").write_text(ELSEWHERE, encoding="utf-8")
        ran = programs.run(tmp_path / side / "elsewhere.py", [root])
        assert ran.returncode == 0, ran.stderr[-2000:]
        outputs[side] = ran.stdout
    assert outputs["original"].startswith("nvidia.dali.plugin.pytorch ") and outputs["migrated"] == outputs["original"]
    # a script migrated later gives the wrapper the module's migrated pipeline (a size of its own:
    # the migrated pipeline no longer has `epoch_size()`, which a later run cannot follow)
    later = TRAIN_MODULE.replace('size=pipe.epoch_size("Reader")', "size=int(sys.argv[2])")
    (tmp_path / "original" / "train.py").write_text(later, encoding="utf-8")
    expected = programs.run(tmp_path / "original" / "train.py", [root, 12])
    (tmp_path / "migrated" / "train.py").write_text(later, encoding="utf-8")
    result = cli("migrate", "migrated/train.py")
    assert result.exit_code == 0, result.stderr
    got = programs.run(tmp_path / "migrated" / "train.py", [root, 12])
    assert expected.returncode == 0 and got.returncode == 0, got.stderr[-2000:]
    assert expected.stdout.startswith("3 [[") and got.stdout == expected.stdout


KEEPS_ITS_OWN = ELSEWHERE.replace("pipe.build()\n", "pipe.build()\nsetattr(pipe, 'note', 'stays')\n")


def _loaders_and_a_script_that_keeps(folder) -> None:
    """The loaders module running its own pipeline through its wrapper, and a script of the project
    giving the wrapper a pipeline of its own that stays in pipeline mode (an unfollowed use)."""
    folder.mkdir()
    (folder / "pyproject.toml").write_text("", encoding="utf-8")
    own = 'if __name__ == "__main__":\n' + "".join(f"    {line}\n" for line in USE.splitlines())
    (folder / "loaders.py").write_text(PIPELINE + WRAPPER + own, encoding="utf-8")
    (folder / "keeps.py").write_text(KEEPS_ITS_OWN, encoding="utf-8")


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_a_wrapper_given_a_pipeline_that_stays_by_another_module_runs_both(tmp_path, monkeypatch, cli, programs):
    """One run: the loaders module's pipeline converts and its wrapper takes the support module's
    iterator, though another module of the run gives the wrapper a pipeline that stays; each
    program prints what it printed. Before, the other module's kept pipeline kept the wrapper DALI's
    and the loaders module's pipeline with it."""
    root = _both_sides(tmp_path, monkeypatch, programs, _loaders_and_a_script_that_keeps)
    result = cli("migrate", "migrated")
    assert result.exit_code == 1 and "keeps.py" in result.stderr, result.stderr  # its pipeline stays, said
    loaders = (tmp_path / "migrated" / "loaders.py").read_text()
    assert "from ndd_support import DALIClassificationIterator" in loaders and "@pipeline_def" not in loaders
    for script in ("loaders.py", "keeps.py"):
        expected, got = (programs.run(tmp_path / side / script, [root]) for side in ("original", "migrated"))
        assert expected.returncode == 0 and got.returncode == 0, got.stderr[-2000:]
        assert "4 [[" in expected.stdout and got.stdout == expected.stdout


FAMILY = """\
class LoaderGPU(Loader):
    def __next__(self):
        try:
            return next(self._it)[0]["label"] + 0
        except StopIteration:
            self._it.reset()
            raise


def _worker(iterator, out):
    for batch in iterator:
        out.put(batch[0]["label"])
    iterator.reset()
    out.put(None)


class LoaderThreaded(Loader):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.out = queue.Queue()
        self.thread = threading.Thread(target=_worker, kwargs={"iterator": self._it, "out": self.out})
        self.thread.start()

    def __next__(self):
        labels = self.out.get()
        if labels is None:
            self.thread.join()
            raise StopIteration
        return labels


"""
FAMILY_MODULE = "import queue\nimport threading\n" + PIPELINE.replace("import sys\n", "") + WRAPPER + FAMILY

CALLER = """\
import sys

from nvidia.dali import fn, pipeline_def

from loaders import LoaderGPU, LoaderThreaded, train


@pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=7)
def small(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, name="Reader")
    return fn.resize(fn.decoders.image(jpegs), resize_x=3, resize_y=3), labels


for cls in (LoaderGPU, LoaderThreaded):
    {make}
    loader = cls(pipelines=pipe, size=12)
    print(cls.__name__, len(loader), [labels.tolist() for labels in loader])
"""


def test_a_wrapper_derived_from_in_its_module_takes_the_support_modules_iterator():
    """DALI's PyTorch demo: `DaliIterator` wraps the iterator and the classes deriving from it use
    it, one through a worker thread's function. Before, all stayed: "`Loader` is used other than
    by calling it"."""
    migrated, result = migrate_text(FAMILY_MODULE)
    assert _human(result) == []
    assert "from ndd_support import DALIClassificationIterator" in migrated and "@pipeline_def" not in migrated
    assert migrated.endswith(WRAPPER + FAMILY)  # the classes keep their code


@pytest.mark.parametrize(
    "before, after, why",
    [
        ('return next(self._it)[0]["label"] + 0', "return self._it._pipes", "its subclass `LoaderGPU`: `self._it`"),
        ("    for batch in iterator:", "    print(iterator._pipes)\n    for batch in iterator:", "`_worker()` uses"),
        ("target=_worker,", "target=print,", "handed to `print()`, which is not a function of this module"),
        ('kwargs={"iterator": self._it, ', 'kwargs={"it": self._it, ', "`_worker()`, which has no parameter"),
        ("        self.out = queue.Queue()\n", "        self._it = iter([])\n", "`self._it` is set again"),
    ],
)
def test_a_subclass_or_a_function_that_uses_the_iterator_otherwise_keeps_the_pipeline(before, after, why):
    source = "import sys\n" + FAMILY_MODULE + USE
    assert before in source
    migrated, result = migrate_text(source.replace(before, after, 1))
    human = _human(result)
    assert human and any(why in message for message in human), human
    assert "@pipeline_def" in migrated and "ndd_support" not in migrated


def test_a_thread_given_the_iterator_by_position_is_followed_too():
    source = FAMILY_MODULE.replace('kwargs={"iterator": self._it, "out": self.out}', "args=(self._it, self.out)")
    migrated, result = migrate_text(source)
    assert _human(result) == [] and "@pipeline_def" not in migrated


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_a_migrated_wrapper_family_runs_pipelines_of_either_mode(tmp_path, monkeypatch, cli, programs):
    """The module migrated alone; a caller written for each mode (pipeline mode before, the
    migrated pipeline after) prints what the original module printed for it, through the subclass
    and the worker thread."""
    root = _both_sides(tmp_path, monkeypatch, programs, lambda folder: _loaders_only(folder, FAMILY_MODULE))
    result = cli("migrate", "migrated/loaders.py")
    assert result.exit_code == 0, result.stderr
    callers = {
        "its own, built": "pipe = small(sys.argv[1])\n    pipe.build()",
        "the module's, built": "pipe = train(sys.argv[1])\n    pipe.build()",
        "the module's, migrated": "pipe = train(sys.argv[1])",
    }
    runs = {}
    for side, given in (
        ("original", "its own, built"),
        ("original", "the module's, built"),
        ("migrated", "its own, built"),
        ("migrated", "the module's, migrated"),
    ):
        (tmp_path / side / "caller.py").write_text(CALLER.format(make=callers[given]), encoding="utf-8")
        ran = programs.run(tmp_path / side / "caller.py", [root])
        assert ran.returncode == 0, ran.stderr[-2000:]
        runs[side, given] = ran.stdout
    assert runs["original", "its own, built"].count(" 3 [[") == 2
    assert runs["migrated", "its own, built"] == runs["original", "its own, built"]
    assert runs["migrated", "the module's, migrated"] == runs["original", "the module's, built"]


SPLIT_LOADERS = """\
import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator


class Loader:
    def __init__(self, *args, **kwargs):
        self.it = DALIGenericIterator(*args, **kwargs)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self.it)[0]["data"]


class Base(Pipeline):
    def __init__(self, batch_size, root):
        super().__init__(batch_size, 1, None)
        self.input = ops.readers.Numpy(file_root=root)
        self.scale = self.factor()

    def define_graph(self):
        data = self.input(name="Reader")
        return data * self.scale


class Train(Base):
    def factor(self):
        return 2


class Val(Base):
    def factor(self):
        return 3
"""
SPLIT_RUN = """\
import sys

from data_utils.dali import Loader, Train, Val

train_pipe = Train(2, sys.argv[1])
train_pipe.build()
loader = Loader(pipelines=[train_pipe], output_map=["data"], size=train_pipe.epoch_size("Reader"))
print("Train", [batch.tolist() for batch in loader])
val_pipe = Val(2, sys.argv[1])
val_pipe.build()
loader = Loader(pipelines=[val_pipe], output_map=["data"], size=val_pipe.epoch_size("Reader"))
print("Val", [batch.tolist() for batch in loader])
"""


def _split(folder) -> None:
    """The wrapper and a family of pipelines in ``data_utils/dali.py``, run from ``run.py``."""
    files = {"setup.cfg": "", "data_utils/__init__.py": "", "data_utils/dali.py": SPLIT_LOADERS, "run.py": SPLIT_RUN}
    write_tree(folder, files)


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_a_second_run_reads_a_migrated_wrapper_as_the_first_did(tmp_path, monkeypatch, cli, programs):
    """A wrapper whose iterator is the support module's already is still a wrapper of DALI's
    iterator: a second run leaves the project as it is. Before, the second run no longer saw a
    wrapper in it and wrote NDD008 TODOs at the calls the first run had migrated."""
    pytest.importorskip("torch")
    import numpy as np

    data = tmp_path / "data"
    data.mkdir()
    for i in range(4):
        np.save(data / f"{i}.npy", np.arange(3, dtype=np.int32) + 10 * i)
    monkeypatch.chdir(tmp_path)
    for side in ("original", "migrated"):
        _split(tmp_path / side)
    result = cli("migrate", "migrated")
    assert result.exit_code == 0, result.stderr
    first = {p: p.read_text() for p in (tmp_path / "migrated").rglob("*.py")}
    assert "class Base(Pipeline)" not in first[tmp_path / "migrated" / "data_utils" / "dali.py"]
    again = cli("migrate", "migrated")
    assert again.exit_code == 0, again.stderr
    assert {p: p.read_text() for p in (tmp_path / "migrated").rglob("*.py")} == first
    expected, got = (programs.run(tmp_path / side / "run.py", [data]) for side in ("original", "migrated"))
    assert expected.returncode == 0 and got.returncode == 0, got.stderr[-2000:]
    assert expected.stdout.startswith("Train [[") and got.stdout == expected.stdout
