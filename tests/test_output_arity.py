"""Output arity: the migrated generator yields exactly the tuple ``pipe.run()`` returned, whatever
the returned expression is (a reader's outputs bound to one name, a helper's tuple, ...)."""

from __future__ import annotations

import libcst as cst
import pytest

from ndd_migrate.model.values.output_arity import op_outputs
from tests.conftest import HAS_DALI, migrate_text

HEAD = "from nvidia.dali import fn, pipeline_def\n\n\n@pipeline_def(batch_size=2)\n"


def _body(text: str) -> str:
    """The migrated generator's loop, from its `for`/`while` on."""
    return text[text.index("    while True:") :]


# -- a reader's outputs bound to one name ------------------------------------------------------------


def test_two_output_reader_returned_as_a_tuple():
    text, result = migrate_text(
        HEAD + "def pipe(root):\n    output = fn.readers.file(file_root=root)\n    return tuple(output)\n"
    )
    assert _body(text) == (
        "    while True:\n"
        "        for output in reader.next_epoch(batch_size=batch_size):\n"
        "            yield tuple(batch.evaluate() for batch in output)\n"
    )
    assert not [d for d in result.diagnostics if d.needs_human]


def test_reader_list_returned_whole_from_pipeline_def_is_blocked():
    # `@pipeline_def` unpacks a returned tuple only: a list of outputs is one nested output, and
    # DALI fails to build the pipeline.
    source = HEAD + (
        "def pipe(root, ann):\n"
        "    out = fn.readers.coco(file_root=root, annotations_file=ann, ratio=True, skip_empty=True)\n"
        "    return out\n"
    )
    text, result = migrate_text(source)
    human = [d for d in result.diagnostics if d.needs_human]
    assert "@pipeline_def" in text and len(human) == 1 and human[0].line == 7
    assert "`out` is a list of 3 outputs: `@pipeline_def` takes a returned list as ONE output" in human[0].message
    assert "`return tuple(out)`" in human[0].hint


LEGACY = (
    "import nvidia.dali.ops as ops\nfrom nvidia.dali.pipeline import Pipeline\n\n\n"
    "class P(Pipeline):\n"
    "    def __init__(self, batch_size, num_threads, device_id, root):\n"
    "        super().__init__(batch_size, num_threads, device_id)\n"
    "        self.input = {reader}\n"
    "        self.resize = ops.Resize(resize_x=8, resize_y=8, save_attrs=True)\n\n"
    "    def define_graph(self):\n"
    "{graph}"
)


@pytest.mark.parametrize(
    "reader, call, target",
    [
        (
            "ops.readers.COCO(file_root='/d', annotations_file='a.json')",
            "self.input(name='Reader', image_ids=True)",
            "out",
        ),
        ("ops.readers.Webdataset(paths=['a.tar'], ext=['jpg', 'cls'])", "self.input()", "out"),
        ("ops.VideoReader(device='gpu', file_root='/d', sequence_length=2)", "self.input(name='Reader')", "out"),
        ("ops.readers.COCO(file_root=root, annotations_file='a.json', polygon_masks=masks)", "self.input()", "out"),
    ],
)
def test_legacy_define_graph_returns_the_reader_outputs_whole(reader, call, target):
    source = LEGACY.format(reader=reader, graph=f"        out = {call}\n        return out\n")
    text, result = migrate_text(source.replace("root):", "root, masks=False):") if "masks" in reader else source)
    context = ", ctx=ctx" if "device='gpu'" in reader else ""  # only a GPU reader reads in the pipeline's context
    assert (
        f"        for out in reader.next_epoch(batch_size=batch_size{context}):\n            with ctx:\n"
        "                outputs = tuple(batch.evaluate() for batch in out)\n            yield outputs\n"
    ) in text
    assert not [d for d in result.diagnostics if d.needs_human]


def test_legacy_single_output_reader_bound_to_one_name():
    source = LEGACY.format(
        reader="ops.readers.Numpy(file_root='/d')", graph="        out = self.input()\n        return out\n"
    )
    text, _ = migrate_text(source)
    assert (
        "        for (out,) in reader.next_epoch(batch_size=batch_size):\n            with ctx:\n"
        "                outputs = out.evaluate(),\n            yield outputs\n"
    ) in text


def test_legacy_multi_output_op_and_list():
    graph = "        jpegs, labels = self.input()\n        return self.resize(jpegs)\n"
    text, _ = migrate_text(LEGACY.format(reader="ops.readers.File(file_root='/d')", graph=graph))
    assert (
        "                outputs = tuple(batch.evaluate() for batch in ndd.resize(jpegs, resize_x=8, resize_y=8, save_attrs=True))\n"
        "            yield outputs\n"
    ) in text
    graph = "        jpegs, labels = self.input()\n        outs = [jpegs, labels]\n        return outs\n"
    text, _ = migrate_text(LEGACY.format(reader="ops.readers.File(file_root='/d')", graph=graph))
    assert "                outputs = tuple(batch.evaluate() for batch in outs)\n            yield outputs\n" in text


def test_coco_outputs_indexed():
    source = HEAD + (
        "def pipe(root, ann):\n"
        "    out = fn.readers.coco(file_root=root, annotations_file=ann, polygon_masks=True)\n"
        "    images = fn.decoders.image(out[0])\n"
        "    return images, out[1], out[2], out[3], out[4]\n"
    )
    text, _ = migrate_text(source)
    assert "for out in reader.next_epoch(batch_size=batch_size):\n" in text
    assert (
        "yield images.evaluate(), out[1].evaluate(), out[2].evaluate(), out[3].evaluate(), out[4].evaluate()\n" in text
    )


def test_webdataset_ext_list_bound_to_one_name():
    source = (
        HEAD
        + 'def pipe(tars):\n    data = fn.readers.webdataset(paths=tars, ext=["jpg", "cls"])\n    return data[0], data[1]\n'
    )
    text, _ = migrate_text(source)
    assert (
        "for data in reader.next_epoch(batch_size=batch_size):\n            yield data[0].evaluate(), data[1].evaluate()\n"
        in text
    )


def test_single_output_reader_bound_to_one_name_still_gives_a_one_tuple():
    source = HEAD + 'def pipe(tars):\n    data = fn.readers.webdataset(paths=tars, ext="jpg;png")\n    return data\n'
    text, _ = migrate_text(source)
    assert "for (data,) in reader.next_epoch(batch_size=batch_size):\n            yield data.evaluate(),\n" in text
    text, _ = migrate_text(HEAD + "def pipe(root):\n    data = fn.readers.numpy(file_root=root)\n    return data\n")
    assert "for (data,) in reader.next_epoch(batch_size=batch_size):\n            yield data.evaluate(),\n" in text


def test_unknown_reader_arity_returned_whole_is_passed_through():
    source = (
        HEAD
        + "def pipe(root, ann, masks):\n    out = fn.readers.coco(file_root=root, annotations_file=ann, polygon_masks=masks)\n    return out\n"
    )
    text, result = migrate_text(source)
    assert (
        "for out in reader.next_epoch(batch_size=batch_size):\n            yield tuple(batch.evaluate() for batch in out)\n"
        in text
    )
    assert not [d for d in result.diagnostics if d.needs_human]


def test_unknown_reader_arity_used_otherwise_is_blocked_with_the_reason():
    source = HEAD + (
        "def pipe(root, ann, masks):\n"
        "    out = fn.readers.coco(file_root=root, annotations_file=ann, polygon_masks=masks)\n"
        "    return fn.decoders.image(out[0]), out[1]\n"
    )
    text, result = migrate_text(source)
    assert "@pipeline_def" in text
    human = [d for d in result.diagnostics if d.needs_human]
    assert [d.code for d in human] == ["NDD001"] and human[0].line == 6
    assert "`out` holds all the outputs of a reader whose number of outputs is not known" in human[0].message
    assert "images, boxes, labels = ..." in human[0].hint


# -- the returned expression --------------------------------------------------------------------------


def test_list_bound_to_a_name_is_blocked_in_a_pipeline_def():
    source = HEAD + (
        "def pipe(root):\n"
        "    jpegs, labels = fn.readers.file(file_root=root)\n"
        "    outputs = [fn.decoders.image(jpegs), labels]\n"
        "    return outputs\n"
    )
    text, result = migrate_text(source)
    human = [d for d in result.diagnostics if d.needs_human]
    assert "@pipeline_def" in text and "`outputs` is a list of 2 outputs" in human[0].message
    text, _ = migrate_text(source.replace("return outputs", "return tuple(outputs)"))
    assert "            yield tuple(batch.evaluate() for batch in outputs)\n" in text


def test_list_changed_after_it_is_built_blocks():
    source = HEAD + (
        "def pipe(root):\n"
        "    jpegs, labels = fn.readers.file(file_root=root)\n"
        "    outputs = [jpegs]\n"
        "    outputs.append(labels)\n"
        "    return outputs\n"
    )
    text, result = migrate_text(source)
    human = [d for d in result.diagnostics if d.needs_human]
    assert (
        "@pipeline_def" in text
        and human
        and "the number of outputs is not known: the list `outputs` is changed after it is built" in human[0].message
    )


def test_one_output_expressions_give_a_one_tuple():
    source = HEAD + (
        "def pipe(root):\n"
        "    jpegs, labels = fn.readers.file(file_root=root)\n"
        "    images = fn.decoders.image(jpegs)\n"
        "    images = fn.resize(images, size=[8, 8])\n"
        "    return images\n"
    )
    text, _ = migrate_text(source)
    assert "            yield images.evaluate(),\n" in text
    text, _ = migrate_text(
        HEAD + "def pipe(root):\n    jpegs, labels = fn.readers.file(file_root=root)\n    return labels * 2\n"
    )
    assert "            yield (labels * 2).evaluate(),\n" in text


def test_multi_output_op_bound_to_one_name():
    source = HEAD + (
        "def pipe(root):\n"
        "    jpegs, labels = fn.readers.file(file_root=root)\n"
        "    out = fn.resize(fn.decoders.image(jpegs), size=[8, 8], save_attrs=True)\n"
        "    return out[0], out[1], labels\n"
    )
    text, _ = migrate_text(source)
    assert "            yield out[0].evaluate(), out[1].evaluate(), labels.evaluate()\n" in text
    text, result = migrate_text(source.replace("return out[0], out[1], labels", "return out"))
    assert [d.code for d in result.diagnostics if d.needs_human] == ["NDD001"]


# -- helpers returning several outputs ---------------------------------------------------------------


HELPER = (
    "from nvidia.dali import fn, pipeline_def\n\n\n"
    "def decode(jpegs, labels):\n"
    "    images = fn.decoders.image(jpegs)\n"
    "    return fn.resize(images, size=[8, 8]), labels\n\n\n"
)


def test_helper_returning_two_outputs():
    source = (
        HELPER
        + "@pipeline_def(batch_size=2)\ndef pipe(root):\n    jpegs, labels = fn.readers.file(file_root=root)\n    return decode(jpegs, labels)\n"
    )
    text, result = migrate_text(source)
    assert "            yield tuple(batch.evaluate() for batch in decode(jpegs, labels))\n" in text
    assert not [d for d in result.diagnostics if d.needs_human]


def test_helper_result_bound_to_a_name():
    source = HELPER + (
        "@pipeline_def(batch_size=2)\ndef pipe(root):\n"
        "    jpegs, labels = fn.readers.file(file_root=root)\n"
        "    out = decode(jpegs, labels)\n"
        "    return out\n"
    )
    text, _ = migrate_text(source)
    assert "            yield tuple(batch.evaluate() for batch in out)\n" in text


def test_helper_returning_one_output_gives_a_one_tuple():
    source = (
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "def decode(jpegs):\n    return fn.decoders.image(jpegs)\n\n\n"
        "@pipeline_def(batch_size=2)\ndef pipe(root):\n    jpegs, labels = fn.readers.file(file_root=root)\n    return decode(jpegs)\n"
    )
    text, _ = migrate_text(source)
    assert "            yield decode(jpegs).evaluate(),\n" in text


def test_helper_with_returns_of_different_lengths_is_blocked():
    source = (
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "def decode(jpegs, labels, train):\n"
        "    if train:\n        return fn.decoders.image(jpegs), labels\n"
        "    return fn.decoders.image(jpegs)\n\n\n"
        "@pipeline_def(batch_size=2)\ndef pipe(root):\n    jpegs, labels = fn.readers.file(file_root=root)\n    return decode(jpegs, labels, True)\n"
    )
    text, result = migrate_text(source)
    human = [d for d in result.diagnostics if d.needs_human]
    assert "@pipeline_def" in text and len(human) == 1
    assert human[0].message.endswith(
        "the number of outputs is not known: the returns of `decode` do not all give the same outputs"
    )
    assert "return images, labels" in human[0].hint


def test_function_of_another_module_is_blocked_with_what_to_write():
    source = (
        "from nvidia.dali import fn, pipeline_def\nfrom aug import decode\n\n\n"
        "@pipeline_def(batch_size=2)\ndef pipe(root):\n    jpegs, labels = fn.readers.file(file_root=root)\n    return decode(jpegs, labels)\n"
    )
    text, result = migrate_text(source)
    human = [d for d in result.diagnostics if d.needs_human]
    assert "@pipeline_def" in text and len(human) == 1 and human[0].line == 8
    assert "`decode` is not a function defined once in this module" in human[0].message


def test_helper_creating_a_reader_is_blocked():
    source = (
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "def load(root):\n    jpegs, labels = fn.readers.file(file_root=root)\n    return fn.decoders.image(jpegs), labels\n\n\n"
        "@pipeline_def(batch_size=2)\ndef pipe(root):\n    return load(root)\n"
    )
    text, result = migrate_text(source)
    human = [d for d in result.diagnostics if d.needs_human]
    assert "@pipeline_def" in text and "fn.readers.file" in text
    assert human and "`load` creates a reader" in human[0].message


def test_import_aliases():
    source = (
        "import nvidia.dali.fn as dfn\nfrom nvidia.dali import pipeline_def as pdef\n\n\n"
        "@pdef(batch_size=2)\ndef pipe(root, ann):\n"
        "    out = dfn.readers.coco(file_root=root, annotations_file=ann, image_ids=True)\n"
        "    return tuple(out)\n"
    )
    text, _ = migrate_text(source)
    assert (
        "for out in reader.next_epoch(batch_size=batch_size):\n            yield tuple(batch.evaluate() for batch in out)\n"
        in text
    )


def test_second_migration_changes_nothing():
    source = (
        HELPER
        + "@pipeline_def(batch_size=2)\ndef pipe(root):\n    jpegs, labels = fn.readers.file(file_root=root)\n    return decode(jpegs, labels)\n"
    )
    text, _ = migrate_text(source)
    assert migrate_text(text)[0] == text


# -- the counts, against DALI --------------------------------------------------------------------------

COUNTS = [
    ("readers.file", "file_root='/x'", 2),
    ("readers.numpy", "file_root='/x'", 1),
    ("readers.coco", "file_root='/x', annotations_file='a.json', ratio=True, skip_empty=True", 3),
    ("readers.coco", "file_root='/x', annotations_file='a.json', polygon_masks=True", 5),
    ("readers.coco", "file_root='/x', annotations_file='a.json', pixelwise_masks=True", 4),
    ("readers.coco", "file_root='/x', annotations_file='a.json', image_ids=True", 4),
    ("readers.coco", "file_root='/x', annotations_file='a.json', save_img_ids=True", 4),
    (
        "readers.coco",
        "file_root='/x', annotations_file='a.json', image_ids=True, polygon_masks=True, pixelwise_masks=True",
        7,
    ),
    ("coco_reader", "file_root='/x', annotations_file='a.json', masks=True", 5),
    ("readers.webdataset", "paths=['a.tar'], ext=['jpg', 'cls']", 2),
    ("readers.webdataset", "paths=['a.tar'], ext=('jpg', 'cls', 'json')", 3),
    ("readers.webdataset", "paths=['a.tar'], ext='jpg;cls'", 1),
    ("readers.caffe", "path='/x'", 2),
    ("readers.caffe", "path='/x', label_available=False", 1),
    ("readers.caffe2", "path='/x'", 2),
    ("readers.caffe2", "path='/x', label_type=1, bbox=True", 4),
    ("readers.caffe2", "path='/x', label_type=4, additional_inputs=2", 3),
    ("readers.mxnet", "path='a.rec', index_path='a.idx'", 2),
    ("readers.nemo_asr", "manifest_filepaths=['m.json']", 3),
    ("readers.nemo_asr", "manifest_filepaths=['m.json'], read_text=False, read_idxs=True", 3),
    ("readers.video", "device='gpu', filenames=['a.mp4'], sequence_length=2", 1),
    ("readers.video", "device='gpu', filenames=['a.mp4'], labels=[0], sequence_length=2", 2),
    ("readers.video", "device='gpu', file_root='/x', sequence_length=2, enable_frame_num=True", 2),
    (
        "readers.video",
        "device='gpu', filenames=['a.mp4'], sequence_length=2, enable_frame_num=True, enable_timestamps=True",
        3,
    ),
    ("experimental.readers.video", "device='cpu', file_root='/x', sequence_length=2, enable_frame_num=True", 3),
    (
        "readers.video",
        "device='gpu', file_list='l.txt', sequence_length=2, enable_frame_num='sequence', enable_timestamps=True",
        4,
    ),
    ("video_reader", "device='gpu', filenames=['a.mp4'], sequence_length=2, enable_frame_num='none'", 1),
    ("readers.video_resize", "device='gpu', filenames=['a.mp4'], labels=[], sequence_length=2, resize_x=8", 2),
    ("experimental.readers.video", "device='cpu', filenames=['a.mp4'], sequence_length=2, enable_timestamps=True", 2),
    ("experimental.readers.fits", "file_root='/x'", 1),
    ("resize", "x, size=[4], save_attrs=True", 2),
    ("random_bbox_crop", "x, x, output_bbox_indices=True", 5),
    ("segmentation.random_object_bbox", "x, format='box', output_class=True", 2),
    ("experimental.readers.fits", "file_root='/x', hdu_indices=[1, 2]", 2),
]


def _call(path: str, args: str) -> cst.Call:
    return cst.parse_expression(f"fn.{path}({args})")


@pytest.mark.parametrize("path, args, count", COUNTS)
def test_counts(path, args, count):
    assert op_outputs(path, _call(path, args)) == count


def test_count_depends_on_a_name():
    why = op_outputs("readers.coco", _call("readers.coco", "file_root=r, polygon_masks=masks"))
    assert why == "the number of outputs of `fn.readers.coco` depends on `polygon_masks=`, which is not a literal here"
    assert "`*`/`**`" in op_outputs("readers.video", _call("readers.video", "**kw"))


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("path, args, count", COUNTS)
def test_counts_match_dali(path, args, count):
    import warnings

    from nvidia.dali import Pipeline, fn

    op = fn
    for part in path.split("."):
        op = getattr(op, part)
    pipe = Pipeline(batch_size=1, num_threads=1, device_id=None)
    with warnings.catch_warnings(), pipe:  # the graph is only defined, never built
        warnings.simplefilter("ignore")
        out = eval(f"op({args})", {"op": op, "x": fn.random.uniform(shape=[4])})
    assert (len(out) if isinstance(out, list) else 1) == count


def test_tfrecord_dict_bound_to_one_name_is_not_an_unknown_count():
    source = HEAD + (
        "def pipe(path, index, features):\n"
        "    inputs = fn.readers.tfrecord(path=path, index_path=index, features=features)\n"
        "    return fn.decoders.image(inputs['image/encoded']), inputs['image/class/label']\n"
    )
    text, result = migrate_text(source)
    assert "for inputs in reader.next_epoch(batch_size=batch_size):\n" in text
    assert not [d for d in result.diagnostics if d.needs_human]


# -- returns at the end of `if` branches -----------------------------------------------------------


EARLY = HEAD + (
    "def pipe(root, training=True):\n"
    "    jpegs, labels = fn.readers.file(file_root=root)\n"
    "    images = fn.decoders.image(jpegs)\n"
    "    if not training:\n"
    "        return images, labels\n"
    "\n"
    "    images = fn.flip(images, vertical=1)\n"
    "    return images, labels\n"
)


def test_early_return_becomes_yield_and_continue():
    text, result = migrate_text(EARLY)
    assert _body(text) == (
        "    while True:\n"
        "        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
        "            images = ndd.decoders.image(jpegs)\n"
        "            if not training:\n"
        "                yield images.evaluate(), labels.evaluate()\n"
        "                continue\n"
        "\n"
        "            images = ndd.flip(images, vertical=1)\n"
        "            yield images.evaluate(), labels.evaluate()\n"
    )
    assert not [d for d in result.diagnostics if d.needs_human]
    assert migrate_text(text)[0] == text


def test_early_return_with_a_context_keeps_yields_outside_it():
    text, _ = migrate_text(EARLY + "\n\np = pipe('/d', device_id=1)\n")
    assert _body(text).split("\n\n\n")[0] + "\n" == (
        "    while True:\n"
        "        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
        "            with ctx:\n"
        "                images = ndd.decoders.image(jpegs)\n"
        "            if not training:\n"
        "                yield images.evaluate(), labels.evaluate()\n"
        "                continue\n"
        "\n"
        "            with ctx:\n"
        "                images = ndd.flip(images, vertical=1)\n"
        "            yield images.evaluate(), labels.evaluate()\n"
    )


def test_function_ending_with_if_else_returns_everywhere():
    source = HEAD + (
        "def pipe(root, mode):\n"
        "    jpegs, labels = fn.readers.file(file_root=root)\n"
        "    images = fn.decoders.image(jpegs)\n"
        "    if mode == 'small':\n"
        "        return fn.resize(images, size=[8, 8]), labels\n"
        "    elif mode == 'one': return images, labels\n"
        "    else:\n"
        "        if mode == 'twice':\n"
        "            return images, labels * 2\n"
        "        return decode(jpegs)\n"
        "\n\n"
        "def decode(jpegs):\n"
        "    return fn.decoders.image(jpegs), fn.peek_image_shape(jpegs)\n"
    )
    text, result = migrate_text(source)
    assert not [d for d in result.diagnostics if d.needs_human]
    assert _body(text).startswith(
        "    while True:\n"
        "        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
        "            images = ndd.decoders.image(jpegs)\n"
        "            if mode == 'small':\n"
        "                yield ndd.resize(images, size=[8, 8]).evaluate(), labels.evaluate()\n"
        "            elif mode == 'one':\n"
        "                yield images.evaluate(), labels.evaluate()\n"
        "            else:\n"
        "                if mode == 'twice':\n"
        "                    yield images.evaluate(), (labels * 2).evaluate()\n"
        "                    continue\n"
        "                yield tuple(batch.evaluate() for batch in decode(jpegs))\n"
    )


def test_branches_giving_different_numbers_of_outputs():
    # A flag of the pipeline picks the branch once per pipeline object: each yields what it returned.
    source = HEAD + (
        "def pipe(root, with_labels):\n"
        "    jpegs, labels = fn.readers.file(file_root=root)\n"
        "    if with_labels:\n"
        "        return jpegs, labels\n"
        "    else:\n"
        "        return jpegs,\n"
    )
    text, result = migrate_text(source)
    assert not [d for d in result.diagnostics if d.needs_human]
    assert (
        "            if with_labels:\n                yield jpegs.evaluate(), labels.evaluate()\n            else:\n                yield jpegs.evaluate(),\n"
        in text
    )


def test_early_return_of_one_output():
    source = HEAD + (
        "def pipe(root, big):\n"
        "    jpegs, labels = fn.readers.file(file_root=root)\n"
        "    images = fn.decoders.image(jpegs)\n"
        "    if big:\n"
        "        return fn.resize(images, size=[64, 64])\n"
        "    return images\n"
    )
    text, _ = migrate_text(source)
    assert "                yield ndd.resize(images, size=[64, 64]).evaluate(),\n                continue\n" in text
    assert text.endswith("            yield images.evaluate(),\n")


@pytest.mark.parametrize(
    "body, why",
    [
        (
            "    jpegs, labels = fn.readers.file(file_root=root)\n    if flag:\n        return jpegs, labels\n    return decode(jpegs)\n",
            "the number of outputs is not known: `decode` is not a function defined once in this module",
        ),
        (
            "    jpegs, labels = fn.readers.file(file_root=root)\n    for i in range(2):\n        if flag:\n            return jpegs, labels\n    return jpegs, labels\n",
            "a `return` inside a `for` loop",
        ),
        (
            "    if flag:\n        return fn.random.uniform(shape=[1]),\n    jpegs, labels = fn.readers.file(file_root=root)\n    return jpegs, labels\n",
            "a `return` before the reader",
        ),
        (
            "    jpegs, labels = fn.readers.file(file_root=root)\n    if flag:\n        return jpegs, labels\n        x = 1\n    return jpegs, labels\n",
            "a `return` followed by more statements in its block",
        ),
        (
            "    jpegs, labels = fn.readers.file(file_root=root)\n    if flag:\n        return jpegs, labels\n",
            "the function does not end with `return <outputs>`",
        ),
    ],
)
def test_returns_that_stay_blocked(body, why):
    text, result = migrate_text(HEAD + "def pipe(root, flag):\n" + body)
    human = [d for d in result.diagnostics if d.needs_human]
    assert "@pipeline_def" in text and human, text
    assert any(why in d.message for d in human), [d.message for d in human]


def test_unknown_reader_count_returned_whole_from_every_branch():
    source = HEAD + (
        "def pipe(root, ann, masks, flag):\n"
        "    out = fn.readers.coco(file_root=root, annotations_file=ann, polygon_masks=masks)\n"
        "    if flag:\n"
        "        return out\n"
        "    return {last}\n"
    )
    text, result = migrate_text(source.format(last="out"))
    assert (
        "                yield tuple(batch.evaluate() for batch in out)\n                continue\n"
        "            yield tuple(batch.evaluate() for batch in out)\n"
    ) in text
    text, result = migrate_text(source.format(last="out[0], out[1]"))
    assert "@pipeline_def" in text and any("`out` holds all the outputs" in d.message for d in result.diagnostics)


def test_helper_parameters_are_read_as_the_call_arguments():
    source = (
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "def maybe_flip(images, labels, flip):\n"
        "    if flip:\n        return fn.flip(images), labels\n"
        "    else:\n        return images, labels\n\n\n"
        "def identity(x):\n    return x\n\n\n"
        "@pipeline_def(batch_size=2)\ndef pipe(root, flip):\n"
        "    jpegs, labels = fn.readers.file(file_root=root)\n"
        "    images = identity(fn.decoders.image(jpegs))\n"
        "    images = identity(images)\n"
        "    return maybe_flip(images, labels=labels, flip=flip)\n"
    )
    text, result = migrate_text(source)
    assert not [d for d in result.diagnostics if d.needs_human]
    assert (
        "            yield tuple(batch.evaluate() for batch in maybe_flip(images, labels=labels, flip=flip))\n" in text
    )
    text, result = migrate_text(
        source.replace("return maybe_flip(images, labels=labels, flip=flip)", "return identity(images)")
    )
    assert "            yield identity(images).evaluate(),\n" in text


def test_helper_calling_ops_reads_its_own_call_arguments():
    # The helper's own calls must not be taken for the call being read.
    source = (
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "def pair(images, labels):\n"
        "    images = fn.resize(images, size=[4, 4])\n"
        "    return images, labels\n\n\n"
        "def pick(x):\n"
        "    y = fn.cast(x, dtype=1)\n"
        "    return x\n\n\n"
        "@pipeline_def(batch_size=2)\ndef pipe(root):\n"
        "    jpegs, labels = fn.readers.file(file_root=root)\n"
        "    return pick(pair(fn.decoders.image(jpegs), labels))\n"
    )
    text, result = migrate_text(source)
    assert (
        "            yield tuple(batch.evaluate() for batch in pick(pair(ndd.decoders.image(jpegs), labels)))\n" in text
    )
    assert not [d for d in result.diagnostics if d.needs_human]


def test_legacy_define_graph_returning_in_branches():
    source = (
        "import nvidia.dali.ops as ops\nfrom nvidia.dali.pipeline import Pipeline\n\n\n"
        "class P(Pipeline):\n"
        "    def __init__(self, batch_size, num_threads, device_id, root, training):\n"
        "        super().__init__(batch_size, num_threads, device_id)\n"
        "        self.training = training\n"
        "        self.input = ops.readers.File(file_root=root)\n"
        "        self.decode = ops.decoders.Image(device='cpu')\n"
        "        self.flip = ops.Flip()\n\n"
        "    def define_graph(self):\n"
        "        jpegs, labels = self.input(name='Reader')\n"
        "        images = self.decode(jpegs)\n"
        "        if not self.training:\n"
        "            return images, labels\n"
        "        return [self.flip(images), labels]\n"
    )
    text, result = migrate_text(source)
    assert not [d for d in result.diagnostics if d.needs_human]
    assert text.endswith(
        "        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
        "            with ctx:\n"
        "                images = ndd.decoders.image(jpegs, device='cpu')\n"
        "            if not training:\n"
        "                with ctx:\n"
        "                    outputs = images.evaluate(), labels.evaluate()\n"
        "                yield outputs\n"
        "                continue\n"
        "            with ctx:\n"
        "                outputs = ndd.flip(images).evaluate(), labels.evaluate()\n"
        "            yield outputs\n"
    )
    blocked = source.replace(
        "        jpegs, labels = self.input(name='Reader')\n",
        "        for i in range(2):\n            if i:\n                return self.input()\n        jpegs, labels = self.input(name='Reader')\n",
    )
    text, result = migrate_text(blocked)
    assert any("a `return` inside a `for` loop" in d.message for d in result.diagnostics if d.needs_human)


# -- finished batches: what is evaluated -------------------------------------------------------------


@pytest.mark.parametrize("constant", ["2", "-1", "[1, 2]", "'a'"])
def test_python_constant_among_the_returned_outputs_is_blocked(constant):
    # The pipeline made it a batch of constants (`Pipeline._build_graph`); `(2).evaluate()` would fail.
    text, result = migrate_text(
        HEAD + f"def pipe(root):\n    jpegs, labels = fn.readers.file(file_root=root)\n    return jpegs, {constant}\n"
    )
    human = [d for d in result.diagnostics if d.needs_human]
    assert "@pipeline_def" in text and ".evaluate()" not in text and [d.code for d in human] == ["NDD001"]
    assert f"`{constant}` is a Python constant returned as an output" in human[0].message
    legacy = LEGACY.format(
        reader="ops.readers.File(file_root='/d')",
        graph=f"        jpegs, labels = self.input()\n        return jpegs, {constant}\n",
    )
    text, result = migrate_text(legacy)
    assert "class P(Pipeline)" in text and [d.code for d in result.diagnostics if d.needs_human] == ["NDD401"]


def test_starred_outputs_are_each_evaluated():
    source = (
        HEAD
        + "def pipe(root, extra):\n    jpegs, labels = fn.readers.file(file_root=root)\n    rest = [labels]\n    return jpegs, *rest\n"
    )
    text, _ = migrate_text(source)
    assert "            yield jpegs.evaluate(), *(batch.evaluate() for batch in rest)\n" in text


def test_subscript_of_a_multi_output_op_bound_to_one_name_picks_an_output():
    # `fn.resize(..., save_attrs=True)` gives 2 outputs (a list): `out[0]` is Python indexing (NDD108
    # leaves it), one output (ndd_migrate.model.values.outputs).
    source = HEAD + (
        "def pipe(root):\n"
        "    jpegs, labels = fn.readers.file(file_root=root)\n"
        "    out = fn.resize(fn.decoders.image(jpegs), size=[8, 8], save_attrs=True)\n"
        "    return out[0], out[1]\n"
    )
    text, result = migrate_text(source)
    assert "            yield out[0].evaluate(), out[1].evaluate()\n" in text and ".slice" not in text
    assert not [d for d in result.diagnostics if d.needs_human]


def test_subscript_of_a_value_of_unknown_kind_is_reported_by_ndd108_only():
    source = (
        "from nvidia.dali import fn, pipeline_def\nfrom mylib import pick\n\n\n@pipeline_def(batch_size=2)\n"
        "def p():\n    x = pick(fn.random.uniform(shape=[4]))\n    return x[0]\n"
    )
    _, result = migrate_text(source)
    assert [d.code for d in result.diagnostics if d.needs_human] == ["NDD108"]
