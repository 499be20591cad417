"""NDD109: `Pipeline.current().<setting>` in a pipeline body reads the migrated function's parameter;
every other use of `Pipeline.current()` in graph code blocks the conversion with a TODO at the call."""

from __future__ import annotations

import re

import pytest

from tests.conftest import kept_with_one_finding, migrate_text

FN = "import nvidia.dali.fn as fn\n"
TODO = re.compile(r"^[ \t]*# TODO\(ndd-migrate\): .*\n", re.MULTILINE)
BODY = "    jpegs, labels = fn.readers.file(file_root=root, shard_id={shard})\n    return {out}, labels\n"


def _source(imports: str, decorator: str, shard: str = "0", out: str = "jpegs", pre: str = "", tail: str = "") -> str:
    return FN + imports + "\n\n" + decorator + "def p(root):\n" + pre + BODY.format(shard=shard, out=out) + tail


def _converted(source: str) -> str:
    text, result = migrate_text(source)
    assert "@pipeline_def" not in text, [d.message for d in result.diagnostics]
    assert "current()" not in text and "Pipeline" not in text
    assert migrate_text(text)[0] == text
    return text


def _blocked(source: str) -> tuple[str, object]:
    text, result = migrate_text(source)
    found = [d for d in result.diagnostics if d.code == "NDD109" and not d.fixed]
    assert found, [d.code for d in result.diagnostics]
    assert TODO.sub("", text) == source, "a blocked pipeline's file changed beyond its TODOs"
    return text, found[0]


@pytest.mark.parametrize(
    "imports,spelling",
    [
        ("from nvidia.dali import pipeline_def, Pipeline", "Pipeline"),
        ("from nvidia.dali import pipeline_def\nfrom nvidia.dali.pipeline import Pipeline as P", "P"),
        ("from nvidia.dali import pipeline_def\nimport nvidia.dali as dali", "dali.Pipeline"),
        ("from nvidia.dali import pipeline_def\nimport nvidia.dali.pipeline", "nvidia.dali.pipeline.Pipeline"),
    ],
)
def test_batch_size_and_device_id_become_parameters_under_any_alias(imports, spelling):
    source = _source(
        imports,
        "@pipeline_def(batch_size=4, device_id=0)\n",
        shard=f"{spelling}.current().device_id",
        pre=f"    n = {spelling}.current().batch_size\n",
        out="fn.random.uniform(shape=[n])",
    )
    text = _converted(source)
    assert "def p(root, *, batch_size=4, device_id=0):" in text
    assert "shard_id=device_id" in text and "n = batch_size\n" in text


def test_settings_given_at_the_call_site_and_max_batch_size():
    source = _source(
        "from nvidia.dali import pipeline_def, Pipeline",
        "@pipeline_def\n",
        shard="Pipeline.current().device_id",
        pre="    n = Pipeline.current().max_batch_size + Pipeline.current().num_threads\n",
        tail="\n\npipe = p('/d', batch_size=8, num_threads=2, device_id=None)\n",
    )
    text = _converted(source)
    assert "n = batch_size + num_threads\n" in text and "shard_id=device_id" in text


def test_device_id_not_given_blocks():
    source = _source(
        "from nvidia.dali import pipeline_def, Pipeline",
        "@pipeline_def(batch_size=4)\n",
        shard="Pipeline.current().device_id",
    )
    text, diag = _blocked(source)
    assert "`Pipeline.current().device_id`" in diag.message and "no `device_id` is given to `p`" in diag.message
    assert "give `device_id=` in the decorator" in text


def test_other_attribute_blocks():
    source = _source(
        "from nvidia.dali import pipeline_def, Pipeline",
        "@pipeline_def(batch_size=4)\n",
        pre="    a = Pipeline.current().exec_async\n",
    )
    _, diag = _blocked(source)
    assert "no parameter for `exec_async`" in diag.message


def test_pipeline_object_bound_to_a_name_read_for_its_settings_becomes_the_parameters():
    """``pipe = Pipeline.current()`` read only as ``pipe.batch_size``/``pipe.device_id``: the
    statement goes, each setting reads the parameter."""
    text = _converted(
        _source(
            "from nvidia.dali import pipeline_def, Pipeline",
            "@pipeline_def(batch_size=4, device_id=0)\n",
            shard="pipe.device_id",
            pre="    pipe = Pipeline.current()\n    n = pipe.batch_size\n",
        )
    )
    assert "pipe" not in text.split("def p(")[1]
    assert "n = batch_size" in text and "shard_id=device_id" in text


def test_pipeline_object_bound_to_a_name_blocks_with_what_to_write():
    """Used other than for a setting (passed on): left as it is, saying what to write."""
    source = _source(
        "from nvidia.dali import pipeline_def, Pipeline",
        "@pipeline_def(batch_size=4)\n",
        pre="    pipe = Pipeline.current()\n    n = pipe.batch_size\n    print(pipe)\n",
    )
    text, diag = _blocked(source)
    assert "`pipe = Pipeline.current()`: the pipeline object is None outside a pipeline" in diag.message
    assert "read `Pipeline.current().batch_size`" in text and "`pipe.<setting>`" in text


def test_pipeline_object_bound_to_a_name_with_a_setting_no_one_gives_blocks_at_that_setting():
    source = _source(
        "from nvidia.dali import pipeline_def, Pipeline",
        "@pipeline_def(batch_size=4)\n",
        pre="    pipe = Pipeline.current()\n    n = pipe.device_id\n",
    )
    _, diag = _blocked(source)
    assert "no `device_id` is given to `p`" in diag.message, diag.message


def test_a_local_of_the_same_name_blocks_unless_it_is_the_same_setting():
    source = _source(
        "from nvidia.dali import pipeline_def, Pipeline",
        "@pipeline_def(batch_size=4)\n",
        pre="    batch_size = 3\n    n = Pipeline.current().batch_size\n",
    )
    _, diag = _blocked(source)
    assert "`batch_size` already names something else in `p`" in diag.message
    same = _source(
        "from nvidia.dali import pipeline_def, Pipeline",
        "@pipeline_def(batch_size=4, device_id=0)\n",
        shard="device_id",
        pre="    device_id = Pipeline.current().device_id\n",
    )
    assert "device_id = device_id" not in _converted(same)  # the setting bound to its own name goes


def test_in_a_helper_the_pipeline_calls_blocks():
    helper = "def shard():\n    return Pipeline.current().device_id\n\n\n"
    source = (
        FN
        + "from nvidia.dali import pipeline_def, Pipeline\n\n\n"
        + helper
        + "@pipeline_def(batch_size=4, device_id=0)\ndef p(root):\n"
        + BODY.format(shard="shard()", out="jpegs")
    )
    text, result = migrate_text(source)
    (diag,) = [d for d in result.diagnostics if d.code == "NDD109"]
    assert "in a function the pipeline calls" in diag.message and "@pipeline_def" in text


def test_outside_graph_code_is_left_alone():
    source = "from nvidia.dali.pipeline import Pipeline\n\n\ndef size():\n    return Pipeline.current().batch_size\n"
    text, result = migrate_text(source)
    assert text == source and not [d for d in result.diagnostics if d.code == "NDD109"]


def test_in_define_graph_blocks():
    source = (
        "from nvidia.dali import ops\nfrom nvidia.dali.pipeline import Pipeline\n\n\n"
        "class P(Pipeline):\n"
        "    def __init__(self, batch_size, num_threads, device_id, root):\n"
        "        super().__init__(batch_size, num_threads, device_id)\n"
        "        self.input = ops.readers.Numpy(file_root=root)\n\n"
        "    def define_graph(self):\n"
        "        data = self.input()\n"
        "        n = Pipeline.current().batch_size\n"
        "        return data * n\n"
    )
    text, result = migrate_text(source)
    (diag,) = [d for d in result.diagnostics if d.code == "NDD109"]
    assert "(in `define_graph`)" in diag.message and "class P(Pipeline)" in text


def test_a_setting_kept_by_noqa_keeps_its_pipeline():
    """``Pipeline.current().batch_size  # noqa: NDD109``: kept as it is, ``Pipeline.current()`` is
    None in the generator; the pipeline stays as it is (the alias form too)."""
    head = "from nvidia.dali import fn, pipeline_def\nfrom nvidia.dali.pipeline import Pipeline\n\n\n"
    tail = "\n\npipe = p()\npipe.build()\n(out,) = pipe.run()\n"
    direct = (
        head
        + "@pipeline_def(batch_size=2)\ndef p():\n    n = Pipeline.current().batch_size  # noqa: NDD109\n    return fn.random.uniform(shape=[n])\n"
        + tail
    )
    alias = (
        head
        + (
            "@pipeline_def(batch_size=2)\ndef p():\n    current = Pipeline.current()  # noqa: NDD109\n"
            "    return fn.random.uniform(shape=[current.batch_size])\n"
        )
        + tail
    )
    for source in (direct, alias):
        text, result = migrate_text(source)
        kept_with_one_finding(source, text, result.diagnostics, "NDD001")
        assert "Pipeline.current()" not in migrate_text(source.replace("  # noqa: NDD109", ""))[0]


def test_a_removed_pipeline_current_statement_keeps_the_reader_in_its_place():
    """`pipe = Pipeline.current()` removed from the body (NDD109) shifted NDD001's statements by
    one: the reader's outputs were taken from the decoder's statement, with exit 0."""
    text = (
        "from nvidia.dali import fn, pipeline_def\nfrom nvidia.dali.pipeline import Pipeline\n\n\n"
        "@pipeline_def\ndef p(root):\n"
        "    pipe = Pipeline.current()\n"
        "    size = pipe.batch_size\n"
        "    jpegs, labels = fn.readers.file(file_root=root)\n"
        "    images = fn.decoders.image(jpegs)\n"
        "    return images, labels + size\n\n\n"
        "pipe = p('/data', batch_size=2)\npipe.build()\nimages, labels = pipe.run()\n"
    )
    out, result = migrate_text(text)
    assert not [d for d in result.diagnostics if d.needs_human]
    assert "    reader = ndd.readers.File(file_root=root)\n" in out
    assert "for jpegs, labels in reader.next_epoch(batch_size=batch_size):" in out
    assert "images = ndd.decoders.image(jpegs)" in out and "Pipeline.current()" not in out
