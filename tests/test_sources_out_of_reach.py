"""Data a pipeline function takes from a place its generator's batch loop cannot lift out (NDD101):
a reader made in a helper, or, in a function with no reader or external source of its own, the
outputs of a function imported from another module. Either would be called again for every batch,
a reader starting its epoch anew each time, so the pipeline stays in pipeline mode, saying why."""

from __future__ import annotations

from tests.conftest import ROOT, migrate_text

IMPORTED = """\
from nvidia.dali import fn, pipeline_def, types
from camera_feed.readers import frames_and_ids


@pipeline_def(batch_size=4, num_threads=2, device_id=None)
def frames(root):
    images, ids = frames_and_ids(root=root)
    images = fn.decoders.image(images, output_type=types.RGB)
    return images, ids
"""


def _needs_human(text: str, path: str = "train.py"):
    migrated, result = migrate_text(text, path)
    return migrated, [d for d in result.diagnostics if d.needs_human]


def test_outputs_of_an_imported_function_keep_a_pipeline_without_a_reader():
    migrated, human = _needs_human(IMPORTED)
    assert [d.code for d in human] == ["NDD101"]
    assert "`images` comes from `frames_and_ids(...)`, a function of another module" in human[0].message
    assert "@pipeline_def" in migrated and "ndd." not in migrated


def test_an_imported_function_beside_a_reader_is_not_a_source():
    """With a reader of its own, an imported call's values are per-batch work, as before."""
    text = IMPORTED.replace(
        "    images, ids = frames_and_ids(root=root)\n",
        "    images, _ = fn.readers.file(file_root=root)\n    ids = frames_and_ids(root=root)\n",
    )
    _, human = _needs_human(text)
    assert human == []


def test_an_imported_value_given_only_as_an_argument_is_not_a_source():
    text = IMPORTED.replace("images, ids = frames_and_ids(root=root)", "size, ids = frames_and_ids(root=root)")
    text = text.replace("fn.decoders.image(images,", "fn.random.uniform(range=size,").replace(
        "output_type=types.RGB", "shape=[2]"
    )
    _, human = _needs_human(text)
    assert human == []


def test_a_reader_made_in_a_helper_keeps_the_pipeline():
    name = "reader_made_in_helper.py"
    source = (ROOT / "tests" / "programs" / name).read_text(encoding="utf-8")
    migrated, human = _needs_human(source, f"tests/programs/{name}")
    assert [d.code for d in human] == ["NDD101"]
    assert "is called in `labelled_files()`, which the graph of `decoded` runs" in human[0].message
    assert "call the reader in `decoded`" in human[0].hint
    assert "fn.readers.file(" in migrated and "ndd." not in migrated


def test_values_unpacked_from_an_imported_call_and_handed_to_a_graph_helper():
    """``feed = imported(...)``, ``images, ids = feed``, ``helper(images, ids)``: followed by value."""
    text = IMPORTED.replace(
        "    images, ids = frames_and_ids(root=root)\n    images = fn.decoders.image(images, output_type=types.RGB)\n",
        "    feed = frames_and_ids(root=root)\n    images, ids = feed\n    images = decode(images)\n",
    ).replace(
        "@pipeline_def", "def decode(x):\n    return fn.decoders.image(x, output_type=types.RGB)\n\n\n@pipeline_def"
    )
    _, human = _needs_human(text)
    assert [d.code for d in human] == ["NDD101"], [d.message for d in human]
    assert "`images` comes from `frames_and_ids(...)`" in human[0].message


GRAPH_PART_OF_A_PIPELINE_ELSEWHERE = """\
import nvidia.dali.fn as fn
from nvidia.dali import types
from mylib.core import InputPipelineCore


def decode(jpegs):
    return fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)


class ImagePipeline(InputPipelineCore):
    def get_inputs(self, pipeline):
        jpegs, labels = fn.readers.file(file_root=self.root, random_shuffle=True)
        images = fn.resize(decode(jpegs), resize_x=64, resize_y=64)
        return images, labels
"""


def test_a_reader_in_a_function_no_pipeline_here_runs_keeps_that_function():
    """A method that another module's graph calls (`InputPipelineCore` builds it by hand) makes its
    reader: rewritten, it became `jpegs, labels = ndd.readers.File(...)`, a reader object, not its
    outputs. The function stays as it is, with the reason at the reader, and so does the helper it
    calls (`decode`: rewritten, it would give the pipeline-mode graph a dynamic-mode batch)."""
    migrated, human = _needs_human(GRAPH_PART_OF_A_PIPELINE_ELSEWHERE, "images.py")
    assert [d.code for d in human] == ["NDD101"] and "`get_inputs` stays in pipeline mode" in human[0].message
    assert "jpegs, labels = fn.readers.file(file_root=self.root, random_shuffle=True)" in migrated
    assert "images = fn.resize(decode(jpegs), resize_x=64, resize_y=64)" in migrated
    assert "ndd.readers" not in migrated
    assert migrated.replace(_todo(migrated), "") == GRAPH_PART_OF_A_PIPELINE_ELSEWHERE  # only the TODO added
    assert migrate_text(migrated, "images.py")[0] == migrated


def _todo(text: str) -> str:
    """The TODO lines of ``text``, as one block."""
    return "".join(line for line in text.splitlines(keepends=True) if line.lstrip().startswith(("# TODO", "#   ")))
