"""NDD110: an `isinstance` test against DALI's graph-node class (`DataNode`, older DALI's
`_EdgeReference`) in graph code tests for `ndd.Batch` once migrated; any other use of the class there
keeps the pipeline in pipeline mode."""

from __future__ import annotations

import re

import pytest

from tests.conftest import HAS_DALI, kept_with_one_finding, migrate_text

TODO = re.compile(r"^[ \t]*# TODO\(ndd-migrate\): .*\n", re.MULTILINE)
HEAD = "import nvidia.dali.fn as fn\nfrom nvidia.dali import pipeline_def\n"


def _pipeline(imports: str, body: str, helpers: str = "") -> str:
    return (
        HEAD
        + imports
        + "\n\n"
        + helpers
        + "@pipeline_def(batch_size=2)\ndef p(k):\n    x = fn.random.uniform(shape=[3])\n"
        + body
        + "    return x\n"
    )


def _converted(source: str) -> str:
    text, result = migrate_text(source)
    assert "@pipeline_def" not in text, [(d.code, d.message) for d in result.diagnostics if not d.fixed]
    assert not [d for d in result.diagnostics if not d.fixed], [d.message for d in result.diagnostics]
    assert migrate_text(text)[0] == text
    compile(text, "migrated.py", "exec")
    return text


def _blocked(source: str):
    text, result = migrate_text(source)
    found = [d for d in result.diagnostics if d.code == "NDD110" and not d.fixed]
    assert found, [(d.code, d.message) for d in result.diagnostics]
    assert TODO.sub("", text) == source, "a blocked pipeline's file changed beyond its TODOs"
    return text, found[0]


@pytest.mark.parametrize(
    "imports,spelled",
    [
        ("from nvidia.dali.data_node import DataNode", "DataNode"),
        ("from nvidia.dali.pipeline import DataNode", "DataNode"),
        ("from nvidia.dali.data_node import DataNode as Node", "Node"),
        ("from nvidia.dali.ops import _EdgeReference", "_EdgeReference"),
        ("import nvidia.dali as dali", "dali.pipeline.DataNode"),
        ("import nvidia.dali.data_node", "nvidia.dali.data_node.DataNode"),
    ],
)
def test_isinstance_tests_for_batch_under_any_spelling(imports, spelled):
    text = _converted(
        _pipeline(imports, f"    assert isinstance(x, {spelled})\n    assert not isinstance(k, {spelled})\n")
    )
    assert "assert isinstance(x, ndd.Batch)\n" in text and "assert not isinstance(k, ndd.Batch)\n" in text
    assert "DataNode" not in text and "_EdgeReference" not in text  # the import went with its last use


def test_a_tuple_of_classes_keeps_the_others():
    text = _converted(
        _pipeline(
            "from nvidia.dali.data_node import DataNode",
            "    assert isinstance(x, (list, DataNode))\n    assert not isinstance(k, ((DataNode, tuple), dict))\n",
        )
    )
    assert "isinstance(x, (list, ndd.Batch))" in text and "isinstance(k, ((ndd.Batch, tuple), dict))" in text


def test_a_helper_given_graph_values_and_python_values():
    helpers = "def scale(v, f):\n    if isinstance(f, DataNode):\n        return v * f\n    return v * float(f)\n\n\n"
    source = _pipeline("from nvidia.dali.data_node import DataNode", "    x = scale(x, 2) + scale(x, x)\n", helpers)
    text = _converted(source)
    assert "    if isinstance(f, ndd.Batch):\n" in text


def test_a_test_of_a_parameter_runs_once_before_the_loop():
    """Build-time Python (ndd_migrate/model/values/build_time.py) with the rewritten test: it still runs once."""
    source = _pipeline(
        "from nvidia.dali.data_node import DataNode", "    if not isinstance(k, DataNode):\n        print(k)\n"
    )
    text = _converted(source)
    assert (
        "def p(k, *, batch_size=2):\n    if not isinstance(k, ndd.Batch):\n        print(k)\n    while True:\n" in text
    )


def test_the_import_stays_while_something_else_uses_it():
    source = (
        HEAD + "from nvidia.dali.data_node import DataNode\n\n\n"
        "def describe(node: DataNode) -> str:\n    return node.name\n\n\n"
        "@pipeline_def(batch_size=2)\ndef p():\n    x = fn.random.uniform(shape=[3])\n"
        "    assert isinstance(x, DataNode)\n    return x\n"
    )
    text = _converted(source)
    assert "from nvidia.dali.data_node import DataNode\n" in text and "isinstance(x, ndd.Batch)" in text
    assert "def describe(node: DataNode)" in text


@pytest.mark.parametrize(
    "body,shown",
    [
        ("    assert type(x) is DataNode\n", "`assert type(x) is DataNode`"),
        ("    assert issubclass(type(x), DataNode)\n", "`assert issubclass(type(x), DataNode)`"),
        ("    if type(k) == DataNode:\n        x = x * k\n", "`if type(k) == DataNode:`"),
    ],
)
def test_other_uses_of_the_class_block(body, shown):
    _, finding = _blocked(_pipeline("from nvidia.dali.data_node import DataNode", body))
    assert finding.message.startswith("`p` not migrated: " + shown), finding.message
    assert "other than as the class an `isinstance` test checks" in finding.message
    assert "isinstance(value, DataNode)" in finding.hint


def test_a_name_holding_the_class_blocks():
    source = (
        HEAD + "from nvidia.dali.data_node import DataNode\n\nGRAPH_TYPES = (DataNode, list)\n\n\n"
        "@pipeline_def(batch_size=2)\ndef p():\n    x = fn.random.uniform(shape=[3])\n"
        "    assert isinstance(x, GRAPH_TYPES)\n    return x\n"
    )
    _, finding = _blocked(source)
    assert "`GRAPH_TYPES` holds `DataNode`" in finding.message
    assert "write the classes in the `isinstance` call itself" in finding.hint


def test_a_use_in_a_helper_blocks_every_pipeline_that_runs_it():
    source = (
        HEAD + "from nvidia.dali.data_node import DataNode\n\n\n"
        "def norm(v):\n    return v if type(v) is DataNode else fn.cast(v, dtype=9)\n\n\n"
        "@pipeline_def(batch_size=2)\ndef a():\n    return norm(fn.random.uniform(shape=[3]))\n\n\n"
        "@pipeline_def(batch_size=2)\ndef b():\n    return norm(fn.random.normal(shape=[3]))\n"
    )
    text, _ = migrate_text(source)
    assert "@pipeline_def(batch_size=2)\ndef a():" in text and "@pipeline_def(batch_size=2)\ndef b():" in text
    assert text.count("NDD110") == 1  # one TODO at the use, for both pipelines


def test_module_level_code_is_left_alone_and_lambdas_of_the_graph_are_rewritten():
    source = (
        HEAD + "from nvidia.dali.data_node import DataNode\n\n"
        "CHECKED = isinstance(3, DataNode)\n\n\n"
        "@pipeline_def(batch_size=2)\ndef p():\n"
        "    x = fn.random.uniform(shape=[3])\n"
        "    nodes = list(filter(lambda v: isinstance(v, DataNode), [x, 2]))\n"
        "    return nodes[0]\n"
    )
    text = _converted(source)
    assert "CHECKED = isinstance(3, DataNode)\n" in text
    assert "nodes = list(filter(lambda v: isinstance(v, ndd.Batch), [x, 2]))\n" in text


def test_a_graph_built_by_hand():
    source = (
        "import nvidia.dali.fn as fn\nfrom nvidia.dali.pipeline import DataNode, Pipeline\n\n"
        "pipe = Pipeline(batch_size=2, num_threads=1, device_id=None)\nwith pipe:\n"
        "    x = fn.random.uniform(shape=[3])\n    assert isinstance(x, DataNode)\n    pipe.set_outputs(x)\n"
    )
    text, _ = migrate_text(source)
    assert "def pipe_batches(" in text and "assert isinstance(x, ndd.Batch)\n" in text
    assert "DataNode" not in text and "Pipeline" not in text


def test_a_helper_module_without_pipelines_is_rewritten_with_its_ops():
    source = (
        "import nvidia.dali.fn as fn\nfrom nvidia.dali.data_node import DataNode\n\n\n"
        "def maybe_flip(x):\n    if isinstance(x, (list, (DataNode,))):\n        return fn.flip(x, horizontal=1)\n    return x[:, ::-1]\n"
    )
    text, _ = migrate_text(source)
    assert "    if isinstance(x, (list, (ndd.Batch,))):\n        return ndd.flip(x, horizontal=1)\n" in text
    assert "DataNode" not in text


def test_a_test_kept_by_noqa_keeps_its_pipeline_in_pipeline_mode():
    """Kept against `DataNode`, the test would be false for every value of the generator."""
    source = _pipeline(
        "from nvidia.dali.data_node import DataNode", "    assert isinstance(x, DataNode)  # noqa: NDD110\n"
    )
    text, result = migrate_text(source)
    kept_with_one_finding(source, text, result.diagnostics, "NDD001")


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_dali_graph_values_are_data_nodes_and_dynamic_mode_values_batches():
    """What the rewrite relies on, in the installed DALI: every graph value of pipeline mode is a
    `DataNode` (under both spellings), every value a converted graph computes an `ndd.Batch`."""
    import numpy as np
    import nvidia.dali.experimental.dynamic as ndd
    import nvidia.dali.fn as dfn
    import nvidia.dali.pipeline as dpipeline
    from nvidia.dali import pipeline_def
    from nvidia.dali.data_node import DataNode

    assert dpipeline.DataNode is DataNode
    seen = []

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def graph():
        x = dfn.random.uniform(shape=[3], seed=1)
        seen.extend([x, x * 2, x[0], dfn.cast(x, dtype=9), x.shape()])
        return x

    graph().build()
    assert all(isinstance(v, DataNode) for v in seen)
    x = ndd.random.uniform(shape=[3], batch_size=2)
    values = [x, x * 2, x.slice[0], ndd.cast(x, dtype=9), ndd.as_batch([np.zeros(2)] * 2), x.evaluate()]
    assert all(isinstance(v, ndd.Batch) for v in values)
    assert not isinstance(ndd.random.uniform(shape=[3]), ndd.Batch)  # without batch_size: a Tensor (NDD104 adds it)
