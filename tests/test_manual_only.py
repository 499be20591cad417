"""Constructs only a pipeline-mode pipeline can serve (NDD902-904): reported with what to do
instead, and the pipeline function they need is left in pipeline mode."""

from __future__ import annotations

import pytest

from tests.conftest import migrate_text

HEAD = (
    "from nvidia.dali import fn, pipeline_def\n\n\n"
    "@pipeline_def(batch_size=2)\n"
    "def p():\n"
    "    return fn.random.uniform()\n\n\n"
)


def codes(result):
    return sorted(d.code for d in result.diagnostics if d.needs_human)


def test_serialize_through_a_factory_blocks_the_conversion():
    source = HEAD + "def make():\n    pipe = p()\n    return pipe\n\n\nproto = make().serialize()\n"
    out, result = migrate_text(source)
    assert "@pipeline_def(batch_size=2)" in out
    assert codes(result) == ["NDD902"]
    (diag,) = result.diagnostics
    assert diag.line == 14 and "keep it in pipeline mode" in diag.hint


def test_tf_serialize_pipeline_blocks_the_conversion():
    source = "import nvidia.dali.plugin.tf as dali_tf\n" + HEAD + "proto = dali_tf.serialize_pipeline(p())\n"
    out, result = migrate_text(source)
    assert "@pipeline_def" in out and codes(result) == ["NDD902"]


def test_serialized_pipeline_argument_is_reported():
    source = (
        "import nvidia.dali.plugin.tf as dali_tf\n\n"
        "it = dali_tf.DALIIteratorWrapper(serialized_pipeline=proto, batch_size=8)\n"
    )
    out, result = migrate_text(source)
    assert codes(result) == ["NDD902"]
    assert "# TODO(ndd-migrate): NDD902 dynamic mode cannot load a serialized pipeline" in out


def test_deserialize_through_the_pipeline_module_is_reported():
    source = "import nvidia.dali.pipeline as pl\n\npipe = pl.Pipeline.deserialize(serialized_pipeline=s)\n"
    _, result = migrate_text(source)
    assert codes(result) == ["NDD902"]  # one finding for the call, none more for its argument


def test_a_pipeline_object_loading_a_serialized_pipeline_is_not_called_hand_built():
    """``pipe = Pipeline()`` + ``pipe.deserialize_and_build(s)``: one NDD902 at the load, saying what
    to do; no NDD403 about a `with pipe:` block there is none of."""
    source = (
        "from nvidia.dali import Pipeline\n\n\n"
        "def load(s):\n    pipe = Pipeline()\n    pipe.deserialize_and_build(s)\n    return pipe.run()\n"
    )
    out, result = migrate_text(source)
    assert codes(result) == ["NDD902"], [(d.code, d.message) for d in result.diagnostics]
    (todo,) = [line.strip() for line in out.splitlines() if "TODO(ndd-migrate)" in line]
    assert "cannot load a serialized pipeline" in todo
    assert out.splitlines()[out.splitlines().index("    " + todo) + 1].strip() == "pipe.deserialize_and_build(s)"


def test_serialize_of_other_objects_is_not_reported():
    source = HEAD + "class M:\n    def serialize(self):\n        return ''\n\n\nM().serialize()\n"
    out, result = migrate_text(source)
    assert "def p(*, batch_size=2):" in out and codes(result) == []


def test_autoserialize_through_a_module_alias_blocks_the_conversion():
    source = (
        "import nvidia.dali.plugin.triton as triton\n"
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "@triton.autoserialize\n"
        "@pipeline_def(batch_size=2)\n"
        "def p():\n"
        "    return fn.random.uniform()\n"
    )
    out, result = migrate_text(source)
    assert out == source.replace(
        "@triton.autoserialize",
        "# TODO(ndd-migrate): NDD903 kept in pipeline mode: `@autoserialize` exports it to Triton's DALI backend, "
        "which loads a serialized pipeline; keep it in pipeline mode for the Triton model; migrate a copy "
        "for Python code that only runs it\n@triton.autoserialize",
    )
    assert codes(result) == ["NDD903"]


def test_tf_dataset_with_inputs_blocks_the_conversion_of_a_positional_pipeline():
    source = (
        "import nvidia.dali.plugin.tf as dali_tf\n"
        + HEAD
        + "pipe = p()\nds = dali_tf.experimental.DALIDatasetWithInputs(pipe, input_datasets={})\n"
    )
    out, result = migrate_text(source)
    assert "@pipeline_def" in out and codes(result) == ["NDD904"]


def test_tf_dataset_over_an_unknown_pipeline_is_reported_at_the_call():
    source = "from nvidia.dali.plugin.tf import DALIDataset\n\nds = DALIDataset(pipeline=build(), batch_size=8)\n"
    out, result = migrate_text(source)
    assert codes(result) == ["NDD904"]
    assert "`tf.data.Dataset.from_generator`" in result.diagnostics[0].hint


def test_other_pipelines_of_the_module_are_still_migrated():
    source = HEAD.replace("def p", "def q") + HEAD.split("\n\n\n", 1)[1] + "q().serialize()\npipe = p()\n"
    out, result = migrate_text(source)
    assert "def q():" in out and "def p(*, batch_size=2):" in out
    assert codes(result) == ["NDD902"]


def test_serializing_a_name_bound_to_two_pipelines_blocks_both():
    source = HEAD + HEAD.split("\n\n\n", 1)[1].replace("def p", "def q") + "pipe = p()\npipe = q()\npipe.serialize()\n"
    out, result = migrate_text(source)
    assert out.count("@pipeline_def") == 2
    assert codes(result) == ["NDD902", "NDD902"]


CHOSEN = (
    "import nvidia.dali.plugin.tf as dali_tf\nfrom nvidia.dali import fn, pipeline_def\n\n\n"
    "def choose(root, masks, sharded):\n"
    "    @pipeline_def(batch_size=2)\n"
    "    def plain():\n"
    "        data, _ = fn.readers.file(file_root=root)\n"
    "        if masks:\n"
    "            mask, _ = fn.readers.file(file_root=root + '/masks')\n"
    "            return data, mask\n"
    "        return data,\n\n"
    "    @pipeline_def(batch_size=2)\n"
    "    def shards(shard):\n"
    "        data, _ = fn.readers.file(file_root=root, shard_id=shard, num_shards=2)\n"
    "        return data,\n\n"
    "    if sharded:\n"
    "        return shards\n"
    "    else:\n"
    "        return plain\n\n\n"
    "def dataset(root, sharded):\n"
    "    make = choose(root, False, sharded)\n"
    "    if sharded:\n"
    "        def per_replica(ctx):\n"
    "            return dali_tf.DALIDataset(pipeline=make(shard=ctx, device_id=ctx), batch_size=2)\n"
    "        return per_replica\n"
    "    pipe = make(device_id=0)\n"
    "    return dali_tf.DALIDataset(pipeline=pipe, batch_size=2)\n"
)


def test_tf_dataset_over_a_chosen_pipeline_function_keeps_each_with_one_reason():
    """`make = choose(...)` returns one of two pipeline functions; both feed `DALIDataset`: each is
    kept with one NDD904, and nothing else (not the reader in an `if` that `plain` has)."""
    out, result = migrate_text(CHOSEN)
    assert out.count("@pipeline_def") == 2
    found = [d for d in result.diagnostics if d.needs_human]
    assert codes(result) == ["NDD904", "NDD904"], found
    assert sorted(d.message.split("`")[1] for d in found) == ["plain", "shards"]
    assert all("kept in pipeline mode" in d.message for d in found)


def test_a_chosen_pipeline_function_not_always_returned_is_not_traced():
    """A chooser that may return something else (here None) ties nothing: the call is reported."""
    source = CHOSEN.replace(
        "    else:\n        return plain\n", "    if masks:\n        return plain\n    return None\n"
    )
    _, result = migrate_text(source)
    assert "NDD904" in codes(result) and any(
        "second reader" in d.message for d in result.diagnostics if d.code == "NDD001"
    )


@pytest.mark.parametrize(
    "use, code, why",
    [
        (
            "ds = DALIDataset(pipeline=pipe, batch_size=2, output_dtypes=(tf.float32,))",
            "NDD904",
            "its pipeline feeds TensorFlow's `DALIDataset`",
        ),
        ("data = pipe.serialize()", "NDD902", "its pipeline is serialized"),
    ],
)
def test_a_use_in_another_module_keeps_the_pipeline_on_purpose_there(tmp_path, monkeypatch, cli, use, code, why):
    """NVIDIA's TensorFlow examples define the pipeline in one module and hand it to `DALIDataset`
    in another. The definer says it is kept on purpose, under the rule of that use, as it says for
    the same use in its own module (before: NDD008, "a way the migration does not follow", with
    advice to migrate a module that was in the run)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pipes.py").write_text(HEAD)
    (tmp_path / "data.py").write_text(
        "import tensorflow as tf\nfrom nvidia.dali.plugin.tf import DALIDataset\n\nfrom pipes import p\n\n"
        f"pipe = p()\n{use}\n"
    )
    result = cli("migrate", ".")
    said = " ".join(result.stderr.split())
    assert f"{code} pipes.py:5: `p` kept in pipeline mode: data.py:7" in said, said
    assert f"keeps it: {why}" in said and "NDD008" not in said, said
    assert (tmp_path / "pipes.py").read_text().startswith(HEAD.split("\n\n\n")[0])
    assert "@pipeline_def" in (tmp_path / "pipes.py").read_text()
