"""Statements of graph code that act outside it (build_time): run once before the generator's loop,
as pipeline mode ran them once when the graph was built, or the pipeline is left unconverted."""

from __future__ import annotations

import pytest

from tests.conftest import migrate_text

HEAD = "from nvidia.dali import fn, pipeline_def\n\nLOG = []\n\n\n@pipeline_def(batch_size=2)\ndef p(root):\n"


def _loop_body(out: str) -> str:
    return out.split("while True:", 1)[1]


def test_effects_run_once_around_the_reader_in_order():
    out, result = migrate_text(
        HEAD + "    print('before')\n    data = fn.readers.numpy(file_root=root)\n    LOG.append(root)\n"
        "    scaled = data * 2\n    return scaled\n"
    )
    assert not any(d.needs_human for d in result.diagnostics)
    head = out.split("while True:", 1)[0]
    assert head.index("print('before')") < head.index("reader = ndd.readers.Numpy") < head.index("LOG.append(root)")
    assert "LOG" not in _loop_body(out) and "print" not in _loop_body(out)
    assert "scaled = data * 2" in _loop_body(out)


def test_a_global_counter_and_its_declaration_run_once():
    out, _ = migrate_text(
        "from nvidia.dali import fn, pipeline_def\n\ncount = 0\n\n\n@pipeline_def(batch_size=2)\ndef p():\n"
        "    global count\n    count += 1\n    return fn.random.uniform(shape=[2])\n"
    )
    head = out.split("while True:", 1)[0]
    assert "    global count\n    count += 1\n" in head
    assert "count" not in _loop_body(out)


def test_a_statement_using_graph_values_blocks():
    out, result = migrate_text(
        HEAD + "    data = fn.readers.numpy(file_root=root)\n    LOG.append(data)\n    return data\n"
    )
    assert "ndd." not in out
    assert [d.message for d in result.diagnostics if d.needs_human] == [
        (
            "`p` not migrated: `LOG.append(data)` runs once in pipeline mode, when the graph is built, and uses "
            "values the graph computes; in the generator it would run for every batch"
        )
    ]


def test_a_statement_using_a_per_batch_name_blocks():
    out, result = migrate_text(
        HEAD + "    data = fn.readers.numpy(file_root=root)\n    n = data[0]\n    print(n)\n    return data\n"
    )
    assert "ndd." not in out
    assert any("`print(n)` runs once" in d.message for d in result.diagnostics)


@pytest.mark.parametrize(
    "value",
    ["3", "'cpu' if root else 'gpu'", "(root, 2 * 3)", "-root.size // 2", "LOG[root] + 'x'"],
)
def test_a_value_computed_from_build_time_values_runs_once_before_the_loop(value):
    """``n = <expression>`` that calls nothing and makes no mutable object, its name bound once:
    computed before the loop, once, as pipeline mode did; a ``print`` reading it runs once too."""
    out, result = migrate_text(
        HEAD + f"    data = fn.readers.numpy(file_root=root)\n    n = {value}\n    print(n)\n    return data\n"
    )
    assert not [d for d in result.diagnostics if d.needs_human]
    head = out[: out.index("while True:")]
    assert f"    n = {value}\n    print(n)\n" in head
    assert "print" not in _loop_body(out)


@pytest.mark.parametrize(
    "value, then",
    [
        ("[1, 2]", ""),  # a list: a new object in every run of the body
        ("len(root)", ""),  # a call
        ("3", "    n = 4\n"),  # bound twice
        ("data", ""),  # a graph value
    ],
)
def test_other_values_stay_in_the_loop(value, then):
    out, _ = migrate_text(
        HEAD + f"    data = fn.readers.numpy(file_root=root)\n    n = {value}\n{then}    return data\n"
    )
    assert f"n = {value}" in _loop_body(out)


def test_graph_values_kept_and_dropped_ops_stay_in_the_loop():
    out, result = migrate_text(
        "import nvidia.dali.ops as ops\nfrom nvidia.dali.pipeline import Pipeline\n\n\nclass P(Pipeline):\n"
        "    def __init__(self):\n        super().__init__(2, 1, None)\n        self.u = ops.random.Uniform(shape=[2])\n\n"
        "    def define_graph(self):\n        self.x = self.u()\n        self.y = self.x + 1\n        self.u()\n"
        "        return self.y\n"
    )
    assert not any(d.needs_human for d in result.diagnostics), [d.message for d in result.diagnostics]
    loop = _loop_body(out)
    assert "x = ndd.random.uniform(" in loop and "y = x + 1" in loop and ".evaluate()\n" in loop


def test_a_legacy_count_on_self_runs_once():
    out, _ = migrate_text(
        "import nvidia.dali.ops as ops\nfrom nvidia.dali.pipeline import Pipeline\n\n\nclass P(Pipeline):\n"
        "    def __init__(self):\n        super().__init__(2, 1, None)\n        self.u = ops.random.Uniform(shape=[2])\n"
        "        self.count = 0\n\n    def define_graph(self):\n        self.count = self.count + 1\n"
        "        return self.u() * self.count\n"
    )
    head = out.split("while True:", 1)[0]
    assert "    count = 0\n    count = count + 1\n" in head
    assert "count = count + 1" not in _loop_body(out)


def test_a_block_that_acts_outside_runs_once_as_a_whole():
    out, result = migrate_text(
        HEAD.replace("def p(root)", "def p(root, verbose)")
        + "    data = fn.readers.numpy(file_root=root)\n    if verbose:\n        LOG.append(root)\n"
        "        print('built')\n    return data\n"
    )
    assert not any(d.needs_human for d in result.diagnostics)
    head = out.split("while True:", 1)[0]
    assert "    if verbose:\n        LOG.append(root)\n        print('built')\n" in head
    assert "LOG" not in _loop_body(out) and "verbose" not in _loop_body(out)


def test_a_block_acting_outside_on_graph_values_blocks():
    out, result = migrate_text(
        HEAD.replace("def p(root)", "def p(root, verbose)")
        + "    data = fn.readers.numpy(file_root=root)\n    if verbose:\n        print('flipping')\n"
        "        data = fn.flip(data)\n    return data\n"
    )
    assert "ndd." not in out
    assert [d.message for d in result.diagnostics if d.needs_human] == [
        (
            "`p` not migrated: `if verbose: ...` runs once in pipeline mode, when the graph is built, and uses "
            "values the graph computes; in the generator it would run for every batch"
        )
    ]


def test_a_block_binding_a_name_the_loop_binds_too_blocks():
    out, result = migrate_text(
        HEAD + "    data = fn.readers.numpy(file_root=root)\n    for k in range(2):\n        LOG.append(root)\n"
        "    k = 3\n    return data * k\n"
    )
    assert "ndd." not in out
    assert any(
        "`for k in range(2): ...` runs once in pipeline mode, when the graph is built, and binds `k`" in d.message
        for d in result.diagnostics
    )


def test_a_graph_branch_on_a_build_time_flag_stays_in_the_loop():
    out, result = migrate_text(
        HEAD.replace("def p(root)", "def p(root, flip)")
        + "    data = fn.readers.numpy(file_root=root)\n    if flip:\n        data = fn.flip(data)\n    return data\n"
    )
    assert not any(d.needs_human for d in result.diagnostics)
    assert "if flip:\n                data = ndd.flip(data)" in _loop_body(out)


def test_a_print_of_graph_nodes_is_dropped_with_a_note():
    """Pipeline mode printed `DataNode(name=..., source=...)` once, when the graph was built: no data,
    and no dynamic-mode counterpart. The statement goes, and a note says why."""
    out, result = migrate_text(
        HEAD
        + "    data = fn.readers.numpy(file_root=root)\n    # the scaled copy\n    print(data)\n    scaled = data * 2\n"
        "    print('scaled', type(scaled), root, sep=' ')\n    return scaled\n"
    )
    assert not any(d.needs_human for d in result.diagnostics), [d.message for d in result.diagnostics]
    assert "print" not in out
    assert "    # the scaled copy\n            scaled = data * 2\n" in _loop_body(out)  # the comment stays
    notes = [d.message for d in result.diagnostics if "dropped: pipeline mode ran it once" in d.message]
    assert [note.split("`")[1] for note in notes] == ["print(data)", "print('scaled', type(scaled), root, sep=' ')"]
    assert "printed graph nodes" in notes[0]


def test_a_print_of_what_is_not_a_graph_node_as_it_is_blocks():
    """The data's properties, a node computed in the `print`, a name the body binds otherwise too, a
    name only bound after the `print` (a parameter then), a `print` the module defines: each printed
    something the generator cannot print once, or is not the builtin."""
    cases = {
        "print(data.name)": "    data = fn.readers.numpy(file_root=root)\n    print(data.name)\n",
        "print(data + 1)": "    data = fn.readers.numpy(file_root=root)\n    print(data + 1)\n",
        "print(data)": "    data = fn.readers.numpy(file_root=root)\n    data = [data]\n    print(data)\n",
        "print(root)": "    print(root)\n    root = fn.readers.numpy(file_root='x')\n    data = root\n",
    }
    for text, body in cases.items():
        out, result = migrate_text(HEAD + body + "    return data\n")
        assert "ndd." not in out, text
        assert any(f"`{text}` runs once" in d.message for d in result.diagnostics), (text, result.diagnostics)
    shadowed = HEAD.replace("LOG = []\n", "def print(*values):\n    LOG.append(values)\n\n\nLOG = []\n")
    out, result = migrate_text(
        shadowed + "    data = fn.readers.numpy(file_root=root)\n    print(data)\n    return data\n"
    )
    assert "ndd." not in out
    assert any("`print(data)` runs once" in d.message for d in result.diagnostics)


FLIPS = (
    "    data = fn.readers.numpy(file_root=root)\n"
    "    flips = {'horizontal': fn.random.coin_flip()}\n"
    "    if both:\n"
    "        flips.update({'vertical': fn.random.coin_flip()})\n"
    "    return fn.flip(data, **flips)\n"
)


def test_a_dict_made_in_the_body_and_updated_under_a_build_time_if_stays_in_the_loop():
    """``flips`` is made anew each time the body runs: updating it acts on nothing outside the
    function, once per batch as once per build (nnUNet's flips of coin flips)."""
    out, result = migrate_text(HEAD.replace("def p(root)", "def p(root, both)") + FLIPS)
    assert not any(d.needs_human for d in result.diagnostics), [d.message for d in result.diagnostics]
    loop = _loop_body(out)
    assert loop.index("flips = {") < loop.index("if both:") < loop.index("flips.update(") < loop.index("ndd.flip(")


@pytest.mark.parametrize(
    ("binding", "signature"),
    [
        ("    flips = LOG\n", "root, both"),  # the global list, not a new one
        ("    flips = {}\n    flips = LOG\n", "root, both"),  # bound to a new dict and to the list
        ("", "root, both, flips"),  # a parameter: the caller's dict
        ("    global flips\n    flips = {}\n", "root, both"),
    ],
    ids=["global-value", "also-bound-otherwise", "parameter", "declared-global"],
)
def test_a_method_call_on_an_object_from_outside_still_blocks(binding, signature):
    body = (
        "    data = fn.readers.numpy(file_root=root)\n"
        + binding
        + "    if both:\n        flips.update({'vertical': fn.random.coin_flip()})\n    return fn.flip(data, **flips)\n"
    )
    out, result = migrate_text(HEAD.replace("def p(root)", f"def p({signature})") + body)
    assert "ndd." not in out
    assert any("`if both: ...` runs once in pipeline mode" in d.message for d in result.diagnostics), [
        d.message for d in result.diagnostics
    ]


@pytest.mark.parametrize(
    "imports, draw",
    [
        ("import random\n", "random.choice([4, 6])"),
        ("import random as rnd\n", "rnd.choice([4, 6])"),
        ("import numpy as np\n", "np.random.randint(4, 7)"),
        ("from numpy import random as npr\n", "npr.choice([4, 6])"),
    ],
)
def test_a_random_draw_of_python_or_numpy_runs_once_under_any_import_alias(imports, draw):
    """Drawn once when pipeline mode built the graph: before the loop, whatever the import calls it;
    the same call of another module (`my_random.choice`) stays in the loop."""
    source = (
        imports + "from nvidia.dali import fn, pipeline_def\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def p(root):\n"
        "    jpegs, labels = fn.readers.file(file_root=root)\n"
        f"    side = {draw}\n"
        "    return fn.resize(fn.decoders.image(jpegs), resize_x=side, resize_y=side), labels\n"
    )
    out, _ = migrate_text(source)
    assert out.index(f"side = {draw}") < out.index("while True:"), out
    other, _ = migrate_text(
        source.replace(imports, "import my_random\n").replace(draw.split(".")[0] + ".", "my_random.", 1)
    )
    assert other.index("side = my_random.") > other.index("while True:"), other
