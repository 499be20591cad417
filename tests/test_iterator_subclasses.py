"""A class deriving from DALI's PyTorch iterator (NDD411): its base becomes the support module's
iterator and the pipelines given to it migrate, where the class touches only what that iterator
keeps as DALI's did; elsewhere the pipelines stay in pipeline mode with a finding that says why."""

from __future__ import annotations

import pytest

from tests.conftest import HAS_DALI, migrate_text
from tests.test_iterators import CASES, MANY, SCALED, SHAPES, SUBCLASSED, _plain, source

IT = "from nvidia.dali.plugin.pytorch import DALIGenericIterator as It"

# A second pipeline function, for a call of the class whose pipeline stays in pipeline mode.
OTHER = (
    "\n\n@pipeline_def(batch_size=4)\ndef other_pipe(root):\n"
    '    jpegs, labels = fn.readers.file(file_root=root, name="Reader")\n    return jpegs, labels\n'
)


def subclassed(call: str, classes: str = SCALED, after: str = "") -> str:
    """SUBCLASSED with ``loader = {call}``, ``after`` it the lines ``after``."""
    text = SUBCLASSED.format(imports=IT, classes=classes, call=call)
    return text.replace("for data in loader:", after + "for data in loader:") if after else text


def _human(result) -> list:
    return [d for d in result.diagnostics if d.needs_human]


@pytest.mark.parametrize(
    "call, written",
    [
        (
            'Scaled(pipe, ["data", "label"], reader_name="Reader")',
            'Scaled((pipe_meta, pipe), ["data", "label"], reader_name="Reader")',
        ),
        (
            'Scaled(pipelines=[pipe], output_map=["data", "label"], reader_name="Reader")',
            'Scaled(pipelines=[(pipe_meta, pipe)], output_map=["data", "label"], reader_name="Reader")',
        ),
        ('Scaled(pipe, ["data", "label"], size=10)', 'Scaled(pipe, ["data", "label"], size=10)'),
        (
            'Scaled([train_pipe("/data")], ["data", "label"], reader_name="Reader")',
            'Scaled([train_pipe("/data")], ["data", "label"], reader_name="Reader")',
        ),
    ],
)
def test_a_subclass_takes_the_support_modules_iterator_as_its_base(call, written):
    out, result = migrate_text(subclassed(call))
    assert _human(result) == [], [d.message for d in _human(result)]
    assert "from ndd_support import DALIGenericIterator as It, prefetching\n" in out and "nvidia.dali.plugin" not in out
    assert f"loader = {written}\n" in out and "class Scaled(It):" in out, out
    fixed = [d.message for d in result.diagnostics if d.code == "NDD411"]
    assert "`Scaled` derives from the support module's `DALIGenericIterator`" in fixed
    assert migrate_text(out)[0] == out


def test_a_subclass_whose_init_names_its_parameters_is_read_as_the_call_of_its_base():
    """`DALIDataloader(pipeline, size, batch_size, ...)` giving `super().__init__(pipelines=pipeline,
    size=size, ...)`: the base call is bound from the call site, defaults included."""
    classes = (
        "class Loader(It):\n"
        "    def __init__(self, pipeline, size, batch_size, output_map=['data', 'label'], auto_reset=True):\n"
        "        self.steps = size // batch_size\n"
        "        super().__init__(pipelines=pipeline, size=size, auto_reset=auto_reset, output_map=output_map)\n\n"
        "    def __len__(self):\n"
        "        return -(-self._size // self.batch_size)"
    )
    out, result = migrate_text(subclassed("Loader(pipe, 10, 4)", classes))
    assert _human(result) == [], [d.message for d in _human(result)]
    assert "loader = Loader(pipe, 10, 4)\n" in out and "pipe_meta" not in out and "class Loader(It):" in out
    # `reader_name=` given through the call: the pipeline comes with its metadata
    named = classes.replace("size=size, ", "reader_name='Reader', ").replace(", size, batch_size", ", batch_size")
    named = named.replace("size // batch_size", "batch_size")
    out, result = migrate_text(subclassed("Loader(pipe, 4)", named))
    assert _human(result) == [] and "loader = Loader((pipe_meta, pipe), 4)\n" in out, out


def test_a_subclass_giving_its_base_an_expression_of_its_parameters_is_read_with_the_call_s_arguments():
    """`super().__init__(pipelines=pipeline, size=size * 2, last_batch_policy=DROP if drop else
    PARTIAL)`: before, "its `__init__` gives the base an expression of its parameters" kept the
    pipeline; the expressions are bound from the call site as the parameters are."""
    classes = (
        "from nvidia.dali.plugin.base_iterator import LastBatchPolicy\n\n\n"
        "class Loader(It):\n"
        "    def __init__(self, pipeline, size, drop=False):\n"
        "        policy = LastBatchPolicy.DROP if drop else LastBatchPolicy.PARTIAL\n"
        "        super().__init__(pipelines=pipeline, output_map=['data'], size=size * 2, last_batch_policy=policy)"
    )
    out, result = migrate_text(subclassed("Loader(pipe, 5, drop=True)", classes))
    assert _human(result) == [], [d.message for d in _human(result)]
    assert "loader = Loader(pipe, 5, drop=True)\n" in out and "class Loader(It):" in out
    # a value of the object itself is not the call's to give
    out, result = migrate_text(subclassed("Loader(pipe, 5)", classes.replace("size=size * 2", "size=self.n")))
    assert any("a value of `self`" in d.message for d in _human(result))


@pytest.mark.parametrize(
    "classes, call, after, why",
    [
        (
            SCALED + "\n\n    def __init__(self, pipelines, **kwargs):\n"
            "        self.n = pipelines.max_batch_size\n        super().__init__(pipelines, **kwargs)",
            'Scaled(pipe, output_map=["data", "label"], reader_name="Reader")',
            "",
            "its `__init__` reads `pipelines` beside giving it to the base",
        ),
        (
            SCALED.replace("/ 255", "/ len(self._pipes)"),
            'Scaled(pipe, ["data", "label"], reader_name="Reader")',
            "",
            "it uses `self._pipes`, which the support module's iterator does not keep as DALI's does",
        ),
        (
            SCALED + "\n\n    def _advance_and_check_drop_last(self, dry_run=False, end_iteration=True):\n"
            "        return super()._advance_and_check_drop_last(dry_run, end_iteration)",
            'Scaled(pipe, ["data", "label"], reader_name="Reader")',
            "",
            "it overrides `_advance_and_check_drop_last`",
        ),
        (
            SCALED,
            'Scaled(pipe, ["data", "label"], reader_name="Reader")',
            "print(isinstance(loader, Scaled))\n",
            "`Scaled` is used other than by calling it",
        ),
        (
            SCALED,
            'Scaled(pipe, ["data", "label"], reader_name="Reader")',
            "print(loader._last_batch_policy)\n",
            "`._last_batch_policy` of the iterator has no counterpart on the support module's iterator",
        ),
    ],
)
def test_a_subclass_touching_what_the_support_module_does_not_keep_keeps_its_pipeline(classes, call, after, why):
    text = subclassed(call, classes, after)
    out, result = migrate_text(text)
    assert "ndd." not in out and "ndd_support" not in out, out  # nothing converted
    said = " ".join(f"{d.message} {d.hint}" for d in _human(result))
    assert why in said, said
    assert migrate_text(out)[0] == out


def test_a_subclass_also_given_a_pipeline_that_stays_keeps_dalis_base_for_both():
    text = subclassed(
        'Scaled(pipe, ["data", "label"], reader_name="Reader")',
        after='other = other_pipe("/other")\nother.serialize()\nkept = Scaled(other, ["data", "label"], reader_name="Reader")\n',
    ).replace("\n\n\npipe = train_pipe", OTHER + "\n\npipe = train_pipe", 1)
    out, result = migrate_text(text)
    assert "ndd." not in out and "class Scaled(It):" in out, out
    said = [d.message for d in _human(result)]
    assert any("`Scaled` is also given, at line 26, pipelines that stay in pipeline mode" in m for m in said), said
    hints = [d.hint for d in _human(result) if d.code == "NDD008"]
    assert hints and "`Scaled` derives from DALI's iterator, which runs a pipeline: see the TODO" in hints[0], hints


def test_a_subclass_beside_dalis_iterator_over_a_pipeline_that_stays_takes_the_support_class_by_another_name():
    text = subclassed(
        'Scaled(pipe, ["data", "label"], reader_name="Reader")',
        after='other = other_pipe("/other")\nother.serialize()\nkept = It(other, ["data", "label"], reader_name="Reader")\n',
    ).replace("\n\n\npipe = train_pipe", OTHER + "\n\npipe = train_pipe", 1)
    out, result = migrate_text(text)
    assert [d.code for d in _human(result)] == ["NDD902"], [d.message for d in _human(result)]
    assert "class Scaled(NddDALIGenericIterator):" in out and IT + "\n" in out, out
    assert "from ndd_support import DALIGenericIterator as NddDALIGenericIterator, prefetching\n" in out
    assert 'kept = It(other, ["data", "label"], reader_name="Reader")' in out and migrate_text(out)[0] == out


def test_a_user_class_named_like_dalis_is_not_called_dalis():
    """NDD008 at a pipeline given to a class imported from a module outside the run: the hint does
    not say the class is DALI's because its name starts with `DALI`."""
    text = (
        "from nvidia.dali import fn, pipeline_def\nfrom loaders import DALIDataloader\n\n\n"
        "@pipeline_def(batch_size=4)\ndef train_pipe(root):\n"
        '    jpegs, labels = fn.readers.file(file_root=root, name="Reader")\n    return jpegs, labels\n\n\n'
        'pipe = train_pipe("/data")\nloader = DALIDataloader(pipe, 10)\n'
    )
    _, result = migrate_text(text)
    found = [d for d in _human(result) if d.code == "NDD008"]
    assert found and "`DALIDataloader()`" in found[0].message, [d.message for d in _human(result)]
    assert "is DALI's" not in found[0].hint and "make `DALIDataloader()` take" in found[0].hint, found[0].hint


# -- against DALI: the subclass's batches and its view of the state, before and after ---------------

STATE = '''

class Loader(DALIClassificationIterator):
    """Gives the first pipeline's dict, and records what it reads of the iterator's state."""

    def __init__(self, pipe, **kwargs):
        super().__init__(pipe, **kwargs)
        SEEN.append(("made", self._first_batch is not None, self._counter, self._size, self.batch_size, len(self)))

    def __next__(self):
        first = self._first_batch is not None
        out = super().__next__()[0]
        SEEN.append(("next", first, self._counter, self._size, self.size, self._num_gpus))
        return out


pipe = train_pipe(ROOT)'''


def _subclass_source(policy: str, reader: str) -> str:
    text = source(policy, reader, auto=policy != "DROP").replace("\n\npipe = train_pipe(ROOT)", STATE, 1)
    return text.replace("loader = DALIClassificationIterator(pipe,", "loader = Loader(pipe,").replace(
        "data[0][", "data["
    )


MANY_STATE = """
class Both(DALIGenericIterator):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)

    def __next__(self):
        if self._first_batch is not None:
            batch, self._first_batch = self._first_batch, None
            SEEN.append(("first", len(batch)))
            return batch
        SEEN.append(("counter", self._counter))
        return super().__next__()


"""


def _many_source(shape: str, policy: str) -> str:
    pipes, build, given = SHAPES[shape]
    text = MANY.format(reader="", pipes=pipes, build=build, given=given, policy=policy)
    return text.replace("\n\n" + pipes, "\n\n" + MANY_STATE + pipes, 1).replace(
        "loader = DALIGenericIterator(", "loader = Both("
    )


SUBCLASS_CASES = {
    **{f"{policy}{reader}": _subclass_source(policy, reader) for policy, reader in CASES if "pad" not in reader},
    **{f"several {shape} {policy}": _many_source(shape, policy) for shape in SHAPES for policy in ("FILL", "DROP")},
}


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("name", sorted(SUBCLASS_CASES))
def test_a_subclass_sees_what_it_saw_over_dalis_iterator(name, programs):
    """Whole programs: the batches of each epoch, and the state the subclass reads (`_first_batch`,
    `_counter`, `_size`, `batch_size`, `len()`, `size`, `_num_gpus`) at its creation and at each
    batch, the same over the support module's iterator as over DALI's (every last-batch policy,
    shards, `stick_to_shard`, several pipelines)."""
    pytest.importorskip("torch")
    from fixtures.datasets import make_jpeg

    root = str(programs.dataset(make_jpeg))
    original = SUBCLASS_CASES[name]
    migrated, result = migrate_text(original)
    assert _human(result) == [] and "ndd_support import" in migrated, migrated
    assert "reader_meta" not in migrated and "_meta, p" in migrated, migrated
    expected, got = programs.seen_by_both(original, migrated, root)
    assert len(expected) >= 6 and _plain(got) == _plain(expected)


# -- a class another module imports: its base stays DALI's ----------------------------------------

LOADERS = """\
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def local_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return jpegs, labels


class Loader(DALIGenericIterator):
    def __next__(self):
        return super().__next__()[0]


def local_loader(root):
    return Loader(local_pipe(root), ["data", "label"], reader_name="Reader")
"""

IMPORTER = """\
from nvidia.dali import fn, pipeline_def

from {spelled}


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def other_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return jpegs, labels


pipe = other_pipe("/data")
pipe.serialize()
loader = {call}(pipe, ["data", "label"], reader_name="Reader")
"""


@pytest.mark.parametrize(
    "spelled, call",
    [
        ("loaders import Loader", "Loader"),
        ("loaders import Loader as Kept", "Kept"),
        ("pkg import loaders", "loaders.Loader"),
    ],
)
@pytest.mark.parametrize("given", ["both", "the class's module alone"])
def test_a_class_another_module_imports_keeps_dalis_base(tmp_path, monkeypatch, cli, spelled, call, given):
    """`main.py` imports the class and gives it a pipeline that stays in pipeline mode: giving the
    class the support module's base would break it, in the run or outside it (pre-commit)."""
    monkeypatch.chdir(tmp_path)
    package = "pkg/" if spelled.startswith("pkg") else ""
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / f"{package}loaders.py").write_text(LOADERS, encoding="utf-8")
    (tmp_path / "main.py").write_text(IMPORTER.format(spelled=spelled, call=call), encoding="utf-8")
    paths = [f"{package}loaders.py", "main.py"] if given == "both" else [f"{package}loaders.py"]
    result = cli("migrate", *paths)
    assert result.exit_code == 1, result.output
    text = (tmp_path / f"{package}loaders.py").read_text()
    assert "class Loader(DALIGenericIterator):" in text and "ndd_support" not in text, text
    assert "@pipeline_def" in text and "TODO(ndd-migrate): NDD411 `Loader` derives from" in text, text
    why = "gives it pipelines that stay" if given == "both" else "this run does not migrate that file"
    assert f"main.py imports it, and {why}" in result.stderr, result.stderr


def test_a_class_no_other_module_imports_takes_the_support_modules_base(tmp_path, monkeypatch, cli):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    (tmp_path / "loaders.py").write_text(LOADERS, encoding="utf-8")
    (tmp_path / "main.py").write_text("import loaders\n\nprint(loaders.local_loader)\n", encoding="utf-8")
    result = cli("migrate", "loaders.py", "main.py")
    assert result.exit_code == 0, result.stderr
    text = (tmp_path / "loaders.py").read_text()
    assert "from ndd_support import DALIGenericIterator, prefetching\n" in text and "TODO" not in text, text


def test_a_call_of_an_imported_subclass_its_init_cannot_bind_keeps_its_pipeline(tmp_path, monkeypatch, cli):
    """`Loader(pipeline=...)`, a keyword `__init__` does not take: the call cannot be read as its
    base's. Before, deciding the class's base over such a call stopped the file with an internal
    error; now the pipeline stays, and the finding says why."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "loaders.py").write_text(
        "from nvidia.dali.plugin.pytorch import DALIGenericIterator\n\n\n"
        "class Loader(DALIGenericIterator):\n"
        "    def __init__(self, pipelines, size):\n"
        '        super().__init__(pipelines, ["data"], size=size)\n'
    )
    (tmp_path / "main.py").write_text(
        "from nvidia.dali import fn, pipeline_def\n\nfrom loaders import Loader\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def noise():\n    return fn.random.uniform(range=[0, 1], seed=1)\n\n\n"
        "loader = Loader(pipeline=noise(), size=4)\n"
    )
    result = cli("migrate", ".")
    assert "internal error" not in result.stderr and result.exit_code == 1, result.stderr
    said = " ".join(result.stderr.split())
    assert "`Loader(...)`: its arguments cannot be bound to the parameters of its `__init__`" in said, said
    assert "@pipeline_def" in (tmp_path / "main.py").read_text()


# -- a class of another module of the run, given migrated pipelines --------------------------------

LOADER_BASE = '''\
"""A data loader class of the project: the pipelines are made where it is used."""

from nvidia.dali.plugin.pytorch import DALIGenericIterator


class DataLoader(DALIGenericIterator):
    def __init__(self, pipeline, size, batch_size, output_map=["data", "label"], auto_reset=True, squeeze=False):
        self.batch_size = batch_size
        self.squeeze = squeeze
        super().__init__(pipelines=pipeline, size=size, auto_reset=auto_reset, output_map=output_map)

    def __next__(self):
        if self._first_batch is not None:
            batch = self._first_batch
            self._first_batch = None
            return batch
        data = super().__next__()[0]
        labels = data[self.output_map[1]]
        return [data[self.output_map[0]], labels.squeeze(-1) if self.squeeze else labels]

    def __len__(self):
        return -(-self._size // self.batch_size)
'''

LOADER_USER = """\
import sys

from nvidia.dali import fn, pipeline_def

from loader_base import DataLoader


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def small(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=3)
    return fn.resize(fn.decoders.image(jpegs), resize_x=5, resize_y=3), labels


pipe = small(sys.argv[1])
pipe.build()
loader = DataLoader(pipe, 10, 4, squeeze=True)
print("steps", len(loader))
for epoch in range(3):
    for i, batch in enumerate(loader):
        if isinstance(batch[0], dict):  # the first batch, as DALI gave it
            batch = [batch[0]["data"], batch[0]["label"]]
        print(epoch, i, tuple(batch[0].shape), batch[1].flatten().tolist())
"""


def _two_modules(folder) -> None:
    folder.mkdir()
    (folder / "loader_base.py").write_text(LOADER_BASE, encoding="utf-8")
    (folder / "train.py").write_text(LOADER_USER, encoding="utf-8")


def test_a_class_of_another_module_of_the_run_takes_the_support_modules_base(tmp_path, monkeypatch, cli):
    monkeypatch.chdir(tmp_path)
    _two_modules(tmp_path / "project")
    result = cli("migrate", "project")
    assert result.exit_code == 0, result.stderr
    base = (tmp_path / "project" / "loader_base.py").read_text()
    train = (tmp_path / "project" / "train.py").read_text()
    assert "from ndd_support import DALIGenericIterator\n" in base and "nvidia.dali" not in base, base
    assert "class DataLoader(DALIGenericIterator):" in base and "TODO" not in base + train, train
    assert "loader = DataLoader(pipe, 10, 4, squeeze=True)\n" in train and "import nvidia.dali.experimental" in train
    assert cli("migrate", "project").exit_code == 0 and (tmp_path / "project" / "train.py").read_text() == train
    # the module using the class alone: it is read as DALI's, which the run leaves as it is
    _two_modules(tmp_path / "alone")
    result = cli("migrate", "alone/train.py")
    assert "ndd.readers" not in (tmp_path / "alone" / "train.py").read_text() and result.exit_code == 1


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_a_class_of_another_module_gives_what_it_gave(tmp_path, monkeypatch, cli, programs):
    """The loader class in one module, the pipeline and the loop in another: both migrated, the
    program prints the same batches, labels and step counts."""
    pytest.importorskip("torch")
    from fixtures.datasets import make_jpeg

    root = programs.dataset(make_jpeg)
    monkeypatch.chdir(tmp_path)
    expected, got = programs.project_both(_two_modules, cli, "train.py", [root])
    assert expected.stdout.count("\n") > 8 and got.stdout == expected.stdout
