"""NDD108: a subscript of a DataNode in graph code slices inside every sample, `x.slice[...]` in
dynamic mode; subscripts of Python values stay; an unknown value blocks the conversion."""

from __future__ import annotations

import re

import pytest

from ndd_migrate.engine.transform import transform
from ndd_migrate.io.policy import Policy
from tests.conftest import kept_with_one_finding, migrate_text

HEAD = "import nvidia.dali.fn as fn\nfrom nvidia.dali import pipeline_def\n\n\n"
DEC = "@pipeline_def(batch_size=2)\n"
TODO = re.compile(r"^[ \t]*# TODO\(ndd-migrate\): .*\n", re.MULTILINE)


def _migrate(body: str, params: str = "root", extra: str = "") -> tuple[str, object]:
    source = HEAD + extra + DEC + f"def p({params}):\n" + body
    text, result = migrate_text(source)
    assert migrate_text(text)[0] == text, "a second migration changed the output"
    return text, result


def _blocked(text: str, result, source_part: str) -> list:
    found = [d for d in result.diagnostics if d.code == "NDD108" and not d.fixed]
    assert found, [d.code for d in result.diagnostics]
    assert "@pipeline_def" in text and source_part in text
    return found


READ = "    (data,) = fn.readers.numpy(file_root=root)\n"


def test_unknown_values_of_one_statement_get_one_todo():
    """Several undecided subscripts in one `return`: one TODO naming them, not one per subscript."""
    body = "    x = pick(fn.random.uniform(shape=[4]))\n    y = pick(x)\n    return x[0], y[0], x[1], y[1]\n"
    text, result = _migrate(body, "", "from mylib import pick\n\n\n")
    (diag,) = _blocked(text, result, "return x[0], y[0], x[1], y[1]")
    assert "`x[0]`, `y[0]`, `x[1]` and 1 more: cannot tell whether `x`, `y` are DataNodes" in diag.message
    assert len(TODO.findall(text)) == 1


def test_datanode_subscripts_become_slice():
    text, result = _migrate(
        READ + "    xy = fn.cast(data, dtype=7) * 2\n    return xy[:, 0], data[1:3], data[0][1], xy[-1]\n"
    )
    assert (
        "yield xy.slice[:, 0].evaluate(), data.slice[1:3].evaluate(), data.slice[0].slice[1].evaluate(), xy.slice[-1].evaluate()\n"
        in text
    )
    assert sum(d.code == "NDD108" and d.fixed for d in result.diagnostics) == 5  # data[0][1] is two


def test_arithmetic_gpu_and_op_results_are_datanodes():
    body = (
        READ
        + "    a = data.gpu()\n    b = fn.random.uniform(shape=[4])\n    return (a + b)[0], fn.flip(data)[1:2], a[::2], -data[0]\n"
    )
    text, _ = _migrate(body)
    assert (
        "(a + b.gpu()).slice[0].evaluate(), ndd.flip(data).slice[1:2].evaluate(), a.slice[::2].evaluate(), "
        "(-data.slice[0]).evaluate()" in text  # `b` moved to `a`'s GPU (NDD111)
    )


def test_rebound_name_through_ops_stays_a_datanode():
    text, _ = _migrate(READ + "    data = fn.cast(data, dtype=7)\n    data = data / 255\n    return data[0:2]\n")
    assert "yield data.slice[0:2].evaluate()," in text


def test_python_values_are_left_alone():
    extra = "MEAN = [0.5, 0.25]\n\n\n"
    body = (
        READ
        + "    shape = [4, 4]\n    n = len(sizes)\n"
        + "    out = fn.resize(data, size=[sizes[0], shape[1]])\n"
        + "    return out * MEAN[0], fn.cast(data, dtype=sizes[n - 1])\n"
    )
    text, result = _migrate(body, "root, sizes", extra)
    assert "size=[sizes[0], shape[1]]" in text and "MEAN[0]" in text and "sizes[n - 1]" in text
    assert "@pipeline_def" not in text and not [d for d in result.diagnostics if d.code == "NDD108"]


def test_tuple_of_outputs_bound_to_one_name_is_indexed_as_a_tuple():
    text, _ = _migrate(
        "    outputs = fn.readers.file(file_root=root)\n    images = fn.decoders.image(outputs[0])\n    return images[0:2], outputs[1]\n"
    )
    assert (
        "ndd.decoders.image(outputs[0])" in text and "yield images.slice[0:2].evaluate(), outputs[1].evaluate()" in text
    )


def test_multi_output_op_and_tuple_literal():
    body = (
        "    jpegs, labels = fn.readers.file(file_root=root)\n"
        "    pair = (jpegs, labels)\n"
        "    return pair[1], pair[0][0:4]\n"
    )
    text, _ = _migrate(body)
    assert "yield pair[1].evaluate(), pair[0].slice[0:4].evaluate()" in text


def test_dict_of_a_tfrecord_reader_is_indexed_by_key():
    body = "    out = fn.readers.tfrecord(path=root, index_path=root, features={})\n    return fn.decoders.image(out['image']), out['label']\n"
    text, result = _migrate(body)
    assert "out['image']" in text and "@pipeline_def" not in text


def test_unknown_value_blocks_with_a_precise_todo():
    body = "    x = pick(fn.random.uniform(shape=[4]))\n    return x[0]\n"
    text, result = _migrate(body, "", "from mylib import pick\n\n\n")
    (diag,) = _blocked(text, result, "return x[0]")
    assert "`x[0]`: cannot tell whether `x` is a DataNode" in diag.message
    assert "x.slice[0]" in text and "Bind `x`" in text
    source = HEAD + "from mylib import pick\n\n\n" + DEC + "def p():\n" + body
    assert TODO.sub("", text) == source


def test_new_axis_blocks():
    text, result = _migrate(READ + "    return data[None, 0]\n", extra="import nvidia.dali as dali\n")
    (diag,) = _blocked(text, result, "data[None, 0]")
    assert "`None`" in diag.message and "fn.expand_dims" in text
    text, result = _migrate(READ + "    return data[dali.newaxis]\n", extra="import nvidia.dali as dali\n")
    assert "`dali.newaxis`" in _blocked(text, result, "data[dali.newaxis]")[0].message


def test_helper_called_with_datanodes_is_rewritten():
    extra = "def crop(x, lo=1):\n    return fn.flip(x)[lo:3]\n\n\ndef first(images):\n    return images[0]\n\n\n"
    text, _ = _migrate(READ + "    return crop(data), first(fn.cast(data, dtype=7))\n", extra=extra)
    assert "return ndd.flip(x).slice[lo:3]" in text and "return images.slice[0]" in text


def test_helper_called_with_a_python_list_is_left():
    extra = "def first(values):\n    return values[0]\n\n\n"
    text, _ = _migrate(READ + "    return fn.resize(data, size=first(sizes)),\n", "root, sizes", extra)
    assert "return values[0]" in text and "@pipeline_def" not in text


def test_helper_called_with_both_blocks():
    extra = "def first(values):\n    return values[0]\n\n\n"
    body = READ + "    return fn.resize(data, size=first(sizes)), first(data)\n"
    text, result = _migrate(body, "root, sizes", extra)
    (diag,) = _blocked(text, result, "return values[0]")
    assert "`values[0]`" in diag.message


def test_helper_result_kind_follows_its_returns():
    extra = "def aug(x):\n    return fn.flip(x)\n\n\n"
    text, _ = _migrate(READ + "    y = aug(data)\n    return y[0:1]\n", extra=extra)
    assert "yield y.slice[0:1].evaluate()," in text


def test_comprehension_over_python_values():
    text, _ = _migrate(
        READ + "    ends = [s[0] for s in sizes]\n    return fn.resize(data, size=ends)\n", "root, sizes"
    )
    assert "[s[0] for s in sizes]" in text and "@pipeline_def" not in text


def test_callbacks_and_lambdas_are_not_graph_code():
    extra = "import numpy as np\n\n\n"
    body = (
        "    def cb(arr):\n        return arr[1:3]\n\n"
        "    x = fn.external_source(source=lambda: [np.zeros([4])[0:2]] * 2, batch=True)\n"
        "    return x[0:1]\n"
    )
    text, result = _migrate(body, "", extra)
    assert "return arr[1:3]" in text and "np.zeros([4])[0:2]" in text
    assert "x.slice[0:1]" in text


def test_legacy_define_graph():
    source = (
        "from nvidia.dali import ops\nfrom nvidia.dali.pipeline import Pipeline\n\n\n"
        "class P(Pipeline):\n"
        "    def __init__(self, batch_size, num_threads, device_id, root, sizes):\n"
        "        super().__init__(batch_size, num_threads, device_id)\n"
        "        self.input = ops.readers.Numpy(file_root=root)\n"
        "        self.cast = ops.Cast(dtype=7)\n"
        "        self.sizes = sizes\n\n"
        "    def define_graph(self):\n"
        "        data = self.input()\n"
        "        x = self.cast(data)\n"
        "        return x[1:3], self.sizes[0] + x[0]\n"
    )
    text, result = migrate_text(source)
    assert "x.slice[1:3].evaluate(), (sizes[0] + x.slice[0]).evaluate()" in text, text
    assert migrate_text(text)[0] == text


def test_check_reports_and_safe_fix_leaves_it():
    source = HEAD + DEC + "def p(root):\n" + READ + "    return data[0:2]\n"
    result = transform(source, "x.py", Policy.check(fix=True))
    found = [d for d in result.diagnostics if d.code == "NDD108"]
    assert found and not found[0].fixed


def test_augmented_assignment_keeps_a_datanode():
    text, _ = _migrate(READ + "    x = fn.cast(data, dtype=7)\n    x += 1\n    x *= data\n    return x[0:2]\n")
    assert "yield x.slice[0:2].evaluate()," in text


def test_subscripts_in_decorator_and_defaults_are_not_graph_code():
    extra = "from mylib import cfg\n\n\n"
    source = (
        HEAD
        + extra
        + "@pipeline_def(batch_size=cfg.sizes()[0])\ndef p(root, lo=cfg.lows()[1]):\n"
        + READ
        + "    return data[lo:3]\n"
    )
    text, result = migrate_text(source)
    assert "cfg.sizes()[0]" in text and "lo=cfg.lows()[1]" in text and "data.slice[lo:3]" in text
    assert not [d for d in result.diagnostics if d.code == "NDD108" and not d.fixed]


def test_legacy_outputs_stored_on_self_are_datanodes():
    source = (
        "from nvidia.dali import ops\nfrom nvidia.dali.pipeline import Pipeline\n\n\n"
        "class P(Pipeline):\n"
        "    def __init__(self, batch_size, num_threads, device_id, root):\n"
        "        super().__init__(batch_size, num_threads, device_id)\n"
        "        self.input = ops.readers.File(file_root=root)\n"
        "        self.decode = ops.decoders.Image(device='cpu')\n\n"
        "    def define_graph(self):\n"
        "        self.jpegs, self.labels = self.input()\n"
        "        images = self.decode(self.jpegs)\n"
        "        return images[0:2], self.labels[0]\n"
    )
    text, result = migrate_text(source)
    assert "images.slice[0:2].evaluate(), labels.slice[0].evaluate()" in text, text


def test_helper_also_called_outside_graph_code_has_unknown_parameters():
    extra = "def first(values):\n    return values[0]\n\n\nLIMIT = first([3, 4])\n\n\n"
    text, result = _migrate(READ + "    return first(data)\n", extra=extra)
    (diag,) = _blocked(text, result, "return values[0]")
    assert "`values[0]`" in diag.message


def test_helper_of_another_module_slices_what_it_knows():
    # no pipeline here: `augment` is called from another module's pipeline
    source = (
        "import nvidia.dali.fn as fn\n\n\n"
        "def augment(images, sizes):\n"
        "    flipped = fn.flip(images)\n"
        "    cb = lambda a: a[0]\n"
        "    return flipped[0:2], images[1], sizes[0]\n"
    )
    text, result = migrate_text(source)
    assert "return flipped.slice[0:2], images[1], sizes[0]" in text and "a[0]" in text
    assert migrate_text(text)[0] == text


def test_input_sets_give_a_list_of_results():
    body = (
        READ
        + "    both = fn.flip([data, data])\n"
        + "    a, b = fn.flip([data, data])\n"
        + "    return both[0][0:1], a[1:2]\n"
    )
    text, result = _migrate(body)
    # one `ndd` call per input, in a list: an item of it is a batch again, sliced inside its samples
    assert "both = [ndd.flip(x) for x in [data, data]]" in text
    assert "yield both[0].slice[0:1].evaluate(), a.slice[1:2].evaluate()" in text


def test_a_one_element_input_set_gives_one_result_not_a_list():
    text, _ = _migrate(READ + "    c = fn.flip([data])\n    return c[0:1]\n")
    assert "c = ndd.flip(data)" in text and "c.slice[0:1]" in text


def test_loops_enumerate_zip_and_list_comprehensions():
    body = (
        "    jpegs, labels = fn.readers.file(file_root=root)\n"
        "    outs = (jpegs, labels)\n"
        "    flipped = [fn.cast(o, dtype=7) for o in outs]\n"
        "    firsts = [o[0] for o in outs]\n"
        "    for i, o in enumerate(outs):\n"
        "        last = o[-1]\n"
        "    for o, s in zip(outs, sizes):\n"
        "        cut = o[0:s[0]]\n"
        "    return flipped[0][1:2], firsts[1], last, cut\n"
    )
    text, result = _migrate(body, "root, sizes")
    assert "flipped[0].slice[1:2]" in text and "[o.slice[0] for o in outs]" in text
    assert "last = o.slice[-1]" in text and "cut = o.slice[0:s[0]]" in text, text


def test_lambda_bound_to_a_name_and_called_is_graph_code():
    body = (
        READ
        + "    head = lambda x: x[0:2]\n    pick = lambda v: v[1]\n    return head(data), fn.cast(data, dtype=pick(sizes))\n"
    )
    text, _ = _migrate(body, "root, sizes")
    assert "head = lambda x: x.slice[0:2]" in text and "pick = lambda v: v[1]" in text


def _without_ndd108(code: str, path: str) -> bool:
    return code != "NDD108"


def test_a_datanode_subscript_kept_by_noqa_keeps_its_pipeline():
    """``x[0]  # noqa: NDD108`` on an op's output: kept as it is, it would index the batch in the
    generator (its first sample), not inside every sample; the pipeline stays as it is."""
    source = (
        HEAD
        + DEC
        + "def p():\n    x = fn.random.uniform(shape=[3])\n    return x[0]  # noqa: NDD108\n\n\npipe = p()\npipe.build()\n(out,) = pipe.run()\n"
    )
    text, result = migrate_text(source)
    kept_with_one_finding(source, text, result.diagnostics, "NDD001")
    assert "line 8, `x[0]` on a DataNode" in result.diagnostics[0].message
    assert migrate_text(source.replace("  # noqa: NDD108", ""))[0].count("x.slice[0]") == 1


def test_a_datanode_subscript_of_a_rule_not_selected_keeps_its_pipeline():
    source = (
        HEAD
        + DEC
        + "def p():\n    x = fn.random.uniform(shape=[3])\n    return x[0]\n\n\npipe = p()\npipe.build()\n(out,) = pipe.run()\n"
    )
    result = transform(source, "example.py", Policy(is_enabled=_without_ndd108))
    assert result.error is None
    kept_with_one_finding(source, result.new_source, result.diagnostics, "NDD001")
    assert transform(source, "example.py", Policy()).changed


def test_a_legacy_class_kept_by_noqa_says_so_at_the_class():
    source = (
        "import nvidia.dali.ops as ops\nfrom nvidia.dali.pipeline import Pipeline\n\n\n"
        "class P(Pipeline):\n    def __init__(self):\n"
        "        super().__init__(batch_size=2, num_threads=1, device_id=None)\n"
        "        self.u = ops.random.Uniform(shape=[3])\n\n"
        "    def define_graph(self):\n        x = self.u()\n        return x[0]  # noqa: NDD108\n\n\n"
        "pipe = P()\npipe.build()\n(out,) = pipe.run()\n"
    )
    text, result = migrate_text(source)
    kept_with_one_finding(source, text, result.diagnostics, "NDD401")
    assert result.diagnostics[0].line == 5 and "at line 12" in result.diagnostics[0].message
    quiet = source.replace("class P(Pipeline):", "class P(Pipeline):  # noqa: NDD401")
    quiet_text, quiet_result = migrate_text(quiet)
    assert quiet_text == quiet and not quiet_result.diagnostics  # the silence asked for at the class


# -- a helper that takes both kinds and tests which one it has ---------------------------------------

GUARDED = (
    "from nvidia.dali.data_node import DataNode\n\n\n"
    "def crop(x):\n"
    "{prelude}"
    "    if {test}:\n"
    "        return x[1:3]\n"
    "    else:\n"
    "        return x[..., 1:3]\n\n\n"
    "LIMIT = crop([3, 4, 5])\n\n\n"
)


def test_helper_testing_isinstance_datanode_slices_in_that_branch_only():
    text, result = _migrate(
        READ + "    return crop(data)\n", extra=GUARDED.format(prelude="", test="isinstance(x, DataNode)")
    )
    assert (
        "    if isinstance(x, ndd.Batch):\n        return x.slice[1:3]\n    else:\n        return x[..., 1:3]\n" in text
    )
    assert not [d for d in result.diagnostics if d.needs_human]


def test_elif_after_the_isinstance_test_is_python_indexing():
    extra = (
        "from nvidia.dali.data_node import DataNode\n\n\n"
        "def crop(x):\n    if isinstance(x, DataNode):\n        return x[0]\n    elif len(x) > 2:\n        return x[1]\n"
        "    return x\n\n\nLIMIT = crop([3, 4, 5])\n\n\n"
    )
    text, _ = _migrate(READ + "    return crop(data)\n", extra=extra)
    assert "return x.slice[0]\n    elif len(x) > 2:\n        return x[1]\n" in text


def test_helper_whose_parameter_is_rebound_still_blocks():
    extra = GUARDED.format(prelude="    x = x + 1 if isinstance(x, DataNode) else x\n", test="isinstance(x, DataNode)")
    text, result = _migrate(READ + "    return crop(data)\n", extra=extra)
    assert _blocked(text, result, "return x[1:3]")


def test_other_tests_of_the_class_still_block():
    for test in ("isinstance(x, (DataNode, list))", "not isinstance(x, DataNode)", "isinstance(LIMIT, DataNode)"):
        text, result = _migrate(READ + "    return crop(data)\n", extra=GUARDED.format(prelude="", test=test))
        assert _blocked(text, result, "return x[1:3]"), test


_SAMPLE = (
    "import numpy as np\n"
    "from nvidia.dali import backend, fn, pipeline_def\n\n\n"
    "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
    "def p():\n"
    "    return fn.random.uniform(shape=[3])\n\n\n"
    "pipe = p()\n"
    "pipe.build()\n"
    "(out,) = pipe.run()\n"
)


def test_the_methods_of_a_sample_become_the_dynamic_mode_tensors():
    """`out[0].layout()` became `out.tensors[0].layout()`: a `str` (or None) called, `TypeError`."""
    out, result = migrate_text(_SAMPLE + "print(out[0].layout(), out[1].shape(), out[0].as_array())\n")
    assert 'print((out.tensors[0].layout or ""), list(out.tensors[1].shape), np.asarray(out.tensors[0]))\n' in out
    assert not [d for d in result.diagnostics if d.needs_human]


@pytest.mark.parametrize(
    "use",
    [
        "assert isinstance(out[0], backend.TensorCPU)\n",
        "import nvidia.dali as dali\nassert isinstance(out[0], dali.backend_impl.TensorGPU)\n",  # another spelling
        "print(out[0].copy_to_external(None))\n",
    ],
)
def test_what_a_sample_cannot_be_rewritten_for_keeps_the_pipeline(use):
    out, result = migrate_text(_SAMPLE + use)
    assert "@pipeline_def" in out and re.sub(r"(?m)^# TODO\(ndd-migrate\).*\n(#   .*\n)*", "", out).endswith(use)
    assert [d.code for d in result.diagnostics if d.needs_human] == ["NDD008"]


def test_the_outputs_of_a_reader_whose_count_depends_on_its_arguments_are_dataNodes_when_unpacked():
    """`videos, label = fn.readers.video(..., labels=...)`: how many outputs depends on the arguments,
    but each one unpacked is a DataNode, so `label[0]` slices inside every sample."""
    text = (
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=0)\n"
        "def video_pipe(filenames, labels):\n"
        "    videos, label = fn.readers.video(device='gpu', filenames=filenames, labels=labels, sequence_length=4)\n"
        "    return videos, label[0]\n\n\n"
        "pipe = video_pipe(['a.mp4'], [1])\npipe.build()\nprint(pipe.run())\n"
    )
    out, result = migrate_text(text)
    assert not [d for d in result.diagnostics if d.needs_human], [d.message for d in result.diagnostics]
    assert "yield videos.evaluate(), label.slice[0].evaluate()" in out, out


def test_a_name_rebound_many_times_is_answered_within_a_budget(monkeypatch):
    """``img = fn.flip(img)`` twelve times, then ``img[0]`` (what helpers inlined in a row leave):
    followed binding by binding, each binding's kind asks the name's kind again, once per order
    of the bindings (hundreds of thousands of visits for eight, minutes for twelve). Past a budget
    of visits the question is answered by a fixed point instead: the same answer, a DataNode."""
    from ndd_migrate.model.values import graph_code

    visits = []
    binding_kind = graph_code.Graph._binding_kind
    monkeypatch.setattr(
        graph_code.Graph, "_binding_kind", lambda self, *args: visits.append(1) or binding_kind(self, *args)
    )
    body = "    img = fn.flip(img)\n" * 12
    out, _ = migrate_text(
        "from nvidia.dali import fn, pipeline_def\n\n\n@pipeline_def(batch_size=2)\ndef p(root):\n"
        "    img, lbl = fn.readers.file(file_root=root)\n" + body + "    return img[0], lbl\n"
    )
    assert "ndd.flip" in out and "img.slice[0]" in out
    assert len(visits) < 2 * graph_code._BUDGET
