"""Framework iterators (NDD411, epoch-aware shape, NDD005 metadata): the migrated training loop gives
the batches the DALI iterator gave, epoch by epoch, for every last-batch policy and sharding."""

from __future__ import annotations

import re

import pytest

from tests.conftest import HAS_DALI, migrate_text

SOURCE = """\
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=7, name="Reader"{reader})
    images = fn.decoders.image(jpegs)
    images = fn.resize(images, size=[16, 16])
    return images, labels


pipe = train_pipe(ROOT)
pipe.build()
samples = pipe.epoch_size("Reader")
loader = DALIClassificationIterator(pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.{policy}{auto})
for epoch in range(3):
    for i, data in enumerate(loader):
        SEEN.append((epoch, data[0]["data"].numpy(), data[0]["label"].numpy()))
{reset}"""


def source(policy="PARTIAL", reader="", auto=True):
    return SOURCE.format(
        policy=policy,
        reader=reader,
        auto=", auto_reset=True" if auto else "",
        reset="" if auto else "    loader.reset()\n",
    )


def test_iterator_loop_is_rewritten():
    out, _ = migrate_text(source(auto=False))
    assert "pipe_meta, pipe = train_pipe(ROOT)" in out
    assert 'samples = pipe_meta["epoch_size"]' in out
    assert 'loader = dali_iterator_epochs(pipe, pipe_meta, ["data", "label"], "partial")' in out
    assert "for i, data in enumerate(next(loader)):" in out
    assert "reset()" not in out and "TODO" not in out
    assert "max_batch_size=batch_size" in out and "return reader.get_metadata(), batches()" in out
    assert migrate_text(out)[0] == out


def test_the_support_import_goes_after_the_last_import_above_the_code():
    """Imports below module code (a constant computed from `os` first): the support module's import
    goes after the DALI imports' replacement, not among the leading imports above that code."""
    text = "import os\n\nROOT = os.environ.get('ROOT', '.')\nSIZE = 3\n\n" + source(auto=False)
    out, result = migrate_text(text)
    assert out.startswith(
        "import os\n\nROOT = os.environ.get('ROOT', '.')\nSIZE = 3\n\nimport nvidia.dali.experimental.dynamic as ndd\n\n"
        "from ndd_support import dali_iterator_epochs, prefetching\n\n\ndef train_pipe("
    ), out[:300]
    assert result.support == ("dali_iterator_epochs", "prefetching") and "def dali_iterator_epochs(" not in out


UNSUPPORTED = [
    ("DALIClassificationIterator(pipe)", "without `reader_name`"),
    ("DALIClassificationIterator(pipe, size=-1)", "`size` is not a number of samples"),
    ("DALIClassificationIterator(pipe, size=13, reader_name='R')", "`size` next to `reader_name`"),
    (
        "DALIClassificationIterator(pipe, size=13, last_batch_padded=PADDED)",
        "`last_batch_padded` is not `True` or `False`",
    ),
    (
        "DALIClassificationIterator(pipe, reader_name='R', fill_last_batch=FLAG)",
        "`fill_last_batch` is not `True` or `False`",
    ),
    (
        "DALIClassificationIterator(pipe, reader_name='R', last_batch_padded=True)",
        "`last_batch_padded` other than `False`",
    ),
    ("DALIClassificationIterator((pipe,), reader_name='R')", "takes a list of pipelines, not a tuple"),
    ("DALIClassificationIterator(pipe, reader_name='R', last_batch_policy=POLICY)", "not a `LastBatchPolicy`"),
    ("DALIGenericIterator(pipe, reader_name='R')", "no `output_map`"),
]


def with_iterator(call):
    return (
        source()
        .replace(
            'DALIClassificationIterator(pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True)',
            call,
        )
        .replace("import DALIClassificationIterator", "import DALIClassificationIterator, DALIGenericIterator")
    )


@pytest.mark.parametrize("call, why", UNSUPPORTED)
def test_unsupported_iterators_keep_their_pipeline(call, why):
    """An iterator NDD411 cannot rewrite keeps its pipeline in pipeline mode (the plan): one NDD008
    at the pipeline names the iterator and NDD411's reason; the iterator itself is left alone."""
    text = with_iterator(call)
    out, result = migrate_text(text)
    found = [d for d in result.diagnostics if d.needs_human]
    assert [d.code for d in found] == ["NDD008"] and why in found[0].hint and call.split("(")[0] in found[0].hint
    assert "dali_iterator_epochs" not in out and "TODO(ndd-migrate): NDD411" not in out
    assert re.sub(r"(?m)^[ \t]*# TODO\(ndd-migrate\): .*\n", "", out) == text


@pytest.mark.parametrize("call", [call for call, _ in UNSUPPORTED])
def test_a_second_run_over_an_unsupported_iterator_changes_nothing(call):
    once, _ = migrate_text(with_iterator(call))
    twice, result = migrate_text(once)
    assert twice == once and not result.changed
    assert once.count("TODO(ndd-migrate):") == 1


@pytest.mark.parametrize(
    "arguments, policy",
    [
        ("fill_last_batch=False", '"partial"'),
        ("fill_last_batch=True, last_batch_policy=LastBatchPolicy.DROP", None),  # the legacy flag wins, as in DALI
        ("fill_last_batch=False, last_batch_policy=LastBatchPolicy.DROP", '"partial"'),
        ("fill_last_batch=None, last_batch_policy=LastBatchPolicy.DROP", '"drop"'),
        ("last_batch_padded=False", None),
    ],
)
def test_legacy_flags_become_the_policy_dali_gives_them(arguments, policy):
    call = f'DALIClassificationIterator([pipe], reader_name="Reader", {arguments})'
    out, result = migrate_text(with_iterator(call))
    expected = 'dali_iterator_epochs(pipe, pipe_meta, ["data", "label"]' + (f", {policy})" if policy else ")")
    assert expected in out and not any(d.needs_human for d in result.diagnostics), out


FRAMEWORK = """\
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.{plugin} import {cls}


@pipeline_def(batch_size=2)
def make(shard):
    (x,) = fn.readers.numpy(file_root='/d', name='R', shard_id=shard, num_shards=2)
    return x


{pipes}
it = {cls}({given}, ['x'], reader_name='R')
"""


@pytest.mark.parametrize(
    "plugin, cls, framework",
    [
        ("mxnet", "DALIClassificationIterator", "MXNet"),
    ],
)
@pytest.mark.parametrize(
    "pipes, given",
    [("", "make(0)"), ("pipe = make(0)", "[pipe]"), ("pipes = [make(i) for i in range(2)]", "pipes")],
)
def test_other_framework_iterators_keep_their_pipeline(plugin, cls, framework, pipes, given):
    """One finding, at the iterator: the pipeline is kept in pipeline mode for that framework."""
    text = FRAMEWORK.format(plugin=plugin, cls=cls, pipes=pipes, given=given)
    out, result = migrate_text(text)
    found = [d for d in result.diagnostics if d.needs_human]
    assert [d.code for d in found] == ["NDD411"], found
    assert f"kept in pipeline mode: its pipeline feeds {framework}'s `{cls}`" in found[0].message
    assert "@pipeline_def" in out and out.count("TODO(ndd-migrate)") == 1
    unknown = f"from nvidia.dali.plugin.{plugin} import {cls}\n\nit = {cls}(make(), ['x'], reader_name='R')\n"
    assert migrate_text(unknown)[0] == unknown  # a pipeline this run does not convert: nothing to do


def test_a_pipeline_class_with_len_given_to_paddle_is_kept_with_one_finding():
    """The Paddle iterator converts (tests/test_paddle_iterator.py): `__len__` is why it stays (NDD401)."""
    text = (
        "from nvidia.dali import ops\n"
        "from nvidia.dali.pipeline import Pipeline\n"
        "from nvidia.dali.plugin.paddle import DALIClassificationIterator\n\n\n"
        "class Train(Pipeline):\n"
        "    def __init__(self):\n"
        "        super().__init__(4, 1, 0)\n"
        "        self.input = ops.readers.File(file_root='/d', name='R')\n\n"
        "    def define_graph(self):\n"
        "        jpegs, labels = self.input()\n"
        "        return jpegs, labels\n\n"
        "    def __len__(self):\n"
        "        return 8\n\n\n"
        "pipe = Train()\n"
        "pipe.build()\n"
        "loader = DALIClassificationIterator(pipe, size=len(pipe))\n"
    )
    out, result = migrate_text(text)
    found = [d for d in result.diagnostics if d.needs_human]
    assert [d.code for d in found] == ["NDD401"] and "`__len__`" in found[0].message
    assert "class Train(Pipeline)" in out and out.count("TODO(ndd-migrate)") == 1


def test_pipeline_without_iterator_keeps_the_generator_shape():
    text = source().split("pipe = train_pipe")[0] + "pipe = train_pipe(ROOT)\nout = pipe.run()\n"
    out, _ = migrate_text(text)
    assert "get_metadata" not in out and "max_batch_size" not in out


CASES = [
    (policy, reader)
    for policy in ("FILL", "PARTIAL", "DROP")
    for reader in (
        "",
        ", num_shards=2, shard_id=1",
        ", num_shards=3, shard_id=0, stick_to_shard=True",
        ", num_shards=2, shard_id=0, pad_last_batch=True",
    )
]


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("policy, reader", CASES)
def test_same_batches_per_epoch_as_dali_iterator(policy, reader, programs):
    pytest.importorskip("torch")
    from fixtures.datasets import make_jpeg

    root = str(programs.dataset(make_jpeg))
    original = source(policy, reader, auto=policy != "DROP")
    migrated, _ = migrate_text(original)
    assert "dali_iterator_epochs" in migrated and "TODO" not in migrated, migrated
    expected, got = programs.seen_by_both(original, migrated, root)
    assert [(e, len(lab)) for e, _, lab in got] == [(e, len(lab)) for e, _, lab in expected]
    for (_, images_a, labels_a), (_, images_b, labels_b) in zip(expected, got):
        assert images_a.shape == images_b.shape and (images_a == images_b).all()
        assert (labels_a == labels_b).all()


SUBCLASSED = """\
from nvidia.dali import fn, pipeline_def
{imports}


@pipeline_def(batch_size=4)
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return fn.decoders.image(jpegs), labels


{classes}


pipe = train_pipe("/data")
loader = {call}
for data in loader:
    pass
"""

SCALED = """\
class Scaled(It):
    def __next__(self):
        data = super().__next__()
        return data[0]["data"] / 255"""

# Reads state of DALI's iterator that the support module's does not keep (DALI's pipelines).
SCALED_BY_PIPES = SCALED.replace("/ 255", "/ len(self._pipes)")


@pytest.mark.parametrize(
    "imports, classes, call, name, base",
    [
        (
            "from nvidia.dali.plugin.pytorch import DALIGenericIterator as It",
            SCALED_BY_PIPES,
            'Scaled(pipe, ["data", "label"], reader_name="Reader")',
            "Scaled",
            "DALIGenericIterator",
        ),
        (
            "from nvidia.dali.plugin.pytorch import DALIGenericIterator as It",
            SCALED_BY_PIPES,
            'Scaled(pipelines=[pipe], output_map=["data", "label"], reader_name="Reader")',
            "Scaled",
            "DALIGenericIterator",
        ),
        (
            "import nvidia.dali.plugin.pytorch as dalitorch",
            "class Base(dalitorch.DALIClassificationIterator):\n    pass\n\n\nclass Timed(Base):\n    pass",
            "Timed(pipe, reader_name='Reader')",
            "Timed",
            "DALIClassificationIterator",
        ),
        (
            "try:\n    from nvidia.dali.plugin import pytorch\nexcept ImportError:\n    pytorch = None",
            "if pytorch is not None:\n    class Loader(pytorch.DALIGenericIterator):\n        pass",
            "Loader(pipe, ['data', 'label'], reader_name='Reader')",
            "Loader",
            "DALIGenericIterator",
        ),
    ],
)
def test_a_subclass_of_a_dali_iterator_is_reported_and_its_pipeline_left_alone(imports, classes, call, name, base):
    text = SUBCLASSED.format(imports=imports, classes=classes, call=call)
    out, result = migrate_text(text)
    found = [d for d in result.diagnostics if d.code == "NDD411"]
    at_class = [d for d in found if d.message.startswith(f"`{name}` derives from `{base}`")]
    assert len(at_class) == 1 and not at_class[0].fixed
    assert text.splitlines()[at_class[0].line - 1].lstrip().startswith(f"class {name}(")
    assert "migrated pipeline is a generator" in at_class[0].message and "`reader.get_metadata()" in at_class[0].hint
    blocked = [d for d in found if d.message.startswith("`train_pipe` not migrated")]
    assert len(blocked) == 1 and f"given to `{name}`" in blocked[0].message
    assert "@pipeline_def(batch_size=4)" in out and "ndd." not in out  # nothing converted
    assert out.count(f"TODO(ndd-migrate): NDD411 `{name}` derives from") == 1
    twice, again = migrate_text(out)
    assert twice == out and not again.changed


def test_the_subclass_todo_names_the_methods_whose_work_moves():
    text = SUBCLASSED.format(
        imports="from nvidia.dali.plugin.pytorch import DALIGenericIterator as It",
        classes=SCALED_BY_PIPES,
        call='Scaled(pipe, ["data", "label"], reader_name="Reader")',
    )
    out, _ = migrate_text(text)
    todo = next(line for line in out.splitlines() if "NDD411 `Scaled`" in line)
    assert "`.torch()`" in todo and "does what `__next__` did" in todo
    assert "it uses `self._pipes`, which the support module's iterator does not keep" in todo
    assert out.index(todo) < out.index("class Scaled(It):")


def test_a_subclass_alone_is_reported_and_other_pipelines_still_migrate():
    text = SUBCLASSED.format(
        imports="from nvidia.dali.plugin.pytorch import DALIGenericIterator as It",
        classes=SCALED,
        call="pipe.run()",
    ).replace("for data in loader:\n    pass\n", "")
    out, result = migrate_text(text)
    assert [d.code for d in result.diagnostics if not d.fixed] == ["NDD411"]
    assert "def train_pipe(root, *, batch_size=4):" in out and "loader = next(pipe)" in out


MANY = """\
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def shard_pipe(root, shard):
    jpegs, labels = fn.readers.file(file_root=root, num_shards=3, shard_id=shard, name="Reader"{reader})
    return fn.resize(fn.decoders.image(jpegs), size=[8, 8]), labels


{pipes}
{build}
loader = DALIGenericIterator({given}, ["data", "label"], reader_name="Reader", last_batch_policy=LastBatchPolicy.{policy})
for epoch in range(4):
    for data in loader:
        SEEN.append((epoch, [d["data"].numpy() for d in data], [d["label"].numpy() for d in data]))
    loader.reset()
"""

SHAPES = {
    "comprehension": ("pipes = [shard_pipe(ROOT, i) for i in range(3)]", "for p in pipes:\n    p.build()", "pipes"),
    "names": ("p0 = shard_pipe(ROOT, 0)\np1 = shard_pipe(ROOT, 2)", "p0.build()\np1.build()", "[p0, p1]"),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_an_iterator_over_several_pipelines_is_rewritten(shape):
    pipes, build, given = SHAPES[shape]
    out, result = migrate_text(MANY.format(reader="", pipes=pipes, build=build, given=given, policy="PARTIAL"))
    expected = {
        "comprehension": 'dali_iterator_epochs_many(pipes, pipes_meta, ["data", "label"], "partial")',
        "names": 'dali_iterator_epochs_many([p0, p1], [p0_meta, p1_meta], ["data", "label"], "partial")',
    }[shape]
    assert expected in out and "build()" not in out and not any(d.needs_human for d in result.diagnostics), out
    if shape == "comprehension":
        assert "pipes_meta, pipes = zip(*[shard_pipe(ROOT, i) for i in range(3)])" in out
    assert migrate_text(out)[0] == out


def test_several_pipelines_with_their_own_device_ids_and_gpu_readers_are_reported():
    """Each would get its own EvalContext, which DALI's readers keep entered between batches: only a
    GPU reader needs it (a CPU reader runs in the shared default context)."""
    pipes = "pipes = [shard_pipe(ROOT, i, device_id=i) for i in range(3)]"
    text = MANY.format(reader="", pipes=pipes, build="", given="pipes", policy="FILL")
    text = text.replace("fn.readers.file(file_root=root,", 'fn.readers.numpy(device="gpu", file_root=root,')
    out, result = migrate_text(text)
    found = [d for d in result.diagnostics if d.needs_human]
    assert [d.code for d in found] == ["NDD008"] and "`EvalContext` of their own" in found[0].message
    assert "dali_iterator_epochs" not in out


def test_several_pipelines_with_their_own_device_ids_and_cpu_readers_convert():
    pipes = "pipes = [shard_pipe(ROOT, i, device_id=i) for i in range(3)]"
    out, result = migrate_text(MANY.format(reader="", pipes=pipes, build="", given="pipes", policy="FILL"))
    assert not any(d.needs_human for d in result.diagnostics), [d.message for d in result.diagnostics]
    assert "dali_iterator_epochs_many(pipes, pipes_meta" in out and "ctx=ctx" not in out


MANY_CASES = [
    (shape, policy, reader)
    for shape in sorted(SHAPES)
    for policy in ("FILL", "PARTIAL", "DROP")
    for reader in ("", ", stick_to_shard=True", ", pad_last_batch=True")
]


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("shape, policy, reader", MANY_CASES)
def test_same_batches_per_epoch_over_several_pipelines(shape, policy, reader, programs):
    pytest.importorskip("torch")
    from fixtures.datasets import make_jpeg

    root = str(programs.dataset(make_jpeg))
    pipes, build, given = SHAPES[shape]
    original = MANY.format(reader=reader, pipes=pipes, build=build, given=given, policy=policy)
    migrated, _ = migrate_text(original)
    assert "dali_iterator_epochs_many" in migrated and "TODO" not in migrated, migrated
    expected, got = programs.seen_by_both(original, migrated, root)
    assert [(e, [len(x) for x in labels]) for e, _, labels in got] == [
        (e, [len(x) for x in labels]) for e, _, labels in expected
    ]
    for (_, images_a, labels_a), (_, images_b, labels_b) in zip(expected, got):
        assert all(a.shape == b.shape and (a == b).all() for a, b in zip(images_a, images_b))
        assert all((a == b).all() for a, b in zip(labels_a, labels_b))


SIZED = """\
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root{reader})
    return fn.resize(fn.decoders.image(jpegs), size=[8, 8]), labels


{pipes}
loader = DALIGenericIterator({given}, ["data", "label"], size={size}{arguments})
for epoch in range(4):
    for data in loader:
        SEEN.append((epoch, [d["data"].numpy() for d in data], [d["label"].numpy() for d in data]))
    loader.reset()
"""

SIZED_CASES = [
    (given, size, arguments)
    for given in ("pipe", "pipes")
    for size in (10, 21)
    for arguments in (
        "",
        ", last_batch_policy=LastBatchPolicy.PARTIAL",
        ", last_batch_policy=LastBatchPolicy.DROP",
        ", fill_last_batch=False, last_batch_padded=True",
        ", last_batch_padded=True",
    )
]


def sized_source(given, size, arguments, reader=""):
    pipes = "pipe = train_pipe(ROOT)" if given == "pipe" else "pipes = [train_pipe(ROOT, seed=7) for _ in range(2)]"
    return SIZED.format(reader=reader, pipes=pipes, given=given, size=size, arguments=arguments)


def test_an_iterator_with_size_and_no_reader_name_is_rewritten():
    out, result = migrate_text(sized_source("pipe", 10, ", last_batch_padded=True"))
    assert 'loader = dali_iterator_sized_epochs([pipe], 10, ["data", "label"], "fill", True)' in out
    assert "pipe = train_pipe(ROOT)\n" in out and "pipe_meta" not in out  # no reader metadata needed
    assert "def dali_iterator_epochs(" not in out and not any(d.needs_human for d in result.diagnostics)
    assert migrate_text(out)[0] == out


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("given, size, arguments", SIZED_CASES)
def test_same_batches_per_epoch_with_size(given, size, arguments, programs):
    pytest.importorskip("torch")
    from fixtures.datasets import make_jpeg

    root = str(programs.dataset(make_jpeg))
    original = sized_source(given, size, arguments, reader=", random_shuffle=True, seed=3")
    migrated, _ = migrate_text(original)
    assert "dali_iterator_sized_epochs" in migrated and "TODO" not in migrated, migrated
    expected, got = programs.seen_by_both(original, migrated, root)
    assert [(e, [len(x) for x in labels]) for e, _, labels in got] == [
        (e, [len(x) for x in labels]) for e, _, labels in expected
    ]
    for (_, images_a, labels_a), (_, images_b, labels_b) in zip(expected, got):
        assert all(a.shape == b.shape and (a == b).all() for a, b in zip(images_a, images_b))
        assert all((a == b).all() for a, b in zip(labels_a, labels_b))


def _kept(text):
    """The findings needing a human, after checking the file is unchanged beyond one TODO."""
    out, result = migrate_text(text)
    found = [d for d in result.diagnostics if d.needs_human]
    assert out.count("TODO(ndd-migrate)") == len(found), out
    return found


RUN_TIME_CHOICE = """\
import sys

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def loader(root, shard):
    jpegs, labels = fn.readers.file(file_root=root, name="R", shard_id=shard, num_shards=2)
    return jpegs, labels


def mxnet_iterator():
    from nvidia.dali.plugin.mxnet import DALIGenericIterator as Iterator
    return Iterator


def torch_iterator():
    from nvidia.dali.plugin.pytorch import DALIGenericIterator as Iterator
    return Iterator


def consume(iterator_class, root):
    shards = [loader(root, s) for s in range(2)]
    for shard in shards:
        shard.build()
    {use}


CHOICES = {{"mxnet": mxnet_iterator, "torch": torch_iterator}}
consume(CHOICES[sys.argv[2]](), sys.argv[1])
"""


@pytest.mark.parametrize(
    "use, construct",
    [
        (
            "for batch in iterator_class(shards, ['x', 'y'], reader_name='R'):\n        print(batch)",
            "`iterator_class(...)`",
        ),
        ("op = iterator_class()\n    print(op(pipeline=shards[0]))", "`op(pipeline=...)`, the op of `iterator_class`"),
    ],
)
def test_an_iterator_class_chosen_at_run_time_keeps_its_pipelines(use, construct):
    """The class is a parameter; the module hands out MXNet's and PyTorch's: one NDD411, naming both."""
    found = _kept(RUN_TIME_CHOICE.format(use=use))
    assert [d.code for d in found] == ["NDD411"], found
    assert (
        f"kept in pipeline mode: its pipeline feeds {construct}, an iterator class chosen at run time"
        in found[0].message
    )
    assert "(MXNet's `DALIGenericIterator`, PyTorch's `DALIGenericIterator`): those of MXNet have" in found[0].message


def test_an_iterator_class_parameter_alone_does_not_keep_a_pipeline():
    """Without a framework iterator class handed out by the module, a parameter proves nothing."""
    text = RUN_TIME_CHOICE.format(use="print(iterator_class(shards))").replace("plugin.mxnet", "plugin.pytorch")
    found = _kept(text)
    assert "NDD411" not in {d.code for d in found} and found, found


TF_OP = """\
import nvidia.dali.plugin.tf as dali_tf
from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def loader(root):
    jpegs, labels = fn.readers.file(file_root=root, name="R")
    return jpegs, labels


def tensors(root):
    pipe = loader(root)
    {use}
"""


@pytest.mark.parametrize(
    "use, construct",
    [
        ("op = dali_tf.DALIIterator()\n    return op(pipeline=pipe, batch_size=2)", "`op(pipeline=...)`"),
        ("return dali_tf.DALIIterator()(pipeline=pipe, batch_size=2)", "`DALIIterator()(pipeline=...)`"),
    ],
)
def test_tensorflow_dali_iterator_op_keeps_its_pipeline(use, construct):
    found = _kept(TF_OP.format(use=use))
    assert [d.code for d in found] == ["NDD411"], found
    assert f"kept in pipeline mode: its pipeline feeds {construct}, TensorFlow's `DALIIterator` op" in found[0].message


def test_an_optional_list_of_pipelines_given_to_mxnet_is_kept():
    """`pipes = [...] if flag else None`: the iterator it is given to keeps them (one NDD411), rather
    than an NDD008 at the conditional expression."""
    text = FRAMEWORK.format(
        plugin="mxnet",
        cls="DALIClassificationIterator",
        pipes="import sys\npipes = [make(i) for i in range(2)] if sys.argv else None",
        given="pipes",
    )
    found = _kept(text)
    assert [d.code for d in found] == ["NDD411"], found
    assert "MXNet's `DALIClassificationIterator`" in found[0].message


def test_tf_dataset_wins_over_what_would_block_the_class():
    """A graph constant would block the class (NDD901); the pipeline feeds `DALIDataset`, so the keep
    is its only finding (`ops.Shapes` converts: NDD402)."""
    text = (
        "import tensorflow as tf\n"
        "from nvidia import dali\n"
        "import nvidia.dali.plugin.tf as dali_tf\n\n\n"
        "class Sized(dali.pipeline.Pipeline):\n"
        "    def __init__(self):\n"
        "        super().__init__(batch_size=2, num_threads=1, device_id=None)\n"
        "        self.shape_of = dali.ops.Shapes(dtype=dali.types.INT32)\n"
        "        self.noise = dali.ops.random.Uniform(range=[0, 1], shape=[3])\n\n"
        "    def define_graph(self):\n"
        "        x = self.noise()\n"
        "        return self.shape_of(x), x * dali.types.Constant(2.0)\n\n\n"
        "ds = dali_tf.DALIDataset(pipeline=Sized(), batch_size=2, output_dtypes=(tf.int32, tf.float32))\n"
    )
    found = _kept(text)
    assert [d.code for d in found] == ["NDD904"], found
    without = _kept(
        text.replace(
            "ds = dali_tf.DALIDataset(pipeline=Sized(), batch_size=2, output_dtypes=(tf.int32, tf.float32))\n",
            "pipe = Sized()\n",
        )
    )
    assert {d.code for d in without} == {"NDD901"}, without


# -- an iterator kept in a `self` attribute, over a pipeline kept in one ----------------------------

IN_ATTRIBUTE = """\
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin import pytorch


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return fn.resize(fn.decoders.image(jpegs), size=[4, 4]), labels


class Loader:
    def __init__(self, root):
        self.pipe = train_pipe(root)
        self.pipe.build()
        self.samples = self.pipe.epoch_size("Reader")
        self.it = pytorch.DALIGenericIterator({iterator})

{methods}

loader = Loader(ROOT)
for epoch in range(3):
{loop}
"""

EPOCH_BY_ITER = "    def __iter__(self):\n        return {how}\n"
RESET_METHOD = "    def reset(self):\n        self.it.reset()\n"
LOOP_OVER_LOADER = (
    '    for data in loader:\n        SEEN.append((epoch, data[0]["data"].numpy(), data[0]["label"].numpy()))\n'
)
LOOP_IN_METHOD = (
    "    def epoch(self):\n        for data in self.it:\n"
    '            SEEN.append((self.samples, data[0]["data"].numpy(), data[0]["label"].numpy()))\n'
)

ATTRIBUTE_CASES = {
    "sized, auto_reset, __iter__()": (
        'pipelines=self.pipe, output_map=["data", "label"], size=self.samples - 2, auto_reset=True',
        EPOCH_BY_ITER.format(how="self.it.__iter__()"),
        LOOP_OVER_LOADER,
    ),
    "reader_name, iter(), no auto_reset": (
        '[self.pipe], ["data", "label"], reader_name="Reader", last_batch_policy=pytorch.LastBatchPolicy.PARTIAL',
        EPOCH_BY_ITER.format(how="iter(self.it)"),
        LOOP_OVER_LOADER,
    ),
    "loop in a method, reset() in another": (
        'self.pipe, ["data", "label"], reader_name="Reader", last_batch_policy=pytorch.LastBatchPolicy.DROP',
        LOOP_IN_METHOD + "\n" + RESET_METHOD,
        "    loader.epoch()\n    loader.reset()\n",
    ),
}


def attribute_case(name: str) -> str:
    iterator, methods, loop = ATTRIBUTE_CASES[name]
    return IN_ATTRIBUTE.format(iterator=iterator, methods=methods, loop=loop)


@pytest.mark.parametrize("name", sorted(ATTRIBUTE_CASES))
def test_an_iterator_in_an_attribute_over_a_pipeline_in_one_is_rewritten(name):
    out, result = migrate_text(attribute_case(name))
    assert not [d for d in result.diagnostics if d.needs_human], out
    assert "self.pipe_meta, self.pipe = train_pipe(root)" in out and "self.pipe.build()" not in out
    assert 'self.samples = self.pipe_meta["epoch_size"]' in out
    if "size=" in ATTRIBUTE_CASES[name][0]:
        assert 'self.it = dali_iterator_sized_epochs([self.pipe], self.samples - 2, ["data", "label"])' in out
    else:
        assert 'self.it = dali_iterator_epochs(self.pipe, self.pipe_meta, ["data", "label"], ' in out
    if "__iter__" in ATTRIBUTE_CASES[name][1]:
        assert "        return next(self.it)\n" in out
    else:
        assert "        for data in next(self.it):\n" in out and "    def reset(self):\n        pass\n" in out
    assert "pytorch" not in out and migrate_text(out)[0] == out


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("name", sorted(ATTRIBUTE_CASES))
def test_an_iterator_in_an_attribute_gives_the_batches_dali_gave(name, programs):
    """Each pass (`iter()`, `__iter__()`, a loop in a method) is one epoch, as DALI's iterator resets
    at `iter()` after a consumed batch whether `auto_reset` is given or not."""
    pytest.importorskip("torch")
    from fixtures.datasets import make_jpeg

    root = str(programs.dataset(make_jpeg))
    original = attribute_case(name)
    migrated, _ = migrate_text(original)
    expected, got = programs.seen_by_both(original, migrated, root)
    assert len(expected) > 6 and [(e, len(lab)) for e, _, lab in got] == [(e, len(lab)) for e, _, lab in expected]
    for (_, images_a, labels_a), (_, images_b, labels_b) in zip(expected, got):
        assert (images_a == images_b).all() and (labels_a == labels_b).all()


OTHER_USES = (
    "    def __len__(self):\n        return len(self.it)\n\n"
    "    def __iter__(self):\n        return self.it\n\n"  # the DALI iterator itself, not one pass
    "    def first(self):\n        return next(self.it)\n\n"
    "    def batches(self):\n        return iter(self.it)\n\n"
    "    def size(self):\n        return self.it.size\n"
)
LOOP_WITH_LEN = (
    "    for data in loader:\n"
    '        SEEN.append((epoch, len(loader), loader.size(), data[0]["label"].flatten().tolist()))\n'
    "    loader.it.reset()\n"
)


def test_other_uses_of_an_iterator_in_an_attribute_get_the_support_modules_iterator():
    """`return self.it` from `__iter__`, `len()`, `next()`, `.size`: uses that a generator of epochs
    cannot take keep DALI's interface: the iterator becomes the support module's class of the same
    name over the migrated pipeline, every argument as written, and its uses stay as they are."""
    iterator = 'self.pipe, ["data", "label"], reader_name="Reader"'
    text = IN_ATTRIBUTE.format(iterator=iterator, methods=OTHER_USES, loop=LOOP_WITH_LEN)
    out, result = migrate_text(text)
    assert not [d for d in result.diagnostics if d.needs_human], out
    assert (
        '        self.it = DALIGenericIterator(self.pipe, ["data", "label"], reader_name="Reader", '
        "reader_meta=self.pipe_meta)\n" in out
    )
    assert "from ndd_support import DALIGenericIterator, prefetching\n" in out and "pytorch" not in out
    assert OTHER_USES in out and LOOP_WITH_LEN in out and result.support == ("DALIGenericIterator", "prefetching")
    assert migrate_text(out)[0] == out


def test_an_attribute_the_support_modules_iterator_lacks_keeps_the_pipeline():
    iterator = 'self.pipe, ["data", "label"], reader_name="Reader"'
    method = "    def saved(self):\n        return self.it.checkpoints()\n"
    text = IN_ATTRIBUTE.format(iterator=iterator, methods=OTHER_USES + "\n" + method, loop="    pass\n")
    out, result = migrate_text(text)
    found = [d for d in result.diagnostics if d.needs_human]
    assert [d.code for d in found] == ["NDD008"] and "`.checkpoints` of the iterator" in found[0].hint, found
    assert re.sub(r"(?m)^[ \t]*# TODO\(ndd-migrate\): .*\n", "", out) == text


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("policy", ["FILL", "PARTIAL", "DROP"])
def test_the_support_modules_iterator_in_an_attribute_gives_what_dali_gave(policy, programs):
    """Whole program: `len()` and `.size` of the iterator each epoch, its batches through `__iter__`
    returning it, `reset()` from outside the class: the same numbers and labels before and after."""
    pytest.importorskip("torch")
    from fixtures.datasets import make_jpeg

    root = str(programs.dataset(make_jpeg))
    iterator = f'self.pipe, ["data", "label"], reader_name="Reader", last_batch_policy=pytorch.LastBatchPolicy.{policy}'
    original = IN_ATTRIBUTE.format(iterator=iterator, methods=OTHER_USES, loop=LOOP_WITH_LEN)
    migrated, _ = migrate_text(original)
    assert "DALIGenericIterator(self.pipe" in migrated and "TODO" not in migrated, migrated
    expected, got = programs.seen_by_both(original, migrated, root)
    assert len(expected) > 6 and got == expected


def test_code_written_into_a_tab_indented_file_is_indented_with_tabs():
    """A legacy op laid out one argument per line and a line split to the line length: a tab per
    level inside the brackets too, as the file indents."""
    text = (
        "from nvidia.dali import ops\nfrom nvidia.dali.pipeline import Pipeline\n"
        "from nvidia.dali.plugin.pytorch import DALIGenericIterator\n\n\n"
        "class P(Pipeline):\n"
        "\tdef __init__(self, root):\n"
        "\t\tsuper().__init__(2, 1, None)\n"
        "\t\tself.files = ops.readers.File(file_root=root,\n"
        "\t\t\t\t\t\t\t\t\t random_shuffle=False)\n\n"
        "\tdef define_graph(self):\n"
        "\t\tjpegs, labels = self.files(name='Reader')\n"
        "\t\treturn labels\n\n\n"
        "class Loader:\n"
        "\tdef __init__(self, root):\n"
        "\t\tself.pipe = P(root)\n"
        "\t\tself.it = DALIGenericIterator(pipelines=self.pipe, output_map=['label_with_a_long_name', 'and_another_one'], size=5000000)\n\n"
        "\tdef __iter__(self):\n"
        "\t\treturn self.it.__iter__()\n"
    )
    out, _ = migrate_text(text, line_length=88)
    assert "\treader = ndd.readers.File(\n\t\tfile_root=root,\n\t\trandom_shuffle=False,\n" in out, out
    assert "\t\tself.it = dali_iterator_sized_epochs(\n\t\t\t[self.pipe],\n\t\t\t5000000,\n" in out
    assert not re.search(r"(?m)^\t* +\S", out.split('"""')[0] + out.split('"""')[-1])  # no spaces before code
    compile(out, "tabs.py", "exec")


# -- no `reader_name`, no `size=`: epochs end at the external source's `StopIteration` --------------

OVER_SOURCE = """\
import numpy as np
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


class Rewinds:  # rewinds itself before it raises: every epoch the same
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        self.i = 0
        return self

    def __next__(self):
        if self.i >= self.n:
            self.__iter__()
            raise StopIteration
        self.i += 1
        return {ret}


class Ends:  # `iter()` rewinds, `next()` does not: DALI calls `iter()` once
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        self.i = 0
        return self

    def __next__(self):
        if self.i >= self.n:
            raise StopIteration
        self.i += 1
        return {ret}


def counted():
    for i in range(1, 6):
        yield [np.array([i, k], dtype=np.int32) for k in range(2)]


@pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=5)
def fed():
    x = fn.external_source(source={source}{batch})
    return x * 2, x + fn.random.uniform(range=[0, 1], shape=[2])


pipe = fed()
pipe.build()
loader = DALIGenericIterator(pipe, ["x", "noisy"]{auto})
for epoch in range(4):
    for i, data in enumerate(loader):
        SEEN.append((epoch, data[0]["x"].numpy(), data[0]["noisy"].numpy()))
        {stop}
{reset}"""

SOURCE_CASES = {
    "rewinding source, auto_reset": dict(source="Rewinds(5)", auto=", auto_reset=True"),
    "rewinding source, reset()": dict(source="Rewinds(5)", reset="    loader.reset()\n"),
    "rewinding source, iter() only": dict(source="Rewinds(5)"),
    "source that ends for good": dict(source="Ends(5)", auto=", auto_reset=True"),
    "generator function": dict(source="counted"),
    "one sample per call": dict(
        source="Rewinds(7)", batch=", batch=False", ret="np.array([self.i, 0], dtype=np.int32)"
    ),
    "epoch left in the middle": dict(source="Rewinds(5)", stop="if epoch == 1 and i == 0:\n            break"),
}


def source_case(name: str) -> str:
    one_batch = "[np.array([self.i, k], dtype=np.int32) for k in range(2)]"
    case = {"batch": "", "auto": "", "reset": "", "stop": "pass", "ret": one_batch, **SOURCE_CASES[name]}
    return OVER_SOURCE.format(**case)


@pytest.mark.parametrize("name", sorted(SOURCE_CASES))
def test_an_iterator_over_a_source_that_stops_gets_one_generator_per_epoch(name):
    out, result = migrate_text(source_case(name))
    assert not [d for d in result.diagnostics if d.needs_human], out
    assert (
        re.search(r"\n    feed(_2)? = iter\(", out)
        and "            except StopIteration:\n                return\n" in out
    )
    assert "\n    return batches\n" in out and "pipe.build()" not in out
    assert 'loader = dali_iterator_source_epochs(pipe, ["x", "noisy"])' in out
    assert "for i, data in enumerate(next(loader)):" in out and "reset()" not in out
    assert migrate_text(out)[0] == out


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("name", sorted(SOURCE_CASES))
def test_an_iterator_over_a_source_that_stops_gives_the_epochs_dali_gave(name, programs):
    """DALI makes the source an iterator once and draws each epoch from it (a source that does not
    rewind gives empty epochs after the first); the random operator goes on across epochs (its
    values are not those of pipeline mode: only that they do not start again is compared)."""
    pytest.importorskip("torch")
    original = source_case(name)
    migrated, _ = migrate_text(original)
    expected, got = programs.seen_by_both(original, migrated, ".")
    assert len(expected) >= 3 and [e for e, _, _ in got] == [e for e, _, _ in expected]
    for (_, x_a, noisy_a), (_, x_b, noisy_b) in zip(expected, got):
        assert x_a.shape == x_b.shape and (x_a == x_b).all() and noisy_a.shape == noisy_b.shape
    for seen in (expected, got):
        noise = [(noisy - x / 2).round(6).tobytes() for _, x, noisy in seen]
        assert len(set(noise)) == len(noise)  # no batch of noise given twice: the RNG went on


@pytest.mark.parametrize(
    "change, why",
    [
        (("source=Rewinds(5)", "source=Rewinds(5), cycle='raise'"), "give the caller one generator per epoch"),
        (("pipe.build()\n", "pipe.build()\nfirst = pipe.run()\n"), "used only by such iterators"),
        (("pipe.build()\n", "pipe.build()\nother = fed()\nother.run()\n"), "used only by such iterators"),
    ],
)
def test_an_iterator_over_a_source_that_stops_keeps_its_pipeline_otherwise(change, why):
    text = source_case("rewinding source, iter() only").replace(*change)
    out, result = migrate_text(text)
    found = [d for d in result.diagnostics if d.needs_human]
    assert found and found[0].code in ("NDD008", "NDD421") and why in found[0].hint, found
    assert "dali_iterator_source_epochs" not in out and "return batches" not in out


HANDED = """\
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return labels

{callee}

def loader(root):
    pipe = train_pipe(root)
    pipe.build()
    it = DALIGenericIterator(pipe, ["label"], reader_name="Reader")
    return {use}
"""


HANDED_ON = [
    ("", "len(it)"),
    ("", "it.size"),
    ("", "next(it)"),
    ("def epoch(loader):\n    for b in loader:\n        pass\n    loader.reset()\n", "epoch(it)"),
    ("def count(loader):\n    return len(loader)\n", "count(it)"),
    ("class Keep:\n    def __init__(self, loader):\n        self.loader = loader\n", "Keep(it)"),
    ("class Keep:\n    def __init__(self, x, *, loader):\n        self.loader = loader\n", "Keep(1, loader=it)"),
    ("", "it"),
]


@pytest.mark.parametrize("callee, use", HANDED_ON)
def test_a_use_the_epoch_generator_cannot_take_gets_the_support_modules_iterator(callee, use):
    """Each use of the iterator is followed, into the module's own functions and classes: where one
    a generator of one epoch cannot take (`len()`, `.size`, `reset()` in a callee, kept for later,
    returned), the import of DALI's iterator class moves to the support module, whose class of
    the same name takes the migrated pipeline and its reader's metadata: the calls stay as written."""
    text = HANDED.format(callee=callee, use=use)
    out, result = migrate_text(text)
    assert [d for d in result.diagnostics if d.needs_human] == [], [d.message for d in result.diagnostics]
    assert 'it = DALIGenericIterator(pipe, ["label"], reader_name="Reader", reader_meta=pipe_meta)\n' in out
    assert "from ndd_support import DALIGenericIterator, prefetching\n" in out and "nvidia.dali.plugin" not in out
    assert f"    return {use}\n" in out and (not callee or out.count(callee) == 1) and migrate_text(out)[0] == out


@pytest.mark.parametrize(
    "use, why", [("(it.checkpoints(), it._pipes)", "`.checkpoints`"), ("(it._pipes, it.checkpoints())", "`._pipes`")]
)
def test_the_reason_is_the_first_use_in_the_file(use, why):
    """The iterator's uses are a set: the reason reported is the first in the text, so that a second
    run writes the same TODO (not a second one beside it)."""
    out, result = migrate_text(HANDED.format(callee="", use=use))
    found = [d for d in result.diagnostics if d.needs_human]
    assert [d.code for d in found] == ["NDD008"] and why in found[0].message
    assert migrate_text(out)[0] == out


def test_an_iterator_handed_to_a_function_that_loops_over_it_once_is_one_epoch():
    text = HANDED.format(callee="def epoch(loader):\n    for b in loader:\n        print(b)\n", use="epoch(it)")
    out, result = migrate_text(text)
    assert [d for d in result.diagnostics if d.needs_human] == []
    assert "return epoch(next(it))" in out


def test_a_value_that_only_shares_the_iterators_name_is_left_alone():
    """Values, not names: `it` of another function is a list, and its `len()` and loop stay."""
    other = "\n\ndef plain():\n    it = [1, 2]\n    for x in it:\n        print(x)\n    return len(it)\n"
    text = HANDED.format(callee="", use="list(it)") + other
    out, result = migrate_text(text)
    assert [d for d in result.diagnostics if d.needs_human] == []
    assert "return list(next(it))" in out and out.endswith(other)


@pytest.mark.parametrize("size", ['size=pipe.epoch_size("Reader")', 'int(pipe.epoch_size("Reader") / 2)'])
def test_a_size_read_from_the_pipeline_is_read_from_the_migrated_readers_metadata(size):
    """`size=` computed from `pipe.epoch_size()` (by keyword or by position): the size passed on is the
    value as rewritten, never a pipeline method of the generator."""
    text = HANDED.format(callee="", use="[b for b in list(it)]").replace(
        'DALIGenericIterator(pipe, ["label"], reader_name="Reader")', f'DALIGenericIterator(pipe, ["label"], {size})'
    )
    out, result = migrate_text(text)
    assert [d for d in result.diagnostics if d.needs_human] == [], [d.message for d in result.diagnostics]
    assert "epoch_size(" not in out.split("def loader")[1] and 'pipe_meta["epoch_size"]' in out


# -- the support module's iterator, where the iterator's uses need DALI's interface ------------------

LENGTHS = "SEEN.append((-1, len(loader), loader.size, loader.batch_size))\n"


def _with_lengths(text: str) -> str:
    """``text`` reading ``len()``, ``.size`` and ``.batch_size`` of its iterator before each epoch:
    uses a generator of epochs cannot take, so the iterator becomes the support module's."""
    return re.sub(r"(?m)^(for epoch in range\(\d\):\n)", r"\1    " + LENGTHS, text)


def _plain(value):
    """``value`` with numpy arrays as lists, to compare whole records."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value.tolist() if hasattr(value, "tolist") else value


DROP_IN_CASES = {
    **{f"reader_name {policy}{reader}": source(policy, reader, auto=policy != "DROP") for policy, reader in CASES},
    **{
        f"size {given} {size}{arguments}": sized_source(given, size, arguments, reader=", random_shuffle=True, seed=3")
        for given, size, arguments in SIZED_CASES
        if size == 21
    },
    **{
        f"several {shape} {policy}{reader}": MANY.format(
            reader=reader, pipes=SHAPES[shape][0], build=SHAPES[shape][1], given=SHAPES[shape][2], policy=policy
        )
        for shape, policy, reader in MANY_CASES
        if reader != ", stick_to_shard=True"
    },
}


@pytest.mark.parametrize("name", ["reader_name PARTIAL", "size pipes 21", "several names DROP"])
def test_the_support_modules_iterator_takes_the_arguments_as_written(name):
    out, result = migrate_text(_with_lengths(DROP_IN_CASES[name]))
    assert not [d for d in result.diagnostics if d.needs_human], [d.message for d in result.diagnostics]
    expected = {
        "reader_name PARTIAL": (
            'loader = DALIClassificationIterator(pipe, reader_name="Reader", '
            "last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True, reader_meta=pipe_meta)"
        ),
        "size pipes 21": 'loader = DALIGenericIterator(pipes, ["data", "label"], size=21)',
        "several names DROP": (
            'loader = DALIGenericIterator([p0, p1], ["data", "label"], reader_name="Reader", '
            "last_batch_policy=LastBatchPolicy.DROP, reader_meta=[p0_meta, p1_meta])"
        ),
    }[name]
    assert expected in out and "    " + LENGTHS in out, out
    assert "from nvidia.dali.plugin.pytorch import LastBatchPolicy\n" in out and migrate_text(out)[0] == out


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("name", sorted(DROP_IN_CASES))
def test_the_support_modules_iterator_gives_what_dalis_gave(name, programs):
    """Whole programs: the batches of each epoch, and `len()`, `.size` and `.batch_size` of the
    iterator before each, the same as DALI's iterator gave them (every last-batch policy, shards,
    `stick_to_shard`, padding, `size=`, several pipelines)."""
    pytest.importorskip("torch")
    from fixtures.datasets import make_jpeg

    root = str(programs.dataset(make_jpeg))
    original = _with_lengths(DROP_IN_CASES[name])
    migrated, _ = migrate_text(original)
    assert "reader_meta" in migrated or "size=" in migrated, migrated
    assert "TODO" not in migrated and "dali_iterator" not in migrated, migrated
    expected, got = programs.seen_by_both(original, migrated, root)
    assert len(expected) >= 6 and _plain(got) == _plain(expected)


def test_a_guarded_import_of_the_moved_iterator_class_goes_too():
    """DALI's class imported under an `if` in a `try:` would shadow the support module's at run time:
    every import of it goes, wherever it is (a block left empty gets `pass`)."""
    text = HANDED.format(callee="", use="it").replace(
        "from nvidia.dali.plugin.pytorch import DALIGenericIterator\n",
        "try:\n    if True:\n        from nvidia.dali.plugin.pytorch import DALIGenericIterator\nexcept ImportError:\n    pass\n",
    )
    out, result = migrate_text(text)
    assert not [d for d in result.diagnostics if d.needs_human], [d.message for d in result.diagnostics]
    assert "nvidia.dali.plugin" not in out and "from ndd_support import DALIGenericIterator, prefetching\n" in out, out
    assert "try:\n    if True:\n        pass\nexcept ImportError:\n    pass\n" in out, out


def test_pipelines_made_in_the_iterators_call_keep_the_call_as_written():
    """`DALIGenericIterator([p(...)], ..., reader_name=...)` (DALI's documented shape): the migrated
    function returns the reader's metadata with the batches, which the support module's iterator
    takes as they come: only the import changes. Beside a pipeline bound to a name, it is refused."""
    call = 'DALIGenericIterator([train_pipe(ROOT)], ["data", "label"], reader_name="Reader")'
    text = with_iterator(call).replace(
        'pipe = train_pipe(ROOT)\npipe.build()\nsamples = pipe.epoch_size("Reader")\n', ""
    )
    out, result = migrate_text(text)
    assert not [d for d in result.diagnostics if d.needs_human], [d.message for d in result.diagnostics]
    assert f"loader = {call}\n" in out and "from ndd_support import DALIGenericIterator, prefetching\n" in out, out
    assert "return reader.get_metadata(), batches()" in out and migrate_text(out)[0] == out
    mixed = with_iterator(call.replace("[train_pipe(ROOT)]", "[train_pipe(ROOT), pipe]"))
    found = [d for d in migrate_text(mixed)[1].diagnostics if d.needs_human]
    assert found and "made in its call beside others bound to names" in found[0].message, found


@pytest.mark.parametrize(
    "spelled, call, imported, written",
    [
        (
            "from nvidia.dali.plugin.pytorch import DALIGenericIterator as It",
            "It",
            "from ndd_support import DALIGenericIterator as It, prefetching\n",
            "It",
        ),
        (
            "import nvidia.dali.plugin.pytorch as dalitorch",
            "dalitorch.DALIGenericIterator",
            None,
            "DALIGenericIterator",
        ),
        ("from nvidia.dali.plugin import pytorch", "pytorch.DALIGenericIterator", None, "DALIGenericIterator"),
    ],
)
def test_the_support_modules_iterator_under_every_spelling_of_dalis(spelled, call, imported, written):
    """An alias of DALI's class keeps its name (the import moves); a module attribute becomes the
    support module's class, imported by its name, and the DALI module import goes when unused."""
    text = (
        HANDED.format(callee="", use="len(it)")
        .replace("from nvidia.dali.plugin.pytorch import DALIGenericIterator", spelled)
        .replace("it = DALIGenericIterator(", f"it = {call}(")
    )
    out, result = migrate_text(text)
    assert [d for d in result.diagnostics if d.needs_human] == [], [d.message for d in result.diagnostics]
    assert (
        imported or "from ndd_support import DALIGenericIterator, prefetching\n"
    ) in out and "nvidia.dali.plugin" not in out, out
    assert f'    it = {written}(pipe, ["label"], reader_name="Reader", reader_meta=pipe_meta)\n' in out
    assert migrate_text(out)[0] == out


@pytest.mark.parametrize("style", ["function", "hand-built"])
def test_metadata_of_a_pipeline_a_factory_returns_names_the_factory(style):
    """`epoch_size()` on what a factory returns keeps the pipeline; the reason names the factory, not
    the plain `pipe = p(...)` the user's call already is."""
    body = (
        "    return p(root, batch_size=4)\n"
        if style == "function"
        else "    pipe = Pipeline(batch_size=4, num_threads=1, device_id=None)\n"
        "    with pipe:\n"
        "        jpegs, labels = fn.readers.file(file_root=root, name='Reader')\n"
        "        pipe.set_outputs(jpegs, labels)\n"
        "    return pipe\n"
    )
    text = _READER_PIPE.format(settings="") + f"def build(root):\n{body}\n\npipe = build('/data')\n" + _SIZE_ASKED
    assert "it is made by `build()`, a function that returns it (a factory)" in _first_refusal(text)


def test_metadata_refused_for_a_call_site_that_is_not_plain_quotes_that_call_site():
    """`epoch_size()` on `pipe = p(...)` needs every call of `p` plain; the one that is not (a pipeline
    made inside another call) is quoted, where the user has to look."""
    text = _READER_PIPE.format(settings="batch_size=4, ") + "pipe = p('/data')\n" + _SIZE_ASKED
    text += "compare(p('/data'), p('/other'))\n"
    assert "(`compare(p('/data'), p('/other'))` makes one otherwise)" in _first_refusal(text)


_READER_PIPE = (
    "from nvidia.dali import Pipeline, fn, pipeline_def\n\n\n"
    "@pipeline_def({settings}num_threads=1, device_id=None)\n"
    "def p(root):\n"
    "    jpegs, labels = fn.readers.file(file_root=root, name='Reader')\n"
    "    return jpegs, labels\n\n\n"
)
_SIZE_ASKED = "pipe.build()\nprint(pipe.epoch_size('Reader'))\n"


def _first_refusal(text: str) -> str:
    """The message of the first NDD008 that needs a human in ``text``'s migration."""
    _, result = migrate_text(text)
    found = [d for d in result.diagnostics if d.needs_human and d.code == "NDD008"]
    assert found
    return found[0].message
