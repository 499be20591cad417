"""verify's errors, as users met them on programs written as users write them: one line naming the
side, the pipeline and the cause, never a traceback of ndd-migrate; a parameter nobody gives asked
for by name (not taken from a reader's schema default); a pipeline `migrate` left named as such
(not "look swapped"); one result per pipeline of a file, the others still run.

Real DALI on the CPU where a side runs; the checks that stop before any worker start none.
"""

from __future__ import annotations

import os
import sys

import pytest

from tests.conftest import HAS_DALI, migrate_text
from tests.harness import with_support_module

pytestmark = [
    pytest.mark.dali,
    pytest.mark.skipif(not HAS_DALI, reason="nvidia-dali-cuda120 is not installed (pip install '.[verify]')"),
]

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:  # `from verify_cases import ...` whatever pytest's import mode
    sys.path.insert(0, HERE)

# Two pipelines in one file: `pair_pipe` has two readers, which `migrate` leaves with an NDD001
# TODO; `one_pipe` converts, and takes no `b_dir`, which the shared arguments give for the other.
TWO_PIPELINES = """\
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=2, num_threads=1, device_id=0, seed=4)
def pair_pipe(a_dir, b_dir):
    a = fn.readers.numpy(file_root=a_dir, random_shuffle=True, name="A")
    b = fn.readers.numpy(file_root=b_dir, random_shuffle=True, name="B")
    return a, b


@pipeline_def(batch_size=2, num_threads=1, device_id=0, seed=4)
def one_pipe(a_dir):
    a = fn.readers.numpy(file_root=a_dir, random_shuffle=True, name="A")
    return fn.cast(a, dtype=types.FLOAT)
"""


@pytest.fixture(scope="module")
def npy_dir(tmp_path_factory):
    from verify_cases.datasets import write_numpy_files

    return write_numpy_files(str(tmp_path_factory.mktemp("npy")))


def _migrated(tmp_path, source: str, name: str = "loader"):
    original = tmp_path / f"{name}.py"
    original.write_text(source, encoding="utf-8")
    text = migrate_text(source, str(original))[0]
    migrated = tmp_path / f"{name}_ndd.py"
    migrated.write_text(text, encoding="utf-8")
    with_support_module(tmp_path, text)
    return str(original), str(migrated), text


def test_a_pipeline_migrate_left_is_named_with_its_todo_and_the_others_still_run(tmp_path, npy_dir):
    """Before: a KeyError traceback from verify's own code without arguments ("Schema for operator
    'readers__numpy' not registered"), "ORIGINAL and MIGRATED look swapped" with them, and
    `one_pipe() got an unexpected keyword argument 'b_dir'` for the other pipeline."""
    from ndd_migrate.verify import verify_files

    original, migrated, text = _migrated(tmp_path, TWO_PIPELINES)
    assert "TODO(ndd-migrate): NDD001" in text and "def one_pipe(a_dir, *," in text, text
    report = verify_files(original, migrated, args={"a_dir": npy_dir, "b_dir": npy_dir}, device="cpu", iterations=2)
    assert report.exit_code == 2
    left, converted = report.pairs
    assert left.name == "pair_pipe" and left.error.kind == "not-migrated" and left.error.side == "migrated"
    assert f"`pair_pipe` is still pipeline-mode code at {migrated}:" in left.error.message
    assert "`migrate` did not convert it: NDD001 not migrated: more than one reader" in left.error.message
    assert "swapped" not in left.error.message
    assert converted.name == "one_pipe" and converted.verdict == "equal", report.to_text()
    assert "original `one_pipe` takes no `b_dir`; not passed" in converted.notes
    text = report.to_text()
    assert "Traceback" not in text and "KeyError" not in text, text


def test_a_required_parameter_nobody_gives_is_asked_for_not_taken_from_the_schema(tmp_path):
    """`annotations_file` went to the reader's schema default, '', and DALI failed on it; now the
    check names the parameter and the --args that gives it, and runs nothing."""
    from ndd_migrate.verify import verify_files

    source = (
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=0, seed=3)\n"
        "def coco_pipe(file_root, annotations_file):\n"
        "    jpegs, boxes, labels = fn.readers.coco(file_root=file_root, annotations_file=annotations_file)\n"
        "    return jpegs, boxes, labels\n"
    )
    original, migrated, text = _migrated(tmp_path, source)
    assert "ndd.readers.COCO(" in text, text
    report = verify_files(original, migrated, kwargs={"file_root": str(tmp_path), "annotation_file": "a.json"})
    assert report.exit_code == 2
    (pair,) = report.pairs
    assert pair.error.kind == "missing-argument", report.to_text()
    assert pair.error.message == (
        "`coco_pipe` requires `annotations_file`, which no call site of the original gives as a literal "
        "(given: `file_root`, `annotation_file`): pass it with --args '{\"annotations_file\": ...}' "
        '(Python: kwargs={"annotations_file": ...})'
    )
    assert pair.iterations == 0 and not pair.notes  # nothing ran


def test_an_error_in_calling_a_side_is_one_line_without_the_tools_traceback(tmp_path, npy_dir):
    """The original requires a parameter the migration dropped: Python's own message, the side and
    the pipeline; the frames are all ndd-migrate's, so no traceback (it showed
    `migrated_side.py`/`original_side.py` lines a user can do nothing with)."""
    from ndd_migrate.verify import verify_files

    original = tmp_path / "orig.py"
    original.write_text(
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=0)\n"
        "def det_pipe(data_dir, scale):\n"
        "    return fn.readers.numpy(file_root=data_dir) * scale\n",
        encoding="utf-8",
    )
    migrated = os.path.join(HERE, "verify_cases", "numpy_ndd.py")
    report = verify_files(str(original), migrated, "det_pipe", args=[npy_dir], device="cpu", iterations=1)
    (pair,) = report.pairs
    assert pair.error.side == "original" and pair.error.kind == "exception", report.to_text()
    assert "det_pipe() missing 1 required positional argument: 'scale'" in pair.error.message
    assert pair.error.traceback is None
    assert "Traceback" not in report.to_text() and "ndd_migrate" not in report.to_text()


def test_a_factory_migrate_left_is_named_without_running_it(tmp_path):
    """A graph built by hand in a factory, with two readers: `migrate` leaves it; the migrated
    factory returned a Pipeline and verify said "ORIGINAL and MIGRATED look swapped"."""
    from ndd_migrate.verify import verify_files

    source = (
        "from nvidia.dali import fn\n"
        "from nvidia.dali.pipeline import Pipeline\n\n\n"
        "def build(data_dir, batch_size):\n"
        "    pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=0, seed=3)\n"
        "    with pipe:\n"
        '        a = fn.readers.numpy(file_root=data_dir, random_shuffle=True, name="A")\n'
        '        b = fn.readers.numpy(file_root=data_dir, random_shuffle=False, name="B")\n'
        "        pipe.set_outputs(a, b)\n"
        "    return pipe\n"
    )
    original, migrated, text = _migrated(tmp_path, source)
    assert "TODO(ndd-migrate): NDD001" in text, text
    report = verify_files(original, migrated, args=[str(tmp_path), 2])
    (pair,) = report.pairs
    assert pair.error.kind == "not-migrated", report.to_text()
    assert f"`build` is still pipeline-mode code at {migrated}:5" in pair.error.message
    assert "`migrate` did not convert it: NDD001 not migrated: more than one reader" in pair.error.message
    assert pair.iterations == 0 and pair.dali_version is None  # no worker started
