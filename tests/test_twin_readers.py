"""Two calls of one reader (ndd_migrate.model.features.twin_readers): converted where their epochs line up, one
precise TODO where they may not. Whole programs: tests/programs/two_readers_*.py."""

from __future__ import annotations

import pytest

from tests.conftest import migrate_text
from tests.test_legacy import legacy, migrate, todos

HEADER = "from nvidia.dali import fn, pipeline_def\n\n\n"
ZIP = (
    "        for (a, b), (c, d) in zip(\n"
    "            reader.next_epoch(batch_size=batch_size),\n"
    "            reader_2.next_epoch(batch_size=batch_size),\n"
    "            strict=True,\n"
    "        ):\n"
)


def function(
    first: str, second: str = "", between: str = "", decorator: str = "batch_size=4, device_id=None", tail: str = ""
) -> str:
    second = second or first
    return (
        f"{HEADER}@pipeline_def({decorator})\ndef pairs(root, shard=0, s=1):\n"
        f"    a, b = fn.readers.file({first})\n{between}"
        f"    c, d = fn.readers.file({second})\n"
        "    return a, b, c, d\n\n\n"
        f"pipe = pairs('x')\npipe.build()\na, b, c, d = pipe.run()\n{tail}"
    )


def test_same_arguments_two_readers_walked_together():
    out, _ = migrate(function("file_root=root, shard_id=shard, num_shards=2"))
    assert todos(out) == []
    assert (
        "    reader = ndd.readers.File(file_root=root, shard_id=shard, num_shards=2)\n"
        "    reader_2 = ndd.readers.File(file_root=root, shard_id=shard, num_shards=2)\n"
        "    while True:\n" + ZIP + "            yield a.evaluate(), b.evaluate(), c.evaluate(), d.evaluate()\n"
    ) in out


def test_arguments_compared_as_python_reads_them():
    """Layout, comments and keyword order do not make two readers differ."""
    out, _ = migrate(
        function("file_root=root, pad_last_batch=True", "pad_last_batch=True,  # padded\n        file_root=root")
    )
    assert todos(out) == [] and ZIP in out


def test_only_seed_literals_differ():
    """Each reader its own order, the same in both modes (checked by two_readers_own_seeds.py)."""
    out, _ = migrate(
        function("file_root=root, random_shuffle=True, seed=1", "file_root=root, random_shuffle=True, seed=2")
    )
    assert todos(out) == []
    assert "reader = ndd.readers.File(file_root=root, random_shuffle=True, seed=1)" in out
    assert "reader_2 = ndd.readers.File(file_root=root, random_shuffle=True, seed=2)" in out
    assert ZIP in out


def test_statement_between_the_readers_stays_in_the_batch_loop():
    out, _ = migrate(function("file_root=root", between="    x = fn.decoders.image(a)\n"))
    assert todos(out) == []
    assert ZIP + "            x = ndd.decoders.image(a)\n" in out


def test_single_output_readers_get_one_tuples():
    source = (
        f"{HEADER}@pipeline_def(batch_size=4, device_id=None)\ndef pairs(root):\n"
        "    x = fn.readers.numpy(file_root=root)\n    y = fn.readers.numpy(file_root=root)\n    return x, y\n"
    )
    out, _ = migrate(source)
    assert todos(out) == [] and "        for (x,), (y,) in zip(\n" in out


BLOCKED = {
    "shuffling without a seed": (
        function("file_root=root, random_shuffle=True"),
        "two shuffling readers without a `seed=` literal each",
    ),
    "shuffling with a seed known at run time": (
        function("file_root=root, random_shuffle=True, seed=s"),
        "two shuffling readers without a `seed=` literal each",
    ),
    "shuffling with seed -1": (
        function("file_root=root, random_shuffle=True, seed=-1"),
        "two shuffling readers without a `seed=` literal each",
    ),
    "one name": (function("file_root=root, name='Reader'"), "pipeline mode rejects operators named alike"),
    "different shards": (
        function("file_root=root, shard_id=0", "file_root=root, shard_id=1"),
        "with different arguments",
    ),
    "a seed and a shuffle differ": (
        function("file_root=root, random_shuffle=True, seed=1", "file_root=root, random_shuffle=False, seed=2"),
        "with different arguments",
    ),
    "an argument computed by a call": (function("file_root=root.strip()"), "an argument computed by a call"),
    "a name rebound between them": (
        function("file_root=root", between="    root = root + '/cat'\n"),
        "`root`, read by the readers' arguments, is assigned between the two reader calls",
    ),
    "on the GPU": (function("file_root=root, device='gpu'"), "two readers on the GPU"),
    "epoch size asked": (
        function("file_root=root", tail="print(pipe.epoch_size())\n"),
        "the epoch-aware shape follows one reader",
    ),
    "checkpointing": (
        function(
            "file_root=root",
            decorator="batch_size=4, device_id=None, enable_checkpointing=True",
            tail="state = pipe.checkpoint()\n",
        ),
        "checkpointing two readers",
    ),
    "three readers": (
        function("file_root=root")
        .replace("    return a, b, c, d\n", "    e, f = fn.readers.file(file_root=root)\n    return a, b, c, d, e, f\n")
        .replace("a, b, c, d = pipe.run()", "a, b, c, d, e, f = pipe.run()"),
        "more than two reader calls",
    ),
}


@pytest.mark.parametrize("case", sorted(BLOCKED))
def test_left_in_pipeline_mode_with_one_todo(case):
    source, why = BLOCKED[case]
    out, _ = migrate_text(source)
    found = todos(out)
    assert len(found) == 1 and why in found[0], found
    assert [
        line for line in out.splitlines() if "TODO(ndd-migrate)" not in line and not line.lstrip().startswith("#")
    ] == [line for line in source.splitlines()]


# -- a legacy class calling its reader object twice ----------------------------------------------


def reader_object(
    ctor: str, first: str = "jpegs1, labels1 = self.input()", second: str = "jpegs2, labels2 = self.input()"
) -> str:
    return legacy(
        f"super().__init__(batch_size, num_threads, device_id)\nself.input = ops.readers.File({ctor})",
        f"{first}\n{second}\nreturn jpegs1, labels1, jpegs2, labels2",
    )


def test_legacy_object_called_twice_two_readers():
    out, _ = migrate(reader_object("file_root='d', shard_id=1, num_shards=2"))
    assert todos(out) == []
    assert (
        "    reader = ndd.readers.File(file_root='d', shard_id=1, num_shards=2)\n"
        "    reader_2 = ndd.readers.File(file_root='d', shard_id=1, num_shards=2)\n"
        "    while True:\n"
        "        for (jpegs1, labels1), (jpegs2, labels2) in zip(\n"
        "            reader.next_epoch(batch_size=batch_size),\n"
        "            reader_2.next_epoch(batch_size=batch_size),\n"
        "            strict=True,\n"
        "        ):\n"
    ) in out
    assert "self.input" not in out


def test_legacy_constructor_call_runs_once():
    """A call in the constructor's arguments ran once, in `__init__`: both instances got its value."""
    out, _ = migrate(reader_object("file_root='d'.strip()"))
    assert todos(out) == [] and "reader_2 = ndd.readers.File(file_root='d'.strip())" in out


def flagged(after: str = "", graph: str = "", created: str = "if self.flag:") -> str:
    """A class making reader `b` under `if self.flag:` in `__init__` (``after``: statements after the
    `if`), read under the same test in ``define_graph`` unless ``graph`` says otherwise."""
    graph = graph or "if self.flag:\n    jpegs2, labels2 = self.b()"
    return legacy(
        "super().__init__(batch_size, num_threads, None)\nself.flag = flag\nself.other = other\n"
        f"self.a = ops.readers.File(file_root='d')\n{created}\n    self.b = ops.readers.File(file_root=flag)\n{after}",
        f"jpegs1, labels1 = self.a()\n{graph}\n    return jpegs2, labels2\nreturn jpegs1, labels1",
        signature="batch_size, num_threads, device_id, flag, other",
    )


LEGACY_BLOCKED = {
    "shuffling without a seed": (
        reader_object("file_root='d', random_shuffle=True"),
        "two shuffling readers without a `seed=` literal each",
    ),
    "a name": (reader_object("file_root='d', name='R'"), "pipeline mode rejects operators named alike"),
    "the second in an expression": (
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nself.input = ops.readers.File(file_root='d')",
            "jpegs1, labels1 = self.input()\nreturn jpegs1, fn.cast(self.input()[1], dtype=1)",
        ),
        "a second reader call that is not a statement",
    ),
    "epoch size asked": (
        reader_object("file_root='d'") + "\n\npipe = P(4, 1, None)\npipe.build()\nprint(pipe.epoch_size())\n",
        "NDD401 not migrated: two readers feeding a framework iterator or asked for their epoch size",
    ),
    "two objects, epoch size asked": (
        legacy(
            "super().__init__(batch_size, num_threads, None)\n"
            "self.a = ops.readers.File(file_root='d')\nself.b = ops.readers.File(file_root='e')",
            "jpegs1, labels1 = self.a()\njpegs2, labels2 = self.b()\nreturn jpegs1, labels1, jpegs2, labels2",
        )
        + "\n\npipe = P(4, 1, None)\npipe.build()\nprint(pipe.epoch_size())\n",
        "NDD401 not migrated: two readers feeding a framework iterator or asked for their epoch size",
    ),
    "two objects, a shuffling one unseeded": (
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\n"
            "self.a = ops.readers.File(file_root='d', random_shuffle=True, seed=1)\n"
            "self.b = ops.readers.File(file_root='e', random_shuffle=True)",
            "jpegs1, labels1 = self.a()\njpegs2, labels2 = self.b()\nreturn jpegs1, labels1, jpegs2, labels2",
        ),
        "a shuffling one without a `seed=N` literal",
    ),
    "two objects, the second under a test of a graph value": (
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\n"
            "self.a = ops.readers.File(file_root='d')\nself.b = ops.readers.File(file_root='e')",
            "jpegs1, labels1 = self.a()\nif labels1:\n    jpegs1, labels1 = self.b()\nreturn jpegs1, labels1",
        ),
        "an `if` testing only what the pipeline was built with",
    ),
    "two objects, a seed not a literal": (
        legacy(
            "super().__init__(batch_size, num_threads, None, seed=3)\ns = 7\n"
            "self.a = ops.readers.File(file_root='d', random_shuffle=True, seed=s)\n"
            "self.b = ops.readers.File(file_root='e', random_shuffle=True, seed=s)",
            "jpegs1, labels1 = self.a()\njpegs2, labels2 = self.b()\nreturn jpegs1, labels1, jpegs2, labels2",
        ),
        "a shuffling one given `seed=s`, not an integer literal",
    ),
    "two objects, a list of outputs in one name": (
        legacy(
            "super().__init__(batch_size, num_threads, None)\n"
            "self.a = ops.readers.File(file_root='d')\nself.b = ops.readers.File(file_root='e')",
            "jpegs1, labels1 = self.a()\nboth = self.b()\nreturn jpegs1, labels1, both[0]",
        ),
        "one name holds all 2 outputs of a reader",
    ),
    "the first reader a reader or None": (
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\n"
            "self.a = ops.readers.File(file_root='d') if batch_size else None",
            "if self.a is not None:\n    jpegs1, labels1 = self.a()\n    return jpegs1, labels1\n"
            "return fn.random.uniform(shape=2), fn.random.uniform(shape=2)",
        ),
        "is the first reader",
    ),
    "a reader created under a flag, called under another": (
        flagged(graph="if self.other:\n    jpegs2, labels2 = self.b()"),
        "`self.b`, created under `if self.flag:` in `__init__`, is called in `define_graph` other than in the branch "
        "of an `if self.flag:`",
    ),
    "a reader created under a flag, called outside it": (
        flagged(graph="jpegs2, labels2 = self.b()\nif self.flag:"),
        "is called in `define_graph` other than in the branch of an `if self.flag:`",
    ),
    "a reader created under a flag, called in its `else`": (
        flagged(graph="if self.flag:\n    pass\nelse:\n    jpegs2, labels2 = self.b()\nif self.flag:"),
        "is called in `define_graph` other than in the branch of an `if self.flag:`",
    ),
    "a reader created under a flag assigned again": (
        flagged(after="self.flag = not flag"),
        "where `self.flag` is not assigned exactly once, in a statement of `__init__` before the `if`",
    ),
    "a reader created under a test of a name": (
        flagged(created="if flag:", graph="if flag:\n    jpegs2, labels2 = self.b()"),
        "a test that reads more than `self.<attr>` values and literals",
    ),
    "a reader created in an `else` of `__init__`": (
        flagged(created="if not self.flag:\n    pass\nelse:"),
        "other than in the first branch of one of its statements",
    ),
    "the first reader created in the branches of an `if`": (
        legacy(
            "super().__init__(batch_size, num_threads, None)\nif batch_size > 1:\n"
            "    self.a = ops.readers.File(file_root='d')\nelse:\n    self.a = ops.readers.File(file_root='e')\n"
            "self.b = ops.readers.File(file_root='f')",
            "jpegs1, labels1 = self.a()\njpegs2, labels2 = self.b()\nreturn jpegs1, labels2",
        ),
        "several readers, the first created in an `if` of `__init__`",
    ),
    "two objects": (
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\n"
            "self.a = ops.readers.File(file_root='d')\nself.b = ops.readers.File(file_root='d', device='gpu')",
            "jpegs1, labels1 = self.a()\njpegs2, labels2 = self.b()\nreturn jpegs1, labels1, jpegs2, labels2",
        ),
        "several readers, one on the GPU",
    ),
}


SEED_NOT_A_LITERAL = {
    "shuffled after each epoch, in a seeded pipeline": (
        "super().__init__(batch_size, num_threads, None, seed=3)\ns = 7\n"
        "self.a = ops.readers.File(file_root='d', shuffle_after_epoch=True, seed=s)\n"
        "self.b = ops.readers.File(file_root='e', shuffle_after_epoch=True, seed=s)",
        False,
    ),
    "shuffled at random, in a pipeline without a seed": (
        "super().__init__(batch_size, num_threads, None)\ns = 7\n"
        "self.a = ops.readers.File(file_root='d', random_shuffle=True, seed=s)\n"
        "self.b = ops.readers.File(file_root='e', random_shuffle=True, seed=s)",
        True,
    ),
}


@pytest.mark.parametrize("case", sorted(SEED_NOT_A_LITERAL))
def test_legacy_readers_with_a_seed_not_a_literal_convert(case):
    """``shuffle_after_epoch`` shuffles in one order whatever the seed (DALI 2.4.0, both modes), and
    in a pipeline without a seed a reader's ``seed=s`` keeps its order wherever ``s`` is an int >= 0:
    both convert; what a ``random_shuffle`` reader's seed keeps only then is said, as a note."""
    init, noted = SEED_NOT_A_LITERAL[case]
    source = legacy(init, "jpegs1, labels1 = self.a()\njpegs2, labels2 = self.b()\nreturn labels1, labels2")
    out, diagnostics = migrate(source)
    assert todos(out) == []
    assert "seed=s" in out and "stream_2" in out
    said = [d for d in diagnostics if "where this `seed=` holds an int >= 0" in d.message]
    assert len(said) == (2 if noted else 0), said


@pytest.mark.parametrize("case", sorted(LEGACY_BLOCKED))
def test_legacy_left_with_one_todo(case):
    source, why = LEGACY_BLOCKED[case]
    out, _ = migrate_text(source)
    found = todos(out)
    assert len(found) == 1 and why in found[0], found


def test_legacy_reader_created_under_a_flag_and_read_under_it():
    """A reader made under ``if T:`` in ``__init__`` and called only in the branch of an ``if T:`` (an
    ``elif`` too): it and its stream are made under the same ``if``, its arguments evaluated only there
    (whole program: readers_of_their_own_created_by_flag.py)."""
    test = "self.flag and self.other is not None"
    graph = f"if not self.flag:\n    pass\nelif {test}:\n    jpegs2, labels2 = self.b()\nif self.flag:"
    out, _ = migrate(flagged(created=f"if {test}:", graph=graph))
    assert todos(out) == []
    assert (
        "    if flag and other is not None:\n"
        "        reader_2 = ndd.readers.File(**b_args)\n"
        "        stream_2 = (batch for _ in iter(int, 1) for batch in reader_2.next_epoch(batch_size=batch_size))\n"
        "    while True:\n"
    ) in out
    assert "            elif flag and other is not None:\n                jpegs2, labels2 = next(stream_2)\n" in out


def test_docstring_and_build_time_statement_between_the_readers():
    """The statements keep their places around the two readers' creation, a docstring included."""
    source = function("file_root=root", between="    print('built')\n").replace(
        "def pairs(root, shard=0, s=1):\n", 'def pairs(root, shard=0, s=1):\n    """Doc."""\n'
    )
    out, _ = migrate(source)
    assert todos(out) == []
    assert (
        '    """Doc."""\n'
        "    reader = ndd.readers.File(file_root=root)\n"
        "    reader_2 = ndd.readers.File(file_root=root)\n"
        "    print('built')\n"
        "    while True:\n" + ZIP
    ) in out


def test_legacy_pre_1_0_reader_name():
    """`ops.FileReader`, the name the oldest code uses, called twice."""
    out, _ = migrate(reader_object("file_root='d'").replace("ops.readers.File(", "ops.FileReader("))
    assert todos(out) == []
    assert "    reader = ndd.readers.File(file_root='d')\n    reader_2 = ndd.readers.File(file_root='d')\n" in out


@pytest.mark.parametrize(
    "code, named",
    [
        ("it = DALIGenericIterator(pipe, ['x'], reader_name='R')", {"R"}),
        ("it = DALIGenericIterator(pipe, ['x'], -1, 'Y')", {"Y"}),  # by position
        ("it = DALIGenericIterator(pipe, ['x'], reader_name=None, size=8)", set()),  # DALI's default
        ("n = pipe.epoch_size('Y')", {"Y"}),
        ("n = pipe.epoch_size()", None),  # every reader
        ("it = DALIGenericIterator(pipe, ['x'], reader_name=name)", None),
        ("it = DALIGenericIterator(pipe, ['x'], -1, name)", None),
    ],
)
def test_the_reader_names_a_module_hands_to_its_consumers(code, named):
    """The names the epoch-aware shape of readers of their own is checked against: the first
    reader must be the only one named."""
    import libcst as cst

    from ndd_migrate.model.features import twin_readers

    found = twin_readers.consumer_reader_names(cst.parse_module(code + "\n"))
    assert found == (None if named is None else frozenset(named))
