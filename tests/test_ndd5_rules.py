"""NDD5xx (mistakes in hand-written dynamic-mode code): examples, positive and negative cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ndd_migrate.cli import app
from ndd_migrate.engine.catalog import all_rules
from ndd_migrate.engine.context import Policy
from ndd_migrate.engine.transform import transform
from tests.conftest import migrate_text

ROOT = Path(__file__).resolve().parents[1]
NDD5 = [r for r in all_rules() if r.code.startswith("NDD5")]
IMPORT = "import nvidia.dali.experimental.dynamic as ndd\n"


def codes(source: str, policy: Policy | None = None) -> list[str]:
    result = transform(source, "t.py", policy or Policy.check())
    assert result.error is None, result.error
    return [d.code for d in result.diagnostics]


def fixed(source: str) -> str:
    result = transform(source, "t.py", Policy.check(fix=True))
    assert result.error is None, result.error
    return result.new_source if result.changed else source


@pytest.mark.parametrize("rule", NDD5, ids=lambda r: r.code)
def test_examples_and_valid(rule):
    assert rule.examples
    for ex in rule.examples:
        result = transform(ex.before, "example.py", Policy.migrate())
        assert result.error is None
        assert (result.new_source if result.changed else ex.before) == ex.after
        assert rule.code in {d.code for d in result.diagnostics}
    for snippet in rule.valid:
        result = transform(snippet, "example.py", Policy.migrate())
        assert result.error is None
        assert rule.code not in {d.code for d in result.diagnostics}


@pytest.mark.parametrize("path", sorted(ROOT.glob("fixtures/*/migrated.py")), ids=lambda p: p.parent.name)
def test_check_finds_nothing_in_migrated_goldens(path):
    """``migrate``'s output passes ``ndd-migrate check`` (the CLI, json report): no rule of any family
    finds anything to fix in it. Only manual work ``migrate`` marked
    with a TODO of the same code on the line above may be reported again."""
    result = CliRunner().invoke(app, ["check", str(path), "--output-format", "json", "--exit-zero"])
    assert result.exit_code == 0, result.output
    lines = path.read_text(encoding="utf-8").splitlines()
    unmarked = [
        f"{d['code']}:{d['location']['row']} {d['message']}"
        for d in json.loads(result.output)
        if f"TODO(ndd-migrate): {d['code']}" not in lines[d["location"]["row"] - 2]
    ]
    assert unmarked == []


# -- the data flow ------------------------------------------------------------------------------

LOOP = (
    "reader = {ndd}.readers.File(file_root='/d')\n"
    "for jpegs, labels in reader.next_epoch(batch_size=4):\n"
    "    x = labels[0]\n"
    "    n = len(labels)\n"
)


@pytest.mark.parametrize(
    "header,alias",
    [
        (IMPORT, "ndd"),
        ("import nvidia.dali.experimental.dynamic as d\n", "d"),
        ("from nvidia.dali.experimental import dynamic\n", "dynamic"),
        ("import nvidia.dali.experimental.dynamic\n", "nvidia.dali.experimental.dynamic"),
    ],
)
def test_loop_targets_are_batches_under_any_alias(header, alias):
    src = header + LOOP.format(ndd=alias)
    assert codes(src) == ["NDD501", "NDD502"]
    out = fixed(src)
    assert "labels[0]" in out and "labels.batch_size" in out  # NDD501 is unsafe: not applied by --fix alone
    assert "labels.tensors[0]" in fixed_unsafe(src)


def test_batch_subscript_message_names_both_readings():
    result = transform(IMPORT + "b = ndd.random.uniform(batch_size=4)\nx = b[2]\n", "t.py", Policy.check())
    (diag,) = result.diagnostics
    assert diag.code == "NDD501" and diag.fix.value == "unsafe"
    assert (
        "`b.tensors[2]` picks sample 2" in diag.message and "`b.slice[2]` indexes inside every sample" in diag.message
    )
    assert "write the one you mean" in diag.hint


def test_batch_slice_is_reported_never_rewritten():
    # `b.tensors[1:3]` iterates the whole batch in DALI 2.4.0: no rewrite offered, even unsafe
    src = IMPORT + "b = ndd.random.uniform(batch_size=4)\nx = b[1:3]\ny = b[:, 0]\n"
    assert codes(src) == ["NDD501", "NDD501"]
    assert fixed_unsafe(src) == src
    assert {d.fix.value for d in transform(src, "t.py", Policy.check()).diagnostics} == {"manual"}
    migrated = transform(src, "t.py", Policy.migrate())
    assert not migrated.changed or "b.tensors[1:3]" not in migrated.new_source


def test_single_loop_target_is_a_tuple_not_a_batch():
    src = (
        IMPORT
        + "reader = ndd.readers.File(file_root='/d')\nfor out in reader.next_epoch(batch_size=4):\n    x = out[0]\n"
    )
    assert codes(src) == []


def test_shadowed_ndd_is_silent():
    src = "import mylib as ndd\n" + LOOP.format(ndd="ndd")
    assert codes(src) == []
    src = (
        IMPORT + "\n\ndef f():\n    ndd = object()\n    b = ndd.random.uniform(batch_size=2)\n    return b[0], len(b)\n"
    )
    assert codes(src) == []


def test_rebinding_makes_a_name_unknown():
    src = IMPORT + "b = ndd.random.uniform(batch_size=2)\nif cond:\n    b = load()\nx = b[0]\n"
    assert codes(src) == []
    src = IMPORT + "b = ndd.random.uniform(batch_size=2)\nb += 1\nx = b[0]\n"
    assert codes(src) == []


def test_ops_propagate_batches_and_recursive_bindings():
    src = IMPORT + (
        "reader = ndd.readers.File(file_root='/d')\n"
        "for jpegs, labels in reader.next_epoch(batch_size=4):\n"
        "    images = ndd.decoders.image(jpegs)\n"
        "    images = ndd.resize(images, size=[8, 8])\n"
        "    y = (images * 2).cpu()\n"
        "    a, b = images[0], y[1]\n"
    )
    assert codes(src) == ["NDD501", "NDD501"]


def test_tensor_is_subscriptable_but_has_no_truth_value():
    src = IMPORT + "t = ndd.random.uniform(shape=[3])\nx = t[0]\nif not t:\n    pass\n"
    assert codes(src) == ["NDD509"]


def test_batch_from_as_batch_and_tensor_of_batch():
    src = IMPORT + "b = ndd.as_batch([a, c])\ns = b.tensors[0]\nif s:\n    pass\nwhile b and ok:\n    pass\n"
    assert codes(src) == ["NDD509", "NDD509"]


def test_numpy_of_batch():
    src = (
        "import numpy\n"
        + IMPORT
        + "b = ndd.random.uniform(batch_size=2)\nx = numpy.array(b)\ny = numpy.asarray(b.tensors[0])\n"
    )
    assert codes(src) == ["NDD503"]


def test_lowercase_reader_and_batch_size():
    src = IMPORT + "r = ndd.readers.file(file_root='/d', batch_size=4)\n"
    assert codes(src) == ["NDD504", "NDD505"]
    assert fixed(src) == IMPORT + "r = ndd.readers.File(file_root='/d', batch_size=4)\n"
    # a pipeline name under ndd that is not a one-word change is reported, not rewritten
    src = IMPORT + "r = ndd.file_reader(file_root='/d')\n"
    assert codes(src) == ["NDD504"] and fixed(src) == src


def test_break_only_directly_out_of_next_epoch():
    body = "reader = ndd.readers.File(file_root='/d')\nfor a, b in reader.next_epoch(batch_size=2):\n"
    assert codes(IMPORT + body + "    if a.batch_size:\n        break\n") == ["NDD508"]
    assert codes(IMPORT + body + "    while True:\n        break\n") == []
    assert codes(IMPORT + "for a, b in other.next_epoch(batch_size=2):\n    break\n") == []


def test_dtype_forms():
    src = "import numpy as onp\nfrom nvidia.dali.experimental import dynamic\n\nx = dynamic.cast(y, dtype=onp.int32)\n"
    assert codes(src) == ["NDD510"]
    assert "dtype=dynamic.int32" in fixed(src)
    # unknown names and non-ndd calls are left alone
    assert codes(IMPORT + "x = ndd.cast(y, dtype='float')\n") == []
    assert codes("import numpy as np\n\nx = np.zeros(3, dtype=np.float32)\n") == []


def test_check_without_fix_leaves_code_unchanged():
    src = IMPORT + LOOP.format(ndd="ndd")
    result = transform(src, "t.py", Policy.check())
    assert not result.changed


def fixed_unsafe(source: str) -> str:
    result = transform(source, "t.py", Policy.check(fix=True, unsafe_fixes=True))
    assert result.error is None, result.error
    return result.new_source if result.changed else source


ALIASES = [
    (IMPORT, "ndd"),
    ("import nvidia.dali.experimental.dynamic as d\n", "d"),
    ("from nvidia.dali.experimental import dynamic\n", "dynamic"),
]


# -- arguments the user wrote are kept ----------------------------------------------------------


def test_migrate_keeps_arguments_equal_to_their_default():
    """Arguments spelled out at their schema default stay: they document intent, and defaults may
    change between DALI versions (the default-argument rule was removed; it measured no speed-up)."""
    src = (
        "from nvidia.dali import fn, types\n\n\ndef f(images):\n"
        "    return fn.crop_mirror_normalize(fn.flip(images, horizontal=1, vertical=0), dtype=types.FLOAT, output_layout='CHW')\n"
    )
    out, result = migrate_text(src)
    assert "ndd.flip(images, horizontal=1, vertical=0)" in out
    assert "dtype=types.FLOAT, output_layout='CHW'" in out and "from nvidia.dali import types" in out
    assert codes("import nvidia.dali.experimental.dynamic as ndd\n\ny = ndd.flip(x, vertical=0)\n") == []


# -- NDD506 reader-in-loop -----------------------------------------------------------------------


@pytest.mark.parametrize("header,alias", ALIASES)
def test_reader_constructed_in_the_loop_that_iterates_it(header, alias):
    src = header + (
        "while True:\n"
        f"    r = {alias}.readers.File(file_root='/d')\n"
        "    for a, b in r.next_epoch(batch_size=2):\n"
        "        pass\n"
    )
    assert codes(src) == ["NDD506"]


def test_reader_in_epoch_loop_even_when_iterated_elsewhere():
    src = IMPORT + "for epoch in range(3):\n    train(ndd.readers.File(file_root='/d'))\n"
    assert codes(src) == ["NDD506"]
    src = IMPORT + "for i in range(3):\n    train(ndd.readers.File(file_root='/d'))\n"
    assert codes(src) == []


def test_reader_iterated_in_the_loop_but_bound_elsewhere_is_fine():
    src = IMPORT + (
        "r = ndd.readers.File(file_root='/d')\n"
        "for i in range(3):\n"
        "    other = ndd.readers.File(file_root='/e')\n"
        "    for a, b in r.next_epoch(batch_size=2):\n"
        "        pass\n"
    )
    assert codes(src) == []


def test_shadowed_reader_names_are_not_readers():
    src = "import mylib as ndd\n\nfor epoch in range(3):\n    r = ndd.readers.File(file_root='/d')\n"
    assert codes(src) == []


# -- NDD507 random-without-batch-size ------------------------------------------------------------

EPOCH = "r = {ndd}.readers.File(file_root='/d')\nfor jpegs, labels in r.next_epoch(batch_size={bs}):\n"


@pytest.mark.parametrize("header,alias", ALIASES)
def test_random_op_without_batch_size_in_a_batch_loop(header, alias):
    src = header + EPOCH.format(ndd=alias, bs="bs") + f"    flip = {alias}.random.coin_flip(probability=0.3)\n"
    assert codes(src) == ["NDD507"]
    assert fixed(src) == src  # unsafe: not applied by --fix alone
    assert f"{alias}.random.coin_flip(probability=0.3, batch_size=bs)" in fixed_unsafe(src)


def test_random_op_batch_size_that_is_not_a_name_is_reported_only():
    src = IMPORT + EPOCH.format(ndd="ndd", bs="cfg.bs") + "    flip = ndd.random.coin_flip()\n"
    assert codes(src) == ["NDD507"] and fixed_unsafe(src) == src


def test_random_op_in_an_inner_loop_of_the_batch_loop():
    src = IMPORT + EPOCH.format(ndd="ndd", bs="8") + "    for i in range(2):\n        n = ndd.random.normal()\n"
    assert "ndd.random.normal(batch_size=8)" in fixed_unsafe(src)


@pytest.mark.parametrize(
    "call",
    [
        "ndd.random.coin_flip(batch_size=4)",
        "ndd.random_resized_crop(ndd.decoders.image(jpegs), size=[4, 4])",
        "ndd.random.uniform(unknown_input)",
        "ndd.random.uniform(**kwargs)",
        "ndd.resize(jpegs, size=[4, 4])",  # not random
    ],
)
def test_random_op_with_a_batch_or_unknown_input_is_fine(call):
    assert codes(IMPORT + EPOCH.format(ndd="ndd", bs="8") + f"    x = {call}\n") == []


def test_sample_loop_without_batch_size_yields_tensors():
    src = (
        IMPORT + "r = ndd.readers.File(file_root='/d')\nfor jpeg, label in r.next_epoch():\n"
        "    flip = ndd.random.coin_flip()\n    first = label[0]\n    n = len(label)\n"
    )
    assert codes(src) == []


# -- NDD511 cpu-before-torch ---------------------------------------------------------------------


@pytest.mark.parametrize("header,alias", ALIASES)
def test_cpu_before_torch(header, alias):
    src = header + f"b = {alias}.random.uniform(batch_size=2, shape=[2])\nt = b.cpu().torch(copy=True)\n"
    assert codes(src) == ["NDD511"]
    assert fixed(src) == src
    assert fixed_unsafe(src).endswith("t = b.torch(copy=True)\n")


def test_cpu_with_a_device_argument_or_unknown_receiver_is_left_alone():
    assert codes(IMPORT + "b = ndd.random.uniform(batch_size=2)\nt = b.cpu(0).torch()\n") == []
    assert codes("import mylib as ndd\n\nb = ndd.random.uniform(batch_size=2)\nt = b.cpu().torch()\n") == []


# -- NDD513 fn-in-ndd ----------------------------------------------------------------------------


@pytest.mark.parametrize("header,alias", ALIASES)
def test_ndd_fn_becomes_the_ndd_name(header, alias):
    src = header + f"y = {alias}.fn.coin_flip(probability=0.3)\n"
    assert codes(src) == ["NDD513"]
    assert fixed_unsafe(src) == header + f"y = {alias}.random.coin_flip(probability=0.3)\n"


def test_ndd_fn_without_ndd_form_is_reported_only():
    src = IMPORT + "y = ndd.fn.python_function(x, function=f)\n"
    assert codes(src) == ["NDD513"] and fixed_unsafe(src) == src


def test_fn_in_ndd_code_is_reported_once():
    # no pipeline stays: NDD101 owns the call (and rewrites it in migrate), NDD513 stays silent
    src = (
        "from nvidia.dali import fn\n"
        + IMPORT
        + "b = ndd.random.uniform(batch_size=2, shape=[2, 2, 3])\ny = fn.flip(b)\n"
    )
    assert codes(src) == ["NDD101"]
    # a pipeline stays: NDD101 leaves fn alone, NDD513 reports the call on ndd data, not the helper
    kept = (
        "from nvidia.dali import fn, pipeline_def\n"
        + IMPORT
        + (
            "\n\n@pipeline_def\ndef p():  # noqa: NDD001\n    return helper(fn.random.uniform(shape=[2]))\n\n\n"
            "def helper(x):\n    return fn.flip(x)\n\n\n"
            "def fresh():\n    return fn.flip(ndd.random.uniform(batch_size=2, shape=[2, 2, 3]))\n"
        )
    )
    assert codes(kept) == ["NDD513"]


# -- NDD514 evaluate-consumed --------------------------------------------------------------------


@pytest.mark.parametrize("header,alias", ALIASES)
def test_evaluate_right_before_a_consumer(header, alias):
    src = header + (
        f"b = {alias}.random.uniform(batch_size=2, shape=[2, 2, 3])\n"
        f"y = {alias}.flip(b.evaluate())\n"
        "t = b.evaluate().torch()\n"
        f"z = {alias}.flip({alias}.flip(b).evaluate(), vertical=1)\n"
    )
    assert codes(src) == ["NDD514"] * 3
    assert fixed(src) == header + (
        f"b = {alias}.random.uniform(batch_size=2, shape=[2, 2, 3])\n"
        f"y = {alias}.flip(b)\n"
        "t = b.torch()\n"
        f"z = {alias}.flip({alias}.flip(b), vertical=1)\n"
    )


def test_evaluate_kept_when_not_consumed_at_once_or_not_ndd():
    src = IMPORT + "b = ndd.random.uniform(batch_size=2).evaluate()\nprint(b.evaluate())\nm.evaluate().torch()\n"
    assert codes(src) == []
    # `.evaluate()` keeps a Batch a Batch for the other rules
    assert codes(IMPORT + "b = ndd.random.uniform(batch_size=2).evaluate()\nx = b[0]\n") == ["NDD501"]


def test_methods_of_an_op_result_are_not_ndd_names():
    # qualified names see through `ndd.op(...)`: `.cpu()` of a result is data, not an op `random.uniform.cpu`
    assert codes(IMPORT + "x = ndd.random.uniform(batch_size=2).cpu()[0]\n") == ["NDD501"]
    assert codes(IMPORT + "y = ndd.fn.flip(x).evaluate()\n") == ["NDD513"]


@pytest.mark.parametrize(
    "src",
    [
        # NDD507: `ndd` is not DALI, so neither the reader loop nor the random op is
        (
            "import mylib as ndd\n\nr = ndd.readers.File(file_root='/d')\nfor a, b in r.next_epoch(batch_size=2):\n"
            "    f = ndd.random.coin_flip()\n"
        ),
        # NDD507: a real reader, but a parameter `ndd` shadows the module inside the function
        IMPORT + "r = ndd.readers.File(file_root='/d')\n\n\ndef f(ndd):\n"
        "    for a, b in r.next_epoch(batch_size=2):\n        x = ndd.random.coin_flip()\n",
        # NDD514: `evaluate` of something that is not ndd data
        "import mylib as ndd\n\nb = ndd.random.uniform(batch_size=2)\ny = ndd.flip(b.evaluate())\n",
    ],
)
def test_shadowed_names_are_silent(src):
    assert codes(src) == []


def test_fn_alias_on_ndd_data_next_to_a_kept_pipeline():
    src = (
        "import nvidia.dali.fn as F\nfrom nvidia.dali import pipeline_def\n"
        + IMPORT
        + (
            "\n\n@pipeline_def\ndef p():  # noqa: NDD001\n    return F.random.uniform(shape=[2])\n\n\n"
            "b = ndd.random.uniform(batch_size=2, shape=[2, 2, 3])\ny = F.flip(b)\n"
        )
    )
    assert codes(src) == ["NDD513"]


# One mistake does not hide the others: a misspelt reader, or `batch_size=` given to its constructor,
# is analysed as what it clearly means, so the mistakes below it are reported in the same run.
EPOCH_LOOP = IMPORT + (
    "\n\ndef train(files, epochs):\n"
    "    for epoch in range(epochs):\n"
    "        reader = {reader}\n"
    "        for jpegs, labels in reader.next_epoch({epoch}):\n"
    "            images = ndd.decoders.image(jpegs)\n"
    "            flip = ndd.random.coin_flip(probability=0.5)\n"
    "            first = images[0]\n"
    "            if epoch > 3:\n"
    "                break\n"
)
HIDDEN = ["NDD506", "NDD507", "NDD501", "NDD508"]


@pytest.mark.parametrize(
    "reader, epoch, mistakes",
    [
        ("ndd.readers.file(files=files)", "batch_size=8", ["NDD504"]),
        ("ndd.readers.File(files=files, batch_size=8)", "", ["NDD505"]),
        ("ndd.readers.file(files=files, batch_size=8)", "", ["NDD504", "NDD505"]),
    ],
)
def test_a_known_mistake_does_not_stop_the_flow_analysis(reader, epoch, mistakes):
    found = codes(EPOCH_LOOP.format(reader=reader, epoch=epoch))
    assert sorted(found) == sorted(mistakes + HIDDEN)


def test_constructor_batch_size_is_the_batch_size_the_random_op_gets():
    out = fixed_unsafe(EPOCH_LOOP.format(reader="ndd.readers.File(files=files, batch_size=8)", epoch=""))
    assert "ndd.random.coin_flip(probability=0.5, batch_size=8)" in out
    assert "images.tensors[0]" in out


def test_a_reader_without_batch_size_anywhere_still_yields_samples():
    found = codes(EPOCH_LOOP.format(reader="ndd.readers.File(files=files)", epoch=""))
    assert "NDD501" not in found and "NDD507" not in found  # samples: Tensors, one value each is right


def test_migrate_renames_the_reader_and_marks_the_loop_in_one_run():
    source = EPOCH_LOOP.format(reader="ndd.readers.file(files=files)", epoch="batch_size=8")
    once, _ = migrate_text(source)
    assert "ndd.readers.File(files=files)" in once
    assert "# TODO(ndd-migrate): NDD506" in once and "# TODO(ndd-migrate): NDD508" in once
    again, result = migrate_text(once)
    assert again == once and not result.changed  # the fixed point in one run


GENERATOR = (
    "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
    "def train_pipe(*, batch_size=2):\n"
    '    reader = ndd.readers.File(file_root="/data", name="Reader")\n'
    "    while True:\n"
    "        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
    "            yield labels.evaluate(),\n\n\n"
)


@pytest.mark.parametrize(
    "use, found",
    [
        ("pipe = train_pipe()\npipe.build()\n(x,) = pipe.run()\n", ["NDD516", "NDD516"]),
        ("def f():\n    pipe = train_pipe()\n    return len(pipe), pipe.epoch_size('Reader')\n", ["NDD516", "NDD516"]),
        ("pipe = train_pipe()\n(x,) = next(pipe)\n", []),  # used as the generator it is
        ("pipe = train_pipe()\npipe = Other()\npipe.build()\n", []),  # bound to another value too
        ("def f(pipe):\n    pipe.build()\n", []),  # a parameter: not known
    ],
)
def test_pipeline_api_on_a_generator_of_the_module_is_reported(use, found):
    """What `migrate` wrote is known to `check`: pipeline-mode API on what the module's own
    migrated generator functions give fails at run time."""
    result = transform(GENERATOR + use, "m.py", Policy.check())
    assert [d.code for d in result.diagnostics] == found, [d.message for d in result.diagnostics]


EPOCH_AWARE = (
    "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
    "def train_pipe(*, batch_size=2):\n"
    '    reader = ndd.readers.File(file_root="/data", name="Reader", max_batch_size=batch_size)\n\n'
    "    def batches():\n"
    "        while True:\n"
    "            for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
    "                yield labels.evaluate(),\n\n"
    "    return reader.get_metadata(), batches()\n\n\n"
)


@pytest.mark.parametrize(
    "use, found",
    [
        ("pipe_meta, pipe = train_pipe()\npipe.build()\nn = pipe.epoch_size('Reader')\n", ["NDD516", "NDD516"]),
        ("pipe_meta, pipe = train_pipe()\n(x,) = next(pipe)\nn = pipe_meta['epoch_size']\n", []),
    ],
)
def test_pipeline_api_on_a_generator_of_the_epoch_aware_shape_is_reported(use, found):
    """The generator an epoch-aware function gives beside the reader's metadata is one too."""
    result = transform(EPOCH_AWARE + use, "m.py", Policy.check())
    assert [d.code for d in result.diagnostics] == found, [d.message for d in result.diagnostics]


KEPT_WITH_HELPER = (
    "from nvidia.dali import fn, pipeline_def\n"
    "from nvidia.dali.plugin.pytorch import DALIGenericIterator\n\n\n"
    "def flip(images):\n"
    "    return fn.flip(images, horizontal=fn.random.coin_flip(seed=1))\n\n\n"
    "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
    "def p(root):\n"
    "    jpegs, labels = fn.readers.file(file_root=root, name='Reader')\n"
    "    return flip(fn.decoders.image(jpegs)), labels\n\n\n"
    "{tail}"
)


@pytest.mark.parametrize(
    "tail, reported",
    [
        # kept: a subclass of a DALI iterator runs it as a Pipeline; the helper stays pipeline-mode code
        ("class Loader(DALIGenericIterator):\n    pass\n\n\nloader = Loader(p('/d'), ['x', 'y'])\n", False),
        ("pipe = p('/d')\npipe.build()\nout = pipe.run()\n", True),  # converted: `seed=` must go
    ],
)
def test_seed_of_a_random_op_in_a_helper_is_reported_only_where_it_becomes_ndd(tail, reported):
    """`fn.random.coin_flip(seed=1)` in a helper is right in pipeline mode: reported (NDD105) only
    where the helper's `fn.*` calls become `ndd.*`."""
    _, result = migrate_text(KEPT_WITH_HELPER.format(tail=tail))
    found = [d for d in result.diagnostics if d.code == "NDD105" and "not accepted" in d.message]
    assert bool(found) == reported, [d.message for d in result.diagnostics]


@pytest.mark.parametrize(
    "spelled, name",
    [
        ("import nvidia.dali.experimental.dynamic as ndd", "ndd"),
        ("from nvidia.dali.experimental import dynamic as dyn", "dyn"),
        ("import nvidia.dali.experimental.dynamic as dynamic_mode", "dynamic_mode"),
    ],
)
def test_pipeline_api_on_a_generator_is_found_under_every_import_spelling(spelled, name):
    text = GENERATOR.replace("import nvidia.dali.experimental.dynamic as ndd", spelled).replace("ndd.", f"{name}.")
    result = transform(text + "pipe = train_pipe()\npipe.build()\n", "m.py", Policy.check())
    assert [d.code for d in result.diagnostics] == ["NDD516"]


def test_the_todo_keeps_crlf_and_a_file_that_does_not_parse_is_left_byte_for_byte(tmp_path):
    crlf = tmp_path / "crlf.py"
    crlf.write_bytes((GENERATOR + "pipe = train_pipe()\npipe.build()\n").replace("\n", "\r\n").encode())
    broken = tmp_path / "broken.py"
    broken.write_bytes(GENERATOR.encode() + b"pipe = train_pipe(\npipe.build()\n")
    before = broken.read_bytes()
    result = CliRunner().invoke(app, ["migrate", str(crlf), str(broken)])
    assert result.exit_code == 2, result.output
    out = crlf.read_bytes()
    assert b"# TODO(ndd-migrate): NDD516" in out and out.count(b"\r\n") == out.count(b"\n")
    assert broken.read_bytes() == before
