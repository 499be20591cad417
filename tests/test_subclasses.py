"""A ``Pipeline`` base class with subclasses (ndd_migrate.model.sources.subclasses): each subclass flattened into
a generator function of its own; a class that does not convert stays with its bases, and one
finding at the base says which and why."""

from __future__ import annotations

import libcst as cst
import pytest

from ndd_migrate.model.sources import subclasses
from tests.conftest import calls_of, migrate_text

HEADER = (
    "import nvidia.dali.ops as ops\nimport nvidia.dali.types as types\nfrom nvidia.dali.pipeline import Pipeline\n\n\n"
)

BASE = (
    "class Base(Pipeline):\n"
    "    def __init__(self, batch_size, num_threads, device_id, _seed):\n"
    "        super(Base, self).__init__(batch_size, num_threads, device_id, seed=_seed)\n"
    "        self.coin = ops.random.CoinFlip(probability=0.5)\n\n"
    "    def define_graph(self):\n"
    "        data = self.input()\n"
    "        return data, self.coin()\n\n\n"
)


def migrate(source: str):
    out, result = migrate_text(source)
    again, _ = migrate_text(out)
    assert again == out, "a second run must change nothing"
    return out, result.diagnostics


def todos(out: str) -> list[str]:
    return [line for line in out.splitlines() if "TODO(ndd-migrate)" in line]


def without_todos(out: str) -> str:
    return "".join(
        line
        for line in out.splitlines(keepends=True)
        if "TODO(ndd-migrate)" not in line and not line.lstrip().startswith("#   ")
    )


def test_a_parameter_renamed_on_the_way_up_is_bound_to_its_argument():
    """``super(A, self).__init__(..., seed)`` into ``__init__(..., _seed)``: the base's ``_seed`` reads
    the subclass's ``seed``; the reader is the subclass's, ``define_graph`` the base's."""
    out, _ = migrate(
        HEADER + BASE + "class A(Base):\n    def __init__(self, batch_size, num_threads, device_id, seed, root):\n"
        "        super(A, self).__init__(batch_size, num_threads, device_id, seed)\n"
        "        self.input = ops.readers.Numpy(file_root=root)\n\n\n"
        "pipe = A(2, 1, None, 3, '/data')\npipe.build()\nout = pipe.run()\n"
    )
    assert todos(out) == [], out
    assert "def A(batch_size, num_threads, device_id, seed, root):" in out
    assert "rng = ndd.random.RNG(seed=seed)" in out and "_seed" not in out
    assert "reader = ndd.readers.Numpy(file_root=root)" in out
    assert "class Base" not in out and "out = next(pipe)" in out


def test_three_levels_each_instantiated_class_is_a_generator():
    """``Base`` → ``Mid`` (instantiated, and subclassed) → ``Leaf`` (its own ``define_graph``):
    ``Mid`` and ``Leaf`` are generators, ``Base`` (only a base) is gone."""
    out, diagnostics = migrate(
        HEADER + BASE + "class Mid(Base):\n    def __init__(self, batch_size, root):\n"
        "        super().__init__(batch_size, 1, None, 5)\n"
        "        self.input = ops.readers.Numpy(file_root=root)\n\n\n"
        "class Leaf(Mid):\n    def define_graph(self):\n        data = self.input()\n        return self.coin(), data\n\n\n"
        "a = Mid(2, '/a')\nb = Leaf(4, '/b')\nx = a.run()\ny = b.run()\n"
    )
    assert todos(out) == [], out
    assert "def Mid(batch_size, root):" in out and "def Leaf(batch_size, root):" in out
    assert out.count("ndd.random.RNG(seed=5)") == 2 and "class " not in out
    assert sorted(d.message for d in diagnostics if d.code == "NDD401") == [
        "`Pipeline` subclass `Leaf` → dynamic-mode generator",
        "`Pipeline` subclass `Mid` → dynamic-mode generator",
    ]


def test_an_argument_that_is_an_expression_is_bound_once():
    """``super().__init__(size * 2, ...)``: ``batch_size = size * 2`` where the call was (evaluated once,
    as the call did), not ``size * 2`` copied into each use."""
    out, _ = migrate(
        HEADER + BASE + "class A(Base):\n    def __init__(self, size, root):\n"
        "        super().__init__(size * 2, 1, None, None)\n"
        "        self.input = ops.readers.Numpy(file_root=root)\n\n\n"
        "pipe = A(2, '/data')\n"
    )
    assert todos(out) == [], out
    assert "    batch_size = size * 2\n" in out


FAMILY_REFUSED = {
    "a parameter bound to an expression, named like a local": (
        "class A(Base):\n    def __init__(self, batch_size, root):\n        _seed = 1\n"
        "        super().__init__(batch_size, 1, None, _seed * 2)\n        self.input = ops.readers.Numpy(file_root=root)\n",
        "`_seed` of `Base.__init__` is also a name of `A.__init__`",
    ),
    "star arguments": (
        "class A(Base):\n    def __init__(self, *args):\n        super().__init__(*args)\n"
        "        self.input = ops.readers.Numpy(file_root='/a')\n",
        "`*args` passed to `Base.__init__` fills parameters the call does not name",
    ),
    "super twice": (
        "class A(Base):\n    def __init__(self, batch_size):\n        super().__init__(batch_size, 1, None, 1)\n"
        "        super().__init__(batch_size, 1, None, 2)\n        self.input = ops.readers.Numpy(file_root='/a')\n",
        "must call `super().__init__(...)` once",
    ),
    "super in define_graph": (
        "class A(Base):\n    def __init__(self, batch_size):\n        super().__init__(batch_size, 1, None, 1)\n"
        "        self.input = ops.readers.Numpy(file_root='/a')\n\n"
        "    def define_graph(self):\n        return super().define_graph()\n",
        "`define_graph` calls `super()`",
    ),
    "a default evaluated once": (
        "class A(Base):\n    def __init__(self, batch_size):\n        super().__init__(batch_size, 1, None)\n"
        "        self.input = ops.readers.Numpy(file_root='/a')\n",
        "`_seed` of `Base.__init__` is not given",
    ),
}


@pytest.mark.parametrize("case", sorted(FAMILY_REFUSED))
def test_a_family_that_cannot_be_flattened_is_left_with_one_todo(case):
    subclass, reason = FAMILY_REFUSED[case]
    source = HEADER + BASE + subclass + "\n\npipe = A(2)\n"
    out, diagnostics = migrate(source)
    found = todos(out)
    assert len(found) == 1 and reason in out.replace("\n#   ", " "), out
    assert without_todos(out) == source


def test_a_local_of_both_bodies_is_refused():
    """The base's ``__init__`` binds ``size``, which the subclass's reads too: one body cannot hold
    both (the subclass would read the base's value)."""
    source = (
        HEADER + "class Base(Pipeline):\n    def __init__(self, batch_size):\n        size = 8\n"
        "        super().__init__(batch_size, 1, None)\n        self.crop = ops.Crop(crop=(size, size))\n\n"
        "    def define_graph(self):\n        return self.crop(self.input())\n\n\n"
        "class A(Base):\n    def __init__(self, batch_size, size):\n        super().__init__(batch_size)\n"
        "        self.input = ops.readers.Numpy(file_root='/a', shard_id=size)\n\n\n"
        "pipe = A(2, 0)\n"
    )
    out, _ = migrate(source)
    assert without_todos(out) == source
    assert len(todos(out)) == 1 and "`size` is a name of both `A.__init__` and `Base.__init__`" in out.replace(
        "\n#   ", " "
    ), out


def test_flatten_refuses_before_any_run():
    """The refusal is found on the text alone: no flattened family, one reason for the base."""
    module = cst.parse_module(HEADER + BASE + FAMILY_REFUSED["star arguments"][0])
    flat = subclasses.flatten(module)
    assert flat.families == [] and flat.module is module
    assert "fills parameters the call does not name" in flat.refused["Base"].message


def test_one_subclass_that_does_not_convert_keeps_the_whole_family():
    """``B`` has a method a generator has no place for: ``A`` is not converted either (all or none),
    and the base's one TODO names ``B`` and why."""
    source = (
        HEADER
        + BASE
        + "class A(Base):\n    def __init__(self, batch_size):\n        super().__init__(batch_size, 1, None, 1)\n"
        "        self.input = ops.readers.Numpy(file_root='/a')\n\n\n"
        "class B(A):\n    def __len__(self):\n        return 3\n\n\n"
        "a = A(2)\nb = B(3)\n"
    )
    out, diagnostics = migrate(source)
    found = todos(out)
    assert len(found) == 1 and "its subclass `B`: `__len__` has no counterpart in a generator function" in found[0], out
    assert without_todos(out) == source
    assert [d.line for d in diagnostics if d.needs_human] == [6]  # at `class Base`


def test_a_subclass_left_as_it_is_keeps_the_base_and_the_others_convert():
    """``B`` (a sibling, not a base of ``A``) has a method a generator has no place for: ``A``
    becomes a generator function, ``B`` and ``Base`` stay as they are, and the base's one TODO names
    ``B``, why, and that it stays a subclass of ``Base`` until then."""
    source = (
        HEADER
        + BASE
        + "class A(Base):\n    def __init__(self, batch_size):\n        super().__init__(batch_size, 1, None, 1)\n"
        "        self.input = ops.readers.Numpy(file_root='/a')\n\n\n"
        "class B(Base):\n    def __init__(self, batch_size):\n        super().__init__(batch_size, 1, None, 2)\n"
        "        self.input = ops.readers.Numpy(file_root='/b')\n\n    def __len__(self):\n        return 3\n\n\n"
        "a = A(2)\na.build()\ndata, coin = a.run()\nb = B(3)\nb.build()\nother, flips = b.run()\n"
    )
    out, diagnostics = migrate(source)
    found = todos(out)
    assert len(found) == 1 and "its subclass `B`: `__len__` has no counterpart" in found[0], out
    assert "until then `B` stays a subclass of `Base`" in out.replace("\n#   ", " ")
    assert "def A(batch_size):" in out and "class B(Base):" in out and "class Base(Pipeline):" in out
    assert "b.build()\nother, flips = b.run()" in out and "data, coin = next(a)" in out
    assert [d.line for d in diagnostics if d.needs_human] == [6]


def test_classes_left_one_after_the_other_each_say_why():
    """``B`` is left in the first pass; ``C`` only in the second (its output shares a name with
    ``B``'s): the base's finding names ``B`` and why, ``C`` gets its own at its class; ``A`` converts."""
    source = (
        HEADER
        + BASE
        + "".join(
            f"class {c}(Base):\n    def __init__(self, batch_size):\n        super().__init__(batch_size, 1, None, {i})\n"
            f"        self.input = ops.readers.Numpy(file_root='/{c}')\n"
            + ("\n    def __len__(self):\n        return 3\n" if c == "B" else "")
            + "\n\n"
            for i, c in enumerate("ABC")
        )
        + "a = A(2)\na.build()\ndata, coin = a.run()\n"
        "for pipe in [B(3), C(4)]:\n    pipe.build()\n    other, flips = pipe.run()\n"
    )
    out, diagnostics = migrate(source)
    found = [(d.line, d.message) for d in diagnostics if d.needs_human]
    lines = out.splitlines()
    assert len(found) == 2, found
    assert "its subclass `B`: `__len__` has no counterpart" in found[0][1] and found[0][0] == 6, found
    assert "its subclass `C`: a list of `B`/`C` pipelines" in found[1][1]
    assert "def A(batch_size):" in out and "class B(Base):" in out and "class C(Base):" in out
    assert lines[next(i for i, line in enumerate(lines) if line.startswith("class C(Base)")) - 1].startswith(
        "# TODO(ndd-migrate): NDD008"
    ), out


def test_a_base_used_otherwise_stays_a_pipeline_of_the_family():
    """``isinstance(pipe, Base)``: the base cannot disappear, and a generator is no instance of it:
    the family stays as it is, the finding says where ``Base`` is used."""
    source = (
        HEADER
        + BASE
        + "class A(Base):\n    def __init__(self, batch_size):\n        super().__init__(batch_size, 1, None, 1)\n"
        "        self.input = ops.readers.Numpy(file_root='/a')\n\n\n"
        "pipe = A(2)\nassert isinstance(pipe, Base)\n"
    )
    out, diagnostics = migrate(source)
    assert without_todos(out) == source
    assert len(todos(out)) == 1 and "isinstance" in out, out


def test_flattened_lines_point_at_the_original_classes():
    """A finding inside a flattened class is at the line of the class it came from: the base's
    operator at the base's line, the subclass's at the subclass's."""
    module = cst.parse_module(
        HEADER
        + BASE
        + "class A(Base):\n    def __init__(self, batch_size):\n        super().__init__(batch_size, 1, None, 1)\n"
        "        self.input = ops.readers.Numpy(file_root='/a')\n"
    )
    flat = subclasses.flatten(module)
    new = flat.module.code.split("\n")
    original = module.code.split("\n")
    for wanted in (
        "        self.coin = ops.random.CoinFlip(probability=0.5)",
        "        self.input = ops.readers.Numpy(file_root='/a')",
        "    def define_graph(self):",
    ):
        line = new.index(wanted) + 1
        assert original[flat.original_line(line) - 1] == wanted
    assert original[flat.original_line(new.index("class A(Pipeline):") + 1) - 1] == "class A(Base):"


def test_a_pipeline_class_chosen_by_a_variable_for_mxnet_is_kept():
    """``pipe_class = Train`` or ``= Check``, ``pipe = pipe_class(...)`` given to MXNet's
    iterator: each class it may be stays in pipeline mode, said by NDD411 (not "used other than by
    calling it")."""
    source = (
        "from nvidia.dali import ops\nfrom nvidia.dali.pipeline import Pipeline\n"
        "from nvidia.dali.plugin.mxnet import DALIGenericIterator\n\n\n"
        "class Train(Pipeline):\n    def __init__(self, root):\n        super().__init__(2, 1, None)\n"
        "        self.files = ops.readers.File(file_root=root)\n\n    def define_graph(self):\n"
        "        jpegs, labels = self.files(name='Reader')\n        return jpegs, labels\n\n\n"
        "def loader(root, train):\n    pipe_class = None\n    if train:\n        pipe_class = Train\n"
        "    pipe = pipe_class(root)\n    pipe.build()\n    return DALIGenericIterator([pipe], ['x', 'y'], reader_name='Reader')\n"
    )
    out, diagnostics = migrate(source)
    human = [d for d in diagnostics if d.needs_human]
    assert [d.code for d in human] == ["NDD411"] and "MXNet" in human[0].message, human
    assert "kept in pipeline mode" in human[0].message


def test_subclasses_sharing_the_base_methods_get_each_their_own_reader():
    """``Files`` and ``Records`` both run the base's ``define_graph`` and ``__init__`` is the base's in
    ``Plain``: each generator gets its own reader and its own settings (the copies are nodes of their own)."""
    out, _ = migrate(
        HEADER
        + BASE
        + "class Files(Base):\n    def __init__(self, batch_size, root):\n        super().__init__(batch_size, 1, None, 7)\n"
        "        self.input = ops.readers.File(file_root=root)\n\n\n"
        "class Records(Base):\n    def __init__(self, batch_size, path, index):\n        super().__init__(batch_size, 2, None, 11)\n"
        "        self.input = ops.readers.Caffe2(path=path, index_path=index)\n\n\n"
        "class Plain(Files):\n    pass\n\n\n"
        "a = Files(2, '/a')\nb = Records(3, '/b', '/c')\nc = Plain(4, '/d')\n"
    )
    assert todos(out) == [], out
    files, records, plain = out.split("\ndef ")[1:]
    assert "readers.File(file_root=root" in files and "RNG(seed=7)" in files
    assert "readers.Caffe2(path=path, index_path=index" in records and "RNG(seed=11)" in records
    assert "set_num_threads(2)" in records and "readers.File" not in records
    assert plain.startswith("Plain(batch_size, root):") and "readers.File(file_root=root" in plain


def test_the_module_is_read_once_for_every_family(monkeypatch):
    """How each family's classes are used is one reading of the module for all of them: a reading
    per family made a module of many families cost its square."""
    made = calls_of(monkeypatch, subclasses, "_References")
    source = HEADER + "".join(
        f"class B{i}(Pipeline):\n    def __init__(self):\n        super().__init__(2, 1, None)\n\n"
        f"    def define_graph(self):\n        return self.x()\n\n\n"
        f"class S{i}(B{i}):\n    def __init__(self):\n        super().__init__()\n        self.x = ops.Cast(dtype=types.FLOAT)\n\n\n"
        for i in range(5)
    )
    flat = subclasses.flatten(cst.parse_module(source))
    assert len(flat.families) == 5 and len(made) == 1
    assert made[0][0] == {f"B{i}" for i in range(5)} | {f"S{i}" for i in range(5)}
