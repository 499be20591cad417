"""A shuffling reader of a seeded pipeline keeps a seeded order (NDD105, ndd_migrate/codegen/reader_seed.py).

Whole program: tests/programs/reader_seed_from_pipeline.py (the same labels per rank as DALI)."""

from __future__ import annotations

import importlib.util

import pytest

from ndd_migrate import support
from tests.conftest import migrate_text

PIPELINE = """\
from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, seed=12)
def p(root):
    jpegs, labels = fn.readers.file(file_root=root{reader})
    images = fn.decoders.image(jpegs)
{body}    return {outputs}
"""


def migrated(reader=", random_shuffle=True", body="", outputs="images, labels"):
    out, _ = migrate_text(PIPELINE.format(reader=reader, body=body, outputs=outputs))
    return out


def test_helper_is_std_seed_seq():
    """Words of ``std::seed_seq{s}.generate()`` over 1024 words, printed by a C++ program built with
    libstdc++ (the seeds DALI's Pipeline hands out); 2**32 + 5 keeps its low 32 bits."""
    spec = importlib.util.spec_from_file_location("ndd_support", support.TEMPLATE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    dali_op_seed = module.dali_op_seed
    expected = {
        0: (2637131961, 3856171733, 1501760529),
        12: (3859641711, 4099847078, 2990577917),
        42: (1153314634, 1765093571, 3283465835),
        2**32 + 5: (1580067329, 4086742181, 1758603167),
    }
    for seed, words in expected.items():
        assert (dali_op_seed(seed, 0), dali_op_seed(seed, 1), dali_op_seed(seed, 1023)) == words
    assert dali_op_seed(None, 0) == dali_op_seed(-1, 0) == -1


@pytest.mark.parametrize(
    "body, outputs",
    [
        ("", "images, labels"),
        ("", "labels, images"),
        ("    images = fn.resize(images.gpu(), size=[8, 8])\n", "images, labels"),
        ("    images = fn.flip(images, horizontal=fn.random.coin_flip())\n", "images"),
        ("    images = images * 2\n", "images, labels"),  # a number is no operator in DALI
        ("    images = 1.0 - -images / 255.0\n", "images > 0.5, labels"),
        # `if` chains on values fixed when the graph is built: one branch runs, each leads to the reader
        (
            "    if root:\n        images = fn.resize(images, size=[8, 8])\n    else:\n        images = fn.flip(images)\n",
            "images, labels",
        ),
        ("    if root:\n        images = fn.resize(images, size=[8, 8])\n", "images, labels"),
        (
            "    if root == 'a':\n        m = fn.random.coin_flip()\n    elif root:\n        m = 1\n    x = 1\n",
            "images, labels",
        ),
        ("    images = fn.resize(images.gpu() if root else images, size=[8, 8])\n", "images, labels"),
    ],
)
def test_reader_first_in_the_graph_gets_the_pipelines_seed_for_it(body, outputs):
    out, result = migrate_text(PIPELINE.format(reader=", random_shuffle=True", body=body, outputs=outputs))
    assert "fn.readers.file" not in out
    assert "random_shuffle=True, seed=dali_op_seed(seed, 0))" in out
    assert "def dali_op_seed(" not in out and result.support == ("dali_op_seed", "prefetching")
    assert out.startswith(
        "import nvidia.dali.experimental.dynamic as ndd\n\nfrom ndd_support import dali_op_seed, prefetching\n\n\n"
    )
    compile(out, "migrated.py", "exec")


@pytest.mark.parametrize(
    "body, outputs",
    [
        ("", "fn.random.coin_flip(), labels"),  # an operator without inputs comes first
        ("    images = [1, 2, 3] * images\n", "images, labels"),  # a list is an operator of its own
        ("    images = fn.random.uniform(range=[0, 1]) * images\n", "images, labels"),
        ("    images = scale * images\n", "images, labels"),  # a parameter: a number or a list
        ("    images = helper(images)\n", "images, labels"),
        ("    if root:\n        images = fn.random.uniform(range=[0, 1]) * images\n", "images, labels"),
        ("    images = fn.random.coin_flip() if root else images\n", "images, labels"),
        ("    if root:\n        for _ in range(2):\n            images = fn.flip(images)\n", "images, labels"),
    ],
)
def test_reader_elsewhere_shuffles_with_the_pipeline_seed(body, outputs):
    """Seeded and rank-dependent as before, but not the pipeline's order: said at the reader and
    in the list of what needs a human, not only in the docs."""
    out, result = migrate_text(PIPELINE.format(reader=", random_shuffle=True", body=body, outputs=outputs))
    assert "random_shuffle=True, seed=seed)" in out
    assert "dali_op_seed" not in out
    found = [d for d in result.diagnostics if d.code == "NDD105" and d.needs_human]
    assert found and "sample order is not the pipeline's" in found[0].message
    assert "# TODO(ndd-migrate): NDD105 the sample order is not the pipeline's" in out


@pytest.mark.parametrize("reader", ["", ", random_shuffle=False", ", random_shuffle=True, seed=3"])
def test_reader_not_shuffling_or_seeded_is_left_as_written(reader):
    out = migrated(reader=reader)
    assert f"ndd.readers.File(file_root=root{reader})" in out


@pytest.mark.parametrize("seeded", [True, False])
def test_reader_seed_not_a_literal_is_kept_and_what_it_keeps_is_said(seeded):
    """``seed=root_seed`` (a parameter) keeps the pipeline's order only where it holds an int >= 0:
    kept as written, and said at the reader, whether or not the pipeline has a seed."""
    text = PIPELINE.format(reader=", random_shuffle=True, seed=s", body="", outputs="images, labels")
    text = text.replace("def p(root):", "def p(root, s):")
    out, result = migrate_text(text if seeded else text.replace(", seed=12", ""))
    assert "ndd.readers.File(file_root=root, random_shuffle=True, seed=s)" in out
    said = [d for d in result.diagnostics if "where this `seed=` holds an int >= 0" in d.message]
    assert len(said) == 1 and said[0].line == 6, said


def test_unseeded_pipeline_reader_is_left_as_written():
    out, _ = migrate_text(
        PIPELINE.format(reader=", random_shuffle=True", body="", outputs="images, labels").replace(", seed=12", "")
    )
    assert "ndd.readers.File(file_root=root, random_shuffle=True)" in out


def test_seed_per_rank_is_kept():
    """``seed=12 + rank`` at the call site reaches the reader through the ``seed`` parameter."""
    text = PIPELINE.format(reader=", random_shuffle=True", body="", outputs="images, labels").replace(", seed=12", "")
    out, _ = migrate_text(
        text + "\n\nfor rank in range(2):\n    pipe = p('/d', seed=12 + rank)\n    pipe.build()\n    pipe.run()\n"
    )
    assert "pipe = p('/d', seed=12 + rank)" in out and "seed=dali_op_seed(seed, 0)" in out


def test_support_import_of_a_nested_pipeline_goes_after_the_imports():
    text = (
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "def make(root):\n"
        "    @pipeline_def(batch_size=2, seed=5)\n"
        "    def p():\n"
        "        jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)\n"
        "        return jpegs, labels\n\n"
        "    pipe = p()\n"
        "    pipe.build()\n"
        "    return pipe\n\n\n"
        "pipe = make('/d')\n"
        "out = pipe.run()\n"
    )
    out, _ = migrate_text(text)
    assert out.startswith(
        "import nvidia.dali.experimental.dynamic as ndd\n\nfrom ndd_support import dali_op_seed, prefetching\n\n\ndef make(root):\n"
    )
    assert "seed=dali_op_seed(seed, 0)" in out
    compile(out, "migrated.py", "exec")


def test_support_function_is_imported_once():
    """Two pipelines need it: one import; a module migrated before, given a third, keeps that one."""
    first = PIPELINE.format(reader=", random_shuffle=True", body="", outputs="images, labels")
    second = first.split("\n\n\n", 1)[1].replace("def p(", "def q(")
    text = first + "\n\npipe = p('/d')\npipe.build()\nout = pipe.run()\n\n\n" + second
    out, _ = migrate_text(text)
    assert (
        out.count("from ndd_support import dali_op_seed, prefetching\n") == 1
        and out.count("seed=dali_op_seed(seed, 0)") == 2
    )
    again, _ = migrate_text(
        "from nvidia.dali import fn, pipeline_def\n" + out + "\n\n" + second.replace("def q(", "def r(")
    )
    assert again.count("import dali_op_seed") == 1 and "seed=dali_op_seed(seed, 0)" in again.split("def r(")[1]


def test_unseeded_pipeline_reader_is_said_to_change_order_at_the_reader_and_in_the_summary(tmp_path, cli):
    """Without a seed, each pipeline DALI built shuffled in an order of its own; a dynamic-mode reader
    without `seed=` shuffles in one fixed order: said at the reader (not a TODO) and, first, in the
    summary's "What changes in behaviour"."""
    text = PIPELINE.format(reader=", random_shuffle=True", body="", outputs="images, labels").replace(", seed=12", "")
    out, result = migrate_text(text)
    (said,) = [d for d in result.diagnostics if "not seeded" in d.message]
    assert said.code == "NDD105" and not said.needs_human and "TODO" not in out
    (tmp_path / "a.py").write_text(text, encoding="utf-8")
    done = cli("migrate", tmp_path)
    assert done.exit_code == 0
    behaviour = done.stderr.split("What changes in behaviour:", 1)[1]
    assert "sample order:" in behaviour and "the pipeline is not seeded" in behaviour


def test_unseeded_legacy_reader_is_said_to_change_order():
    text = (
        "from nvidia.dali import ops\nfrom nvidia.dali.pipeline import Pipeline\n\n\n"
        "class P(Pipeline):\n"
        "    def __init__(self, batch_size, num_threads, device_id, root):\n"
        "        super().__init__(batch_size, num_threads, device_id)\n"
        "        self.input = ops.readers.File(file_root=root, random_shuffle=True)\n\n"
        "    def define_graph(self):\n"
        "        jpegs, labels = self.input()\n"
        "        return jpegs, labels\n\n\n"
        "pipe = P(2, 1, None, '/d')\npipe.build()\nout = pipe.run()\n"
    )
    out, result = migrate_text(text)
    assert "ndd.readers.File(file_root=root, random_shuffle=True" in out
    assert [d.code for d in result.diagnostics if "not seeded" in d.message] == ["NDD402"]


TFRECORD = """\
import nvidia.dali.tfrecord as tfrec
from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, seed=12)
def p(path, index):
    inputs = fn.readers.tfrecord(
        path=path,
        index_path=index,
        features={"image/encoded": tfrec.FixedLenFeature((), tfrec.string, ""),
                  "label": tfrec.FixedLenFeature([1], tfrec.int64, -1)},
        random_shuffle=True,
    )
    images = fn.decoders.image({first})
    return images, inputs["label"]
"""


@pytest.mark.parametrize(
    "first, comes_first",
    [
        ('inputs["image/encoded"]', True),  # a feature of the reader's dict: no operator
        ("inputs[0]", False),  # a number indexes a DataNode: a slicing operator
    ],
)
def test_a_tfrecord_readers_feature_picked_by_name_leads_to_the_reader(first, comes_first):
    out, _ = migrate_text(TFRECORD.replace("{first}", first))
    assert ("seed=dali_op_seed(seed, 0)" in out) is comes_first
    assert ("seed=seed" in out) is not comes_first
