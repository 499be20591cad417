"""An operator called on an input set (`fn.op([a, b])`, `self.op([a, b])`): one `ndd` call per
input where that gives what pipeline mode gives, else blocked with the reason
(ndd_migrate/codegen/input_sets.py). The first tests check, by running DALI on the CPU, what
pipeline mode does with an input set: the facts the conversion rests on."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import calls_of, migrate_text

HEAD = "import nvidia.dali.fn as fn\nimport nvidia.dali.types as types\nfrom nvidia.dali import pipeline_def\n\n\n"
DEC = "@pipeline_def(batch_size=2)\n"
READ = "    data = fn.readers.numpy(file_root=root)\n"


def _images():
    rng = np.random.default_rng(0)
    return [rng.random((12, 10, 3), dtype=np.float32) for _ in range(2)]


def _run(graph):
    from nvidia.dali import pipeline_def

    pipe = pipeline_def(graph, batch_size=2, num_threads=1, device_id=None, seed=12)()
    pipe.build()
    return [[np.array(out[i]) for i in range(2)] for out in pipe.run()]


# -- what pipeline mode does -------------------------------------------------------------------------


@pytest.mark.dali
def test_dali_one_element_gives_a_node_several_give_a_list_in_order():
    from nvidia.dali import fn

    kinds = []

    def graph():
        a = fn.external_source(source=_images, batch=True, layout="HWC")
        one = fn.flip([a], horizontal=1)
        two = fn.flip([a, a * 2], horizontal=1)
        kinds.extend([type(one).__name__, type(two).__name__, len(two)])
        return one, two[0], two[1], fn.flip(a * 2, horizontal=1)

    one, first, second, alone = _run(graph)
    assert kinds == ["DataNode", "list", 2]
    assert all(np.array_equal(x, y) for x, y in zip(one, first))
    assert all(np.array_equal(x, y) for x, y in zip(second, alone))


@pytest.mark.dali
def test_dali_argument_inputs_are_shared_by_every_element():
    from nvidia.dali import fn, types

    def graph():
        a = fn.external_source(source=_images, batch=True, layout="HWC")
        coin = fn.random.coin_flip()
        x, y = fn.crop_mirror_normalize([a, a], mirror=coin, dtype=types.FLOAT)
        return x, y

    x, y = _run(graph)
    assert all(np.array_equal(p, q) for p, q in zip(x, y))


@pytest.mark.dali
@pytest.mark.parametrize("seed", [None, 7])
def test_dali_a_random_op_draws_the_same_values_for_every_element(seed):
    """One logical operator: its instances are seeded alike, with or without `seed=`."""
    from nvidia.dali import fn

    def graph():
        a = fn.external_source(source=_images, batch=True, layout="HWC")
        kwargs = {} if seed is None else {"seed": seed}
        x, y = fn.random_resized_crop([a, a], size=[4, 4], **kwargs)
        return x, y, fn.random_resized_crop(a, size=[4, 4], **kwargs)

    x, y, _ = _run(graph)
    assert all(np.array_equal(p, q) for p, q in zip(x, y))


@pytest.mark.dali
def test_ndd_separate_calls_draw_anew_and_the_hints_clone_draws_alike():
    """Why a random op on an input set is not converted, and what the hint tells to write."""
    ndd = pytest.importorskip("nvidia.dali.experimental.dynamic")
    images = ndd.as_batch(_images(), layout="HWC")
    rng = ndd.random.RNG(seed=3)

    def crop(**kwargs):
        return np.stack([np.asarray(t) for t in ndd.random_resized_crop(images, size=[4, 4], **kwargs).evaluate()])

    a, b = crop(rng=rng), crop(rng=rng)
    assert not np.array_equal(a, b)
    sets = [[crop(rng=rng.clone()), crop(rng=rng)] for _ in range(2)]
    assert all(np.array_equal(a, b) for a, b in sets)
    assert not np.array_equal(sets[0][0], sets[1][0])  # the RNG moves on once per set


@pytest.mark.dali
def test_dali_several_outputs_are_grouped_by_output():
    from nvidia.dali import fn

    shapes = []

    def graph():
        a = fn.external_source(source=_images, batch=True, layout="HWC")
        signal = fn.reductions.mean(a, axes=[1, 2])
        out = fn.nonsilent_region([signal, signal * 3])
        shapes.append([type(o).__name__ for o in out] + [len(o) for o in out])
        return out[0][0], out[0][1]

    _run(graph)
    assert shapes == [["list", "list", 2, 2]]  # [[begin_a, begin_b], [length_a, length_b]]


@pytest.mark.dali
def test_dali_a_tuple_is_no_input_set():
    from nvidia.dali import fn

    def graph():
        a = fn.external_source(source=_images, batch=True, layout="HWC")
        return fn.flip((a, a))

    with pytest.raises(TypeError, match="tuple"):
        _run(graph)


# -- pipeline functions -------------------------------------------------------------------------------


def _migrate(body: str, head: str = HEAD):
    text, result = migrate_text(head + DEC + "def p(root):\n" + body)
    assert migrate_text(text)[0] == text, "a second migration changed the output"
    return text, result


def _messages(result, code):
    return [d.message for d in result.diagnostics if d.code == code]


def test_one_call_per_element_keeping_every_argument():
    text, _ = _migrate(READ + "    a, b = fn.cast([data, data * 2], dtype=types.FLOAT)\n    return a, b\n")
    assert "a, b = [ndd.cast(x, dtype=types.FLOAT) for x in [data, data * 2]]" in text


def test_several_lists_are_zipped_and_other_inputs_repeated():
    text, _ = _migrate(READ + "    s, t = fn.cat([data, data], [data * 2, data * 3], data, axis=0)\n    return s, t\n")
    assert "s, t = [ndd.cat(x, y, data, axis=0) for x, y in zip([data, data], [data * 2, data * 3])]" in text


def test_the_element_name_is_not_one_the_call_uses():
    text, _ = _migrate(READ + "    x = data * 2\n    a, b = fn.cat([data, x], x, axis=0)\n    return a, b\n")
    assert "[ndd.cat(x_2, x, axis=0) for x_2 in [data, x]]" in text


@pytest.mark.parametrize(
    "head, reader, func",
    [
        ("import nvidia.dali.fn as dfn\nfrom nvidia.dali import pipeline_def\n\n\n", "dfn", "dfn.flip"),
        ("from nvidia.dali import fn as F, pipeline_def\n\n\n", "F", "F.flip"),
        (
            "from nvidia.dali.fn import flip as mirror_op\nfrom nvidia.dali import fn, pipeline_def\n\n\n",
            "fn",
            "mirror_op",
        ),
        ("import nvidia.dali as dali\nfrom nvidia.dali import pipeline_def\n\n\n", "dali.fn", "dali.fn.flip"),
    ],
)
def test_aliases(head, reader, func):
    body = f"    data = {reader}.readers.numpy(file_root=root)\n    a, b = {func}([data, data], vertical=1)\n    return a, b\n"
    text, _ = _migrate(body, head)
    assert "a, b = [ndd.flip(x, vertical=1) for x in [data, data]]" in text, text


def test_a_random_op_on_an_input_set_is_blocked_saying_why():
    text, result = _migrate(READ + "    a, b = fn.random_resized_crop([data, data], size=[4, 4])\n    return a, b\n")
    assert "@pipeline_def" in text and "fn.random_resized_crop([data, data]" in text
    (message,) = _messages(result, "NDD101")
    assert "seeds its instances alike" in message and "the same random draws" in message
    (hint,) = [d.hint for d in result.diagnostics if d.code == "NDD101"]
    assert "rng=rng.clone()" in hint


def test_a_random_op_on_a_one_element_set_is_a_plain_call():
    text, _ = _migrate(READ + "    a = fn.random_resized_crop([data], size=[4, 4])\n    return a\n")
    assert "a = ndd.random_resized_crop(data, size=[4, 4])" in text


@pytest.mark.parametrize(
    "call, why",
    [
        ("fn.nonsilent_region([data, data])", "has several outputs"),
        ("fn.resize([data, data], size=[2, 2])", "may have several outputs"),
        ("fn.crop_mirror_normalize([data, data], mirror=fn.random.coin_flip())", "evaluated once per input"),
        ("fn.flip((data, data))", "a tuple of inputs"),
        ("fn.cat([data, 1.5], data)", "is a constant"),
        ("fn.cat([data, data], [data])", "different lengths"),
        ("fn.flip([*parts])", "unpacked"),
    ],
)
def test_what_is_not_the_same_per_element_blocks(call, why):
    body = READ + "    parts = [data, data]\n" + f"    out = {call}\n    return out[0], out[1]\n"
    text, result = _migrate(body)
    assert "@pipeline_def" in text
    assert any(why in m and "runs on an input set" in m for m in _messages(result, "NDD101")), result.diagnostics


# -- legacy classes ---------------------------------------------------------------------------------

LEGACY = (
    "import nvidia.dali.ops as ops\nimport nvidia.dali.types as types\nfrom nvidia.dali.pipeline import Pipeline\n\n\n"
    "class P(Pipeline):\n"
    "    def __init__(self, batch_size, root):\n"
    "        super().__init__(batch_size, 1, None)\n"
    "        self.read = ops.readers.Numpy(file_root=root)\n"
)


def _legacy(init: str, graph: str):
    text, result = migrate_text(LEGACY + init + "\n    def define_graph(self):\n        data = self.read()\n" + graph)
    assert migrate_text(text)[0] == text, "a second migration changed the output"
    return text, result


def test_legacy_op_on_an_input_set_takes_the_constructor_arguments_once_per_input():
    text, _ = _legacy(
        "        self.cast = ops.Cast(dtype=types.FLOAT)\n",
        "        a, b = self.cast([data, data * 2])\n        c = self.cast([data])\n        return a, b, c\n",
    )
    assert "a, b = [ndd.cast(x, dtype=types.FLOAT) for x in [data, data * 2]]" in text
    assert "c = ndd.cast(data, dtype=types.FLOAT)" in text


def test_legacy_op_chosen_in_init_takes_its_arguments_per_input():
    text, _ = _legacy(
        "        if root:\n            self.cast = ops.Cast(dtype=types.FLOAT)\n"
        "        else:\n            self.cast = ops.Cast(dtype=types.INT32)\n",
        "        a, b = self.cast([data, data])\n        return a, b\n",
    )
    assert "a, b = [ndd.cast(x, **cast_args) for x in [data, data]]" in text


def test_legacy_random_op_on_an_input_set_is_blocked_saying_why():
    text, result = _legacy(
        "        self.crop = ops.RandomResizedCrop(size=[4, 4], seed=3)\n",
        "        a, b = self.crop([data, data])\n        return a, b\n",
    )
    assert "class P(Pipeline)" in text
    (message,) = _messages(result, "NDD402")
    assert "`self.crop([data, data])` runs on an input set" in message and "seeds its instances alike" in message


def test_legacy_argument_with_a_call_is_blocked():
    text, result = _legacy(
        "        self.cmn = ops.CropMirrorNormalize(dtype=types.FLOAT)\n        self.coin = ops.random.CoinFlip()\n",
        "        a, b = self.cmn([data, data], mirror=self.coin())\n        return a, b\n",
    )
    assert "class P(Pipeline)" in text
    assert any("`mirror=self.coin()` would be evaluated once per input" in m for m in _messages(result, "NDD402"))


HELPERS = (
    "def augment(a, b):\n    return fn.random_resized_crop([a, b], size=[4, 4])\n\n\n"
    "def mirror(a, b):\n    return fn.flip([a, b], horizontal=1)\n\n\n"
)


def test_an_input_set_in_a_helper_the_graph_runs_converts_with_it():
    text, _ = _migrate(READ + "    u, v = mirror(data, data)\n    return u, v\n", HEAD + HELPERS)
    assert "    return [ndd.flip(x, horizontal=1) for x in [a, b]]" in text


def test_a_random_op_on_an_input_set_in_a_helper_blocks_the_pipeline():
    """Not converted into per-input calls that would crop `a` and `b` differently."""
    text, result = _migrate(READ + "    x, y = augment(data, data)\n    return x, y\n", HEAD + HELPERS)
    assert "@pipeline_def" in text and "return fn.random_resized_crop([a, b], size=[4, 4])" in text
    assert any("seeds its instances alike" in m for m in _messages(result, "NDD101"))


def test_legacy_constructor_on_several_lines_gives_a_comprehension_on_several_lines():
    text, _ = _legacy(
        "        self.cast = ops.Cast(\n            dtype=types.FLOAT,\n        )\n",
        "        a, b = self.cast([data, data])\n        return a, b\n",
    )
    assert (
        "            a, b = [\n"
        "                ndd.cast(\n"
        "                    x,\n"
        "                    dtype=types.FLOAT,\n"
        "                )\n"
        "                for x in [data, data]\n"
        "            ]\n"
    ) in text, text


def test_each_graph_function_is_searched_for_calls_once(monkeypatch):
    """Ten pipelines that run one helper: the helper and each pipeline's own graph are searched for
    op calls once each (the graph is among the nodes a pipeline reaches, and a helper is reached by
    every pipeline that runs it: a search per pipeline made a shared helper cost their product)."""
    from ndd_migrate.rules import ndd101_fn_call

    searched = calls_of(monkeypatch, ndd101_fn_call, "_calls")
    pipelines = "".join(
        f"@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        f"def pipe_{i}():\n"
        f"    return scaled(fn.random.uniform(shape=[2]))\n\n\n"
        for i in range(10)
    )
    text, _ = migrate_text(
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "def scaled(x):\n"
        "    return fn.cast(x * 2, dtype=5)\n\n\n" + pipelines
    )
    assert text.count("def pipe_") == 10 and "ndd.cast(" in text
    assert len(searched) == len({id(node) for (node,) in searched}) == 11


def test_an_input_set_loses_the_arguments_dynamic_mode_rejects():
    """The calls an input set becomes take what NDD106 leaves of the call: no `name=`, no `seed=` on an
    operator that draws nothing, deprecated names renamed."""
    out, _ = migrate_text(
        HEAD + "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\ndef p(root):\n"
        "    a, b = fn.readers.file(file_root=root)\n"
        "    x, y = fn.cast([a, b], dtype=types.FLOAT, seed=3, name='c')\n"
        "    return x, y\n"
    )
    assert "[ndd.cast(x, dtype=types.FLOAT) for x in [a, b]]" in out
