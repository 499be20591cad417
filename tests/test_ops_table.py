"""The operator table: what the rules rely on, and that it matches the installed DALI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ndd_migrate.dali import tables
from ndd_migrate.dali.tables import OpInfo, fn_path_of_legacy_op, math_functions, op_info


def info(path: str) -> OpInfo:
    found = op_info(path)
    assert found is not None, path
    return found


def test_loader_does_not_import_dali():
    code = (
        "import sys; from ndd_migrate.dali.tables import op_info, math_functions; "
        "op_info('resize'); math_functions(); "
        "assert not any(m == 'nvidia.dali' or m.startswith('nvidia.dali.') for m in sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[1])


def test_table_header():
    table = tables.load_table()
    assert table["dali_version"]
    assert tables.load_table() is table  # parsed once


def test_unknown_op():
    assert op_info("no_such_op") is None
    assert op_info("fn.resize") is None  # paths are relative to nvidia.dali.fn


def test_file_reader():
    file = info("readers.file")
    assert file.ndd == "readers.File"
    assert file.reader and not file.random
    assert file.num_outputs == 2
    assert (file.min_inputs, file.max_inputs) == (0, 0)
    assert {"bytes_per_sample_hint", "preserve"} <= file.dropped_args
    assert "name" not in file.dropped_args and "seed" not in file.dropped_args
    assert not file.batch_size_arg
    assert file.defaults["random_shuffle"] is False
    assert file.deprecated_for is None


@pytest.mark.parametrize(
    ("fn_path", "ndd"),
    [
        ("readers.coco", "readers.COCO"),
        ("readers.mxnet", "readers.MXNet"),
        ("readers.tfrecord", "readers.TFRecord"),
        ("readers.numpy", "readers.Numpy"),
        ("readers.caffe", "readers.Caffe"),
        ("readers.caffe2", "readers.Caffe2"),
        ("readers.nemo_asr", "readers.NemoAsr"),
        ("readers.video", "readers.Video"),
        ("readers.video_resize", "readers.VideoResize"),
        ("readers.webdataset", "readers.Webdataset"),
        ("experimental.readers.fits", "experimental.readers.Fits"),
        ("experimental.readers.video", "experimental.readers.Video"),
    ],
)
def test_reader_classes(fn_path, ndd):
    reader = info(fn_path)
    assert reader.ndd == ndd
    assert reader.reader
    assert {"bytes_per_sample_hint", "preserve"} <= reader.dropped_args
    assert not reader.batch_size_arg


def test_reader_without_ndd_form():
    assert info("readers.sequence").ndd is None
    assert info("readers.sequence").reader


@pytest.mark.parametrize(
    ("alias", "current", "ndd"),
    [
        ("coin_flip", "random.coin_flip", "random.coin_flip"),
        ("uniform", "random.uniform", "random.uniform"),
        ("normal_distribution", "random.normal", "random.normal"),
        ("image_decoder", "decoders.image", "decoders.image"),
        ("file_reader", "readers.file", "readers.File"),
        ("tfrecord_reader", "readers.tfrecord", "readers.TFRecord"),
        ("experimental.decoders.image", "decoders.image", "decoders.image"),
    ],
)
def test_deprecated_aliases(alias, current, ndd):
    old = info(alias)
    assert old.deprecated_for == current
    assert old.ndd == ndd == info(current).ndd
    assert info(current).deprecated_for is None


def test_deprecated_reader_alias_is_a_reader():
    file_reader = info("file_reader")
    assert file_reader.reader and file_reader.num_outputs == 2


def test_random_ops():
    uniform = info("random.uniform")
    assert uniform.random and not uniform.reader
    assert uniform.min_inputs == 0
    assert uniform.batch_size_arg
    assert "seed" in uniform.dropped_args
    coin_flip = info("coin_flip")
    assert coin_flip.random and "seed" in coin_flip.dropped_args
    assert info("random_resized_crop").random
    assert info("decoders.image_random_crop").random
    assert not info("resize").random


def test_ops_without_ndd_form():
    for path in ("ssd_random_crop", "python_function", "external_source", "constant"):
        assert info(path).ndd is None, path
        assert not info(path).dropped_args
    # deprecated in favour of random_bbox_crop, but that takes other inputs: no drop-in
    assert info("ssd_random_crop").deprecated_for == "random_bbox_crop"


def test_backends():
    assert info("decoders.image").backends == ("cpu", "mixed")
    assert info("resize").backends == ("cpu", "gpu")
    assert "cpu" not in info("jitter").backends


def test_output_counts():
    assert info("resize").num_outputs is None  # save_attrs adds an output
    assert info("readers.coco").num_outputs is None
    assert info("readers.tfrecord").num_outputs is None  # one per feature
    assert info("python_function").num_outputs is None
    assert info("crop_mirror_normalize").num_outputs == 1


def test_operator_args():
    cmn = info("crop_mirror_normalize")
    assert cmn.renamed_args["output_dtype"] == "dtype"
    assert "image_type" in cmn.removed_args
    assert cmn.enum_defaults["dtype"] == "DALIDataType.FLOAT"
    assert {"bytes_per_sample_hint", "preserve", "name"} <= cmn.dropped_args
    assert cmn.batch_size_arg
    resize = info("resize")
    assert resize.enum_defaults["interp_type"] == "DALIInterpType.INTERP_LINEAR"
    assert resize.defaults["antialias"] is True
    assert "bytes_per_sample_hint" not in resize.defaults  # dropped, not defaulted


def test_changed_default_of_replacement():
    old = info("fast_resize_crop_mirror")
    assert old.ndd == "resize_crop_mirror"
    assert old.changed_defaults == {"antialias": False}
    assert "antialias" not in old.defaults


def test_math_functions():
    functions = math_functions()
    assert isinstance(functions, frozenset)
    assert {"sqrt", "clamp", "atan2", "pow", "fpow", "abs", "min", "max"} <= functions


def test_legacy_ops():
    assert fn_path_of_legacy_op("Resize") == "resize"
    assert fn_path_of_legacy_op("readers.File") == "readers.file"
    assert fn_path_of_legacy_op("MXNetReader") == "mxnet_reader"
    assert fn_path_of_legacy_op("TFRecordReader") == "tfrecord_reader"
    assert fn_path_of_legacy_op("ExternalSource") == "external_source"
    assert fn_path_of_legacy_op("NoSuchOp") is None


def test_op_info_is_hashable():
    assert len({info("resize"), info("resize")}) == 1


@pytest.mark.dali
def test_table_matches_installed_dali():
    pytest.importorskip("nvidia.dali", reason="nvidia.dali is not installed: cannot regenerate ops.json")
    from ndd_migrate.dali.tables import generate_ops

    committed = generate_ops.OPS_JSON.read_text(encoding="utf-8")
    assert generate_ops.render(generate_ops.build_table()) == committed, (
        "ops.json is stale: run `python -m ndd_migrate.dali.tables.generate_ops`"
    )


def test_seed_is_dropped_where_nothing_draws():
    """Every pipeline-mode operator takes `seed`; in ndd a reader does, a random operator draws from
    `rng=` instead (NDD105), and the others reject it: dropped."""
    assert "seed" in op_info("reshape").dropped_args and "seed" in op_info("crop_mirror_normalize").dropped_args
    assert "seed" not in op_info("readers.file").dropped_args
    assert "seed" in op_info("random.coin_flip").dropped_args and op_info("random.coin_flip").random
