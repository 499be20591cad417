"""``verify --synthetic``: the readers' data generated from their own arguments, no ``--args``.

The first tests read what :func:`ndd_migrate.verify.synthetic.prepare` writes (real files, read
back with numpy, json, tarfile and the TFRecord framing); the ``dali`` tests run real verify on
every fixture that has a reader, on the reader kinds the fixtures lack, and on a planted bug.
"""

from __future__ import annotations

import io
import json
import shutil
import struct
import subprocess
import sys
import tarfile
import textwrap
from pathlib import Path

import numpy as np
import pytest

from ndd_migrate.verify.errors import SetupError
from ndd_migrate.verify.synthetic import prepare
from tests.conftest import FIXTURES, ROOT

CASES = ROOT / "tests" / "verify_synthetic"


def _prepare(tmp_path: Path, source: str, function: str = "pipe", given=()):
    kwargs, generated, notes = prepare(textwrap.dedent(source), function, str(tmp_path / "gen"), given)
    assert notes == []
    return kwargs, generated


def test_a_folder_parameter_gets_class_folders_of_jpegs(tmp_path):
    kwargs, generated = _prepare(
        tmp_path,
        """
        @pipeline_def
        def pipe(data_dir, crop=32):
            jpegs, labels = fn.readers.file(file_root=data_dir, random_shuffle=True)
            return fn.decoders.image(jpegs), labels
        """,
    )
    root = Path(kwargs["data_dir"])
    assert set(kwargs) == {"data_dir"}
    assert sorted(p.parent.name for p in root.glob("*/*.jpg")) == ["cat"] * 5 + ["dog"] * 4 + ["fox"] * 4
    assert all(p.read_bytes()[:2] == b"\xff\xd8" for p in root.glob("*/*.jpg"))  # JPEG start of image
    assert [(g.parameter, g.reader, g.argument) for g in generated] == [("data_dir", "readers.file", "file_root")]
    assert "13 × JPEG in 3 class folders" in generated[0].describe()


def test_audio_decoding_makes_the_files_wavs_and_a_file_list_lists_them(tmp_path):
    kwargs, generated = _prepare(
        tmp_path,
        """
        def pipe(root, listing):
            encoded, labels = fn.readers.file(file_root=root, file_list=listing)
            audio, rate = fn.decoders.audio(encoded)
            return audio, labels
        """,
    )
    lines = Path(kwargs["listing"]).read_text().splitlines()
    assert len(lines) == 13 and lines[0] == "cat/cat_0.wav 0" and lines[-1] == "fox/fox_3.wav 2"
    import wave

    with wave.open(str(Path(kwargs["root"]) / "cat" / "cat_0.wav")) as w:
        assert (w.getframerate(), w.getnchannels(), w.getsampwidth()) == (16000, 1, 2)
    assert {g.argument for g in generated} == {"file_list", "file_root"}


def test_expressions_locals_and_module_names_are_evaluated_with_the_generated_folder(tmp_path):
    kwargs, generated = _prepare(
        tmp_path,
        """
        import os
        FEATURES = {"image/encoded": tfrec.FixedLenFeature((), tfrec.string, ""),
                    "label": tfrec.FixedLenFeature([2], tfrec.int64, -1)}
        SPLIT = "train"

        def pipe(root):
            index = os.path.join(root, f"{SPLIT}.idx")
            inputs = fn.readers.tfrecord(path=root + "/" + SPLIT + ".tfrecord", index_path=index, features=FEATURES)
            return inputs["image/encoded"], inputs["label"]
        """,
    )
    root = Path(kwargs["root"])
    data, index = (root / "train.tfrecord").read_bytes(), (root / "train.idx").read_text().split("\n")[:-1]
    assert len(index) == 10
    from ndd_migrate.verify.datagen import masked_crc32c

    for line in index:
        offset, size = map(int, line.split())
        record = data[offset : offset + size]
        (length,) = struct.unpack("<Q", record[:8])
        assert size == length + 16 and struct.unpack("<I", record[12 + length :])[0] == masked_crc32c(
            record[12 : 12 + length]
        )
        assert b"image/encoded" in record and b"\xff\xd8" in record
    assert offset + size == len(data)
    assert {g.argument for g in generated} == {"path", "index_path"}


def test_webdataset_tar_has_one_member_per_extension_and_the_index_points_at_their_data(tmp_path):
    kwargs, _ = _prepare(
        tmp_path,
        """
        def pipe(shards, index):
            return fn.readers.webdataset(paths=shards, index_paths=index, ext=["jpg;jpeg", "cls", "npy"])
        """,
    )
    tar_bytes = Path(kwargs["shards"]).read_bytes()
    with tarfile.open(kwargs["shards"]) as tar:
        names = tar.getnames()
    assert len(names) == 30 and names[:3] == ["sample000000.jpg", "sample000000.cls", "sample000000.npy"]
    header, *samples = Path(kwargs["index"]).read_text().splitlines()
    assert header == "v1.2 10"
    ext, offset, size, name = samples[0].split()[8:12]
    assert (ext, name) == ("npy", "sample000000.npy")
    assert np.load(io.BytesIO(tar_bytes[int(offset) : int(offset) + int(size)])).dtype == np.float32


def test_numpy_files_and_filters_and_legacy_reader_classes(tmp_path):
    kwargs, generated = _prepare(
        tmp_path,
        """
        class Pipe(Pipeline):
            def __init__(self, batch_size, num_threads, device_id, files, root):
                super().__init__(batch_size, num_threads, device_id)
                self.root = root
                self.listed = ops.NumpyReader(files=files)
                self.folder = ops.readers.Numpy(file_root=self.root, file_filter="*_x.npy")
        """,
        "Pipe",
    )
    assert len(kwargs["files"]) == 7 and all(np.load(f).dtype == np.float32 for f in kwargs["files"])
    assert sorted(p.name for p in Path(kwargs["root"]).iterdir())[:2] == ["sample_00_x.npy", "sample_01_x.npy"]
    assert [g.parameter for g in generated] == ["files", "root"]


def test_coco_annotations_match_the_images(tmp_path):
    kwargs, _ = _prepare(
        tmp_path,
        """
        def pipe(images, annotations):
            return fn.readers.coco(file_root=images, annotations_file=annotations, polygon_masks=True)
        """,
    )
    doc = json.loads(Path(kwargs["annotations"]).read_text())
    assert len(doc["images"]) == 7 and {a["image_id"] for a in doc["annotations"]} == set(range(1, 8))
    assert all((Path(kwargs["images"]) / i["file_name"]).is_file() for i in doc["images"])
    assert all(len(a["segmentation"][0]) == 6 for a in doc["annotations"])


def test_the_data_is_the_same_bytes_every_time(tmp_path):
    source = """
        def pipe(data_dir):
            return fn.readers.file(file_root=data_dir)
        """
    first, _, _ = prepare(textwrap.dedent(source), "pipe", str(tmp_path / "a"))
    second, _, _ = prepare(textwrap.dedent(source), "pipe", str(tmp_path / "b"))
    files = sorted(p.relative_to(first["data_dir"]) for p in Path(first["data_dir"]).rglob("*.jpg"))
    assert files and all(
        (Path(first["data_dir"]) / f).read_bytes() == (Path(second["data_dir"]) / f).read_bytes() for f in files
    )


@pytest.mark.parametrize(
    ("argument", "reason"),
    [
        ('"/data/imagenet/train"', "which no parameter or module-level name gives"),
        ("args.data_dir", "which no parameter or module-level name gives"),
        ("os.path.join(data_dir, sub())", "cannot evaluate file_root=os.path.join(data_dir, sub())"),
    ],
)
def test_a_path_that_cannot_be_redirected_stops_the_check_naming_it(tmp_path, argument, reason):
    source = f"""
        def pipe(data_dir):
            return fn.readers.file(file_root={argument})
        """
    with pytest.raises(SetupError, match="--synthetic: readers.file \\(line 3\\)") as e:
        _prepare(tmp_path, source)
    assert reason in str(e.value)


def test_a_reader_whose_paths_the_user_gives_reads_the_users_data(tmp_path):
    kwargs, generated = _prepare(
        tmp_path,
        """
        def pipe(data_dir, ann):
            a = fn.readers.file(file_root=data_dir)
            b = fn.readers.numpy(file_root=ann)
            return a, b
        """,
        given={"data_dir"},
    )
    assert set(kwargs) == {"ann"} and [g.reader for g in generated] == ["readers.numpy"]


def test_a_parameter_given_positionally_is_the_users(tmp_path):
    source = textwrap.dedent(
        """
        class Pipe(Pipeline):
            def __init__(self, data_dir, labels_dir):
                self.a = ops.FileReader(file_root=data_dir)
                self.b = ops.readers.Numpy(file_root=labels_dir)
        """
    )
    kwargs, generated, _ = prepare(source, "Pipe", str(tmp_path), positional=1)
    assert set(kwargs) == {"labels_dir"} and [g.parameter for g in generated] == ["labels_dir"]


def test_a_reader_kind_without_a_generator_is_named(tmp_path):
    with pytest.raises(SetupError, match="cannot generate data for readers.caffe"):
        _prepare(tmp_path, "def pipe(p):\n    return fn.readers.caffe(path=p)\n")
    with pytest.raises(SetupError, match="cannot generate data for readers.video"):
        _prepare(tmp_path, "def pipe(p):\n    return fn.readers.video(filenames=p, sequence_length=2)\n")


def test_an_external_source_parameter_gets_arrays_of_its_dtype_and_layout(tmp_path):
    import pickle
    from types import SimpleNamespace

    kwargs, generated = _prepare(
        tmp_path,
        """
        @pipeline_def(batch_size=3)
        def pipe(frames, pairs):
            images = fn.external_source(source=frames, batch=False, dtype=types.UINT8, layout="HWC")
            a, b = fn.external_source(source=pairs, num_outputs=2, dtype=[types.FLOAT16, types.INT64], ndim=[2, 1])
            return images, a, b
        """,
    )
    frames, pairs = kwargs["frames"], pickle.loads(pickle.dumps(kwargs["pairs"]))  # as a worker gets them
    drawn = [next(it) for it in [iter(frames)] for _ in range(5)]
    assert all(x.dtype == np.uint8 and x.ndim == 3 and x.shape[2] == 3 for x in drawn)
    assert all(
        np.array_equal(frames(SimpleNamespace(idx_in_epoch=i, iteration=i // 3)), drawn[i]) for i in (4, 0, 2)
    )  # any order
    a, b = pairs(1)
    assert len(a) == len(b) == 3 and a[0].dtype == np.float16 and a[0].ndim == 2 and b[0].dtype == np.int64
    assert np.array_equal(next(x for i, x in enumerate(pairs) if i == 1)[0][2], a[2])
    assert [g.describe() for g in generated] == [
        "frames: samples of uint8 HWC arrays (numpy, seeded per sample) (external_source source=, line 4)",
        "pairs: batches of 3 of float16 2-D, int64 1-D arrays (numpy, seeded per sample) (external_source source=, line 5)",
    ]


def test_an_external_source_of_user_code_is_not_generated_and_the_report_says_why(tmp_path):
    source = (FIXTURES / "external_source" / "pipeline.py").read_text()
    kwargs, generated, notes = prepare(source, "npy_stream", str(tmp_path))
    assert (kwargs, generated) == ({}, [])
    assert notes == [
        "--synthetic: external_source (line 32): its source NpyFiles(data_dir) is code of its own: it reads its "
        "data itself, nothing generated for it (give its arguments with --args)"
    ]


def test_pathlib_and_string_calls_are_evaluated_too(tmp_path):
    kwargs, generated = _prepare(
        tmp_path,
        """
        from pathlib import Path

        def pipe(root):
            return fn.readers.numpy(file_root=str(Path(root) / "train"), file_filter="*.npy")
        """,
    )
    assert len(list((Path(kwargs["root"]) / "train").glob("*.npy"))) == 11
    assert generated[0].path == str(Path(kwargs["root"]) / "train")


#: The arguments the generators read or write, by reader; the installed DALI's schemas must have them.
SCHEMA_ARGUMENTS = {
    "readers__File": ["file_root", "file_list", "files", "file_filters"],
    "readers__Numpy": ["file_root", "file_list", "files", "file_filter"],
    "readers__COCO": ["file_root", "annotations_file", "polygon_masks"],
    "readers__TFRecord": ["path", "index_path", "features"],
    "readers__Webdataset": ["paths", "index_paths", "ext", "dtypes"],
    "ExternalSource": ["source", "batch", "num_outputs", "dtype", "layout", "ndim"],
}


@pytest.mark.dali
def test_the_arguments_read_are_those_of_the_installed_dali():
    import inspect

    from nvidia.dali import backend
    from nvidia.dali.fn import external_source

    from ndd_migrate.verify.synthetic import PATH_ARGS

    assert set(PATH_ARGS) <= {a for names in SCHEMA_ARGUMENTS.values() for a in names}
    for schema, arguments in SCHEMA_ARGUMENTS.items():
        if schema == "ExternalSource":  # a Python operator: its arguments are the function's
            known = set(inspect.signature(external_source).parameters)
        else:
            known = set(backend.GetSchema(schema).GetArgumentNames())
        assert set(arguments) <= known, (schema, set(arguments) - known)


# --------------------------------------------------------------------------------------------------
# Real verify


def _verify(tmp_path, original, migrated, **options):
    from ndd_migrate.verify.command import verify_command

    report = tmp_path / "report.json"
    code = verify_command(
        [str(original), str(migrated)],
        synthetic=True,
        device="cpu",
        output_format="json",
        report_file=str(report),
        **options,
    )
    return code, json.loads(report.read_text(encoding="utf-8"))


READER_FIXTURES = ["audio", "coco_detection", "image_classification", "legacy_classification"]
READER_FIXTURES += ["numpy_features", "pytorch_training", "train_val"]


@pytest.mark.dali
@pytest.mark.parametrize("name", READER_FIXTURES)
def test_every_fixture_with_a_reader_is_equal_on_synthetic_data_without_args(name, tmp_path):
    folder = tmp_path / name
    shutil.copytree(FIXTURES / name, folder)
    shutil.copy(ROOT / "ndd_migrate" / "support" / "template" / "ndd_support.py", folder)
    code, report = _verify(tmp_path, folder / "pipeline.py", folder / "migrated.py", epochs=2)
    assert code == 0, json.dumps(report, indent=1)
    assert all(pair["verdict"] == "equal" and pair["synthetic"] for pair in report["pairs"])


@pytest.mark.dali
def test_tfrecord_webdataset_numpy_lists_and_file_lists_are_equal_on_synthetic_data(tmp_path):
    code, report = _verify(tmp_path, CASES / "formats_pipes.py", CASES / "formats_ndd.py", epochs=2)
    assert code == 0, json.dumps(report, indent=1)
    made = {pair["name"]: sorted(g["argument"] for g in pair["synthetic"]) for pair in report["pairs"]}
    assert made == {
        "tfrecord_pipe": ["index_path", "path"],
        "webdataset_pipe": ["index_paths", "paths"],
        "numpy_files_pipe": ["files"],
        "file_list_pipe": ["file_list"],
        "filtered_numpy_pipe": ["file_root"],
    }


@pytest.mark.dali
def test_a_hand_built_graph_reading_a_module_global_is_equal_on_synthetic_data(tmp_path):
    code, report = _verify(tmp_path, CASES / "handbuilt_pipes.py", CASES / "handbuilt_ndd.py")
    assert code == 0, json.dumps(report, indent=1)
    (pair,) = report["pairs"]
    assert [(g["parameter"], g["argument"], g["line"]) for g in pair["synthetic"]] == [("image_dir", "file_root", 10)]


@pytest.mark.dali
def test_external_sources_fed_by_a_parameter_are_equal_on_synthetic_arrays(tmp_path):
    code, report = _verify(tmp_path, CASES / "feed_pipes.py", CASES / "feed_ndd.py")
    assert code == 0, json.dumps(report, indent=1)
    made = {pair["name"]: [(g["parameter"], g["reader"]) for g in pair["synthetic"]] for pair in report["pairs"]}
    assert made == {name: [("source", "external_source")] for name in ("per_sample", "batched", "shaped")}


@pytest.mark.dali
@pytest.mark.parametrize(
    ("original", "migrated", "pipeline"),
    [
        ("formats_pipes.py", "formats_ndd.py", "webdataset_pipe:webdataset_pipe_bgr"),
        ("feed_pipes.py", "feed_ndd.py", "per_sample:per_sample_skips_one"),
    ],
)
def test_a_planted_bug_is_different_on_synthetic_data(tmp_path, original, migrated, pipeline):
    code, report = _verify(tmp_path, CASES / original, CASES / migrated, pipeline=pipeline)
    assert code == 1, json.dumps(report, indent=1)
    assert report["pairs"][0]["outputs"][0]["samples_equal"] == 0


@pytest.mark.dali
def test_the_command_line_says_which_inputs_it_generated(tmp_path):
    folder = tmp_path / "numpy_features"  # as `migrate` leaves it: beside the support module
    shutil.copytree(FIXTURES / "numpy_features", folder)
    shutil.copy(ROOT / "ndd_migrate" / "support" / "template" / "ndd_support.py", folder)
    proc = subprocess.run(
        [sys.executable, "-m", "ndd_migrate.cli", "verify", "--synthetic", "--device", "cpu", "--iterations", "1"]
        + [str(folder / "pipeline.py"), str(folder / "migrated.py")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "synthetic input: data_dir: 11 × float32 (length, 6) arrays matching '*.npy'" in proc.stdout
