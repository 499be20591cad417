"""benchmarks/silent_breakage.py reads a migrated tree for signs of a program broken with exit 0.
Each sign is planted in a pair of trees written here (the input, and an output as a faulty
migration would write it), and a faithful pair gives no finding."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

_spec = importlib.util.spec_from_file_location("silent_breakage", ROOT / "benchmarks" / "silent_breakage.py")
silent_breakage = importlib.util.module_from_spec(_spec)
sys.modules["silent_breakage"] = silent_breakage
_spec.loader.exec_module(silent_breakage)

BEFORE = """\
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


@pipeline_def
def p(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return labels

{user}
"""

AFTER = """\
import nvidia.dali.experimental.dynamic as ndd
from nvidia.dali.plugin.pytorch import DALIGenericIterator


def p(root, *, batch_size):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield labels

{user}
"""

WRAPPER = """
class Wrapper:
    def __init__(self, loader):
        self.loader = loader

    @staticmethod
    def epoch(loader):
        for b in loader:
            yield b
        loader.reset()

    def __iter__(self):
        return Wrapper.epoch(self.loader)
"""


def _pair(tmp_path: Path, before: dict[str, str], after: dict[str, str]) -> list:
    for side, files in (("in", before), ("out", after)):
        for name, text in files.items():
            path = tmp_path / side / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    return silent_breakage.analyse(tmp_path / "in", tmp_path / "out")


def _one(tmp_path, user_before, user_after, **extra):
    before = {"m.py": BEFORE.format(user=user_before), **extra.get("before", {})}
    after = {"m.py": AFTER.format(user=user_after), **extra.get("after", {})}
    return [(f.kind, f.path, f.line) for f in _pair(tmp_path, before, after)]


@pytest.mark.parametrize(
    "user",
    [
        "def f(root):\n    pipe = p(root)\n    pipe.build()\n",
        "def f(root):\n    pipe = p(root)\n    return len(pipe)\n",
        "def f(root):\n    pipe = p(root)\n    return DALIGenericIterator([pipe], ['x'])\n",
        "def make(root):\n    return p(root)\n\n\ndef f(root):\n    pipe = make(root)\n    pipe.epoch_size()\n",
        "class L:\n    def __init__(self, root):\n        self.pipe = p(root)\n\n    def size(self):\n        return self.pipe.epoch_size()\n",
        WRAPPER + "\n\ndef f(root):\n    pipe = p(root)\n    return Wrapper(next(pipe))\n",
    ],
)
def test_pipeline_api_on_a_converted_value_is_found(tmp_path, user):
    found = _one(tmp_path, user, user)
    assert [kind for kind, _, _ in found] == ["pipeline-api"], found


def test_a_todo_in_the_function_says_it_already(tmp_path):
    user = "def f(root):\n    pipe = p(root)\n    # TODO(ndd-migrate): NDD005 ...\n    pipe.epoch_size()\n"
    assert _one(tmp_path, user, user) == []


def test_a_value_of_the_same_name_elsewhere_is_not_the_converted_one(tmp_path):
    user = "def f(loader):\n    pipe = [1]\n    return len(pipe)\n"
    assert _one(tmp_path, user, user) == []


def test_across_modules(tmp_path):
    """A module that imports the converted function (by the dotted path's tail: `from pkg.m`
    finds `pkg/m.py`, `from .m` the module beside it)."""
    for i, spelled in enumerate(("from pkg.m import p", "from .m import p")):
        user = f"{spelled}\n\n\ndef f(root):\n    pipe = p(root)\n    pipe.build()\n"
        root = tmp_path / str(i)
        found = _pair(
            root,
            {"pkg/m.py": BEFORE.format(user=""), "pkg/main.py": user},
            {"pkg/m.py": AFTER.format(user=""), "pkg/main.py": user},
        )
        assert [(f.kind, f.path, f.line) for f in found] == [("pipeline-api", "pkg/main.py", 6)]


def test_next_added_to_a_value_that_was_not_converted(tmp_path):
    before = "def g(data):\n    loader = Loader(data)\n    return Wrapped(loader)\n"
    after = "def g(data):\n    loader = Loader(data)\n    return Wrapped(next(loader))\n"
    assert _one(tmp_path, before, after) == [("rewrite-of-other-value", "m.py", 13)]


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff (the test extra) is not on PATH")
def test_a_name_the_output_reads_and_nothing_binds(tmp_path):
    before = "def g():\n    x = 1\n    return x\n"
    after = "def g():\n    x = 1\n    return self_x\n"
    assert _one(tmp_path, before, after) == [("undefined-name", "m.py", 0)]


def test_a_faithful_migration_gives_nothing(tmp_path):
    before = "def f(root):\n    pipe = p(root)\n    pipe.build()\n    return pipe.run()\n"
    after = "def f(root):\n    pipe = p(root, batch_size=2)\n    return next(pipe)\n"
    assert _one(tmp_path, before, after) == []


EPOCH_AWARE = """\
import nvidia.dali.experimental.dynamic as ndd
from nvidia.dali.plugin.pytorch import DALIGenericIterator


def p(root, *, batch_size):
    reader = ndd.readers.File(file_root=root)

    def batches():
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                yield labels

    return reader.get_metadata(), batches()

{user}
"""


def test_the_epoch_aware_shape_is_followed(tmp_path):
    """`pipe_meta, pipe = p(...)`: the pair the epoch-aware shape returns; `pipe.epoch_size()` there
    is the sign of a size passed on unrewritten."""
    user = "def f(root):\n    pipe_meta, pipe = p(root, batch_size=2)\n    return pipe.epoch_size('Reader')\n"
    found = _pair(tmp_path, {"m.py": BEFORE.format(user=user)}, {"m.py": EPOCH_AWARE.format(user=user)})
    assert [(f.kind, f.line) for f in found] == [("pipeline-api", 17)]


def test_an_attribute_of_self_beside_the_pair_is_not_the_pipeline(tmp_path):
    user = (
        "class L:\n    def __init__(self, root):\n        self.pipe_meta, self.pipe = p(root, batch_size=2)\n"
        "        self.epoch_size = self.pipe_meta['epoch_size']\n\n    def __len__(self):\n        return self.epoch_size\n"
    )
    assert _pair(tmp_path, {"m.py": BEFORE.format(user=user)}, {"m.py": EPOCH_AWARE.format(user=user)}) == []


def test_the_support_modules_iterator_over_a_converted_value_is_not_a_sign(tmp_path):
    """`from ndd_support import DALIGenericIterator` (any alias) takes migrated pipelines; DALI's
    class of the same name does not."""
    user = "def f(root):\n    pipe = p(root)\n    return {cls}([pipe], ['x'])\n"
    either = (
        "try:\n    from .ndd_support import DALIGenericIterator\nexcept ImportError:\n"
        "    from ndd_support import DALIGenericIterator\n"
    )  # a namespace package's module run as a script too
    for imported, cls in (
        ("from pkg.ndd_support import DALIGenericIterator\n", "DALIGenericIterator"),
        ("from pkg.ndd_support import DALIGenericIterator as It\n", "It"),
        (either, "DALIGenericIterator"),
    ):
        after = AFTER.format(user=user.format(cls=cls)).replace(
            "from nvidia.dali.plugin.pytorch import DALIGenericIterator\n", imported
        )
        found = _pair(
            tmp_path / str(len(imported)),
            {"m.py": BEFORE.format(user=user.format(cls="DALIGenericIterator"))},
            {"m.py": after},
        )
        assert found == [], found


@pytest.mark.parametrize(
    "after",
    [
        "def g(root):\n    jpegs, labels = ndd.readers.File(file_root=root)\n    return jpegs\n",
        "def g(root):\n    data = ndd.readers.TFRecord(path=root)\n    return data['image']\n",
        "def g(root):\n    return ndd.decoders.image(ndd.readers.File(file_root=root))\n",
    ],
    ids=["unpacked", "subscripted", "handed to an op"],
)
def test_a_reader_object_used_as_its_outputs(tmp_path, after):
    before = "def g(root):\n    return None\n"
    assert _one(tmp_path, before, after) == [("reader-as-outputs", "m.py", 12)]


def test_a_reader_read_through_its_methods_is_not_a_sign(tmp_path):
    """The migration's own shape (the module's `p` reads `reader.next_epoch(...)`), and a reader in
    a conditional expression bound to a name."""
    after = "def g(root, on):\n    r = ndd.readers.File(file_root=root) if on else None\n    return r.get_metadata()\n"
    assert _one(tmp_path, "def g(root, on):\n    return None\n", after) == []
