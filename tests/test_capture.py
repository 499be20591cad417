"""``migrate --capture``: the captured form of a migrated loop (ndd_migrate.codegen.capture,
docs/target-shape.md "Captured loops"), proven equal by ``verify`` on every fixture, its batches
valid while the prefetch queue holds them, and only values invariant in fact marked."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import threading

import pytest

from ndd_migrate.io.policy import Policy
from ndd_migrate.support.template import ndd_support
from tests import harness
from tests.conftest import FIXTURES, HAS_DALI, ROOT, migrate_text

CAPTURE = Policy(capture=lambda _path: True)
CASES = sorted(p.parent.name for p in FIXTURES.glob("*/case.json"))
#: The fixtures whose whole loop DALI 2.4 can capture; `numpy_features` computes with arithmetic and
#: `ndd.math` (never captured), `external_source` has no reader.
CAPTURED = {"audio", "coco_detection", "image_classification", "legacy_classification", "train_val"}
NEEDS_DALI = pytest.mark.skipif(not HAS_DALI, reason="nvidia-dali-cuda120 is not installed (pip install '.[verify]')")

PIPELINE = """\
from nvidia.dali import fn, pipeline_def, types

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
SCALE = 2.0


@pipeline_def(num_threads=2, device_id=None, seed=5)
def train(data_dir, crop=32):
    jpegs, labels = fn.readers.file(file_root=data_dir, random_shuffle=True, seed=3, name="Reader")
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    images = fn.random_resized_crop(images, size=[crop, crop])
    flip = fn.random.coin_flip(probability=0.5)
    images = fn.crop_mirror_normalize(images, mean=MEAN, std=[58.4, 57.1, 57.4], mirror=flip, dtype=types.FLOAT)
    return images, labels
"""

CAPTURED_FORM = """\
@prefetching(capture=True)
def train(data_dir, crop=32, *, batch_size, num_threads=2, device_id=None, seed=5):
    ndd.set_num_threads(num_threads)
    rng = ndd.random.RNG(seed=seed)
    reader = ndd.readers.File(file_root=data_dir, random_shuffle=True, seed=3, name="Reader")
    # next_epoch(capture=True) runs these ops as one pipeline: the values they read, the same every batch, marked so.
    crop = ndd.capture.invariant(crop)
    mean = ndd.capture.invariant(MEAN)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size, capture=True):
            images = ndd.decoders.image(jpegs, output_type=types.RGB)
            images = ndd.random_resized_crop(images, size=[crop, crop], rng=rng)
            flip = ndd.random.coin_flip(probability=0.5, batch_size=batch_size, rng=rng)
            images = ndd.crop_mirror_normalize(images, mean=mean, std=[58.4, 57.1, 57.4], mirror=flip, dtype=types.FLOAT)
            yield images.evaluate(), labels.evaluate()
"""


def test_the_captured_form_marks_parameters_and_constant_globals_once_before_the_loop():
    text, _ = migrate_text(PIPELINE, policy=CAPTURE)
    assert text.split("\n\n\n", 1)[1] == CAPTURED_FORM
    assert migrate_text(text, policy=CAPTURE)[0] == text  # migrating it again changes nothing


def test_without_the_option_the_loop_stays_eager():
    text, _ = migrate_text(PIPELINE)
    assert "capture" not in text and "@prefetching\n" in text


@pytest.mark.parametrize(
    "change",
    [
        "def set_mean(values):\n    global MEAN\n    MEAN = values\n",  # rebound elsewhere
        "MEAN.append(0.0)\n",  # mutated
        "MEAN = [1.0, 2.0, 3.0]\n",  # bound twice
        'if __name__ == "__main__":\n    MEAN = [1.0, 2.0, 3.0]\n',  # bound again, in a block
    ],
)
def test_a_global_that_may_change_is_not_marked_and_the_loop_stays_eager(change):
    """Marking it would freeze the value the tracing step read (DALI does not check an invariant),
    and leaving it unmarked leaves its op, and everything after it, eager: the loop is written as
    without the option, every op reading the global's value of the moment."""
    source = PIPELINE.replace("SCALE = 2.0\n", f"SCALE = 2.0\n{change}")
    text, _ = migrate_text(source, policy=CAPTURE)
    assert text == migrate_text(source)[0]
    assert "invariant" not in text and "capture=True" not in text


@pytest.mark.parametrize(
    "graph, why",
    [
        (
            "images = fn.crop_mirror_normalize(images, mean=MEAN, std=[58.4, 57.1, 57.4], mirror=flip, dtype=types.FLOAT) * SCALE",
            "arithmetic",
        ),
        (
            "images = fn.crop_mirror_normalize(images, mean=MEAN[:2] + [1.0], std=[58.4, 57.1, 57.4], mirror=flip, dtype=types.FLOAT)",
            "an expression",
        ),
        (
            "images = fn.crop_mirror_normalize(images, mean=MEAN, std=[58.4, 57.1, 57.4], mirror=flip, dtype=types.FLOAT)\n    if crop > 16:\n        images = fn.flip(images, horizontal=fn.random.coin_flip())",
            "a random op on some builds only",
        ),
    ],
)
def test_a_loop_that_cannot_be_captured_whole_stays_eager(graph, why):
    source = PIPELINE.replace(
        "images = fn.crop_mirror_normalize(images, mean=MEAN, std=[58.4, 57.1, 57.4], mirror=flip, dtype=types.FLOAT)",
        graph,
    )
    text, _ = migrate_text(source, policy=CAPTURE)
    assert "capture=True" not in text, why


def test_random_ops_drawing_from_the_default_generator_stay_eager():
    """Without a pipeline seed the random ops draw from ndd's default generator, one per thread:
    what the captured run draws in the worker thread is not what the eager run drew."""
    source = PIPELINE.replace("device_id=None, seed=5)", "device_id=None)")
    text, _ = migrate_text(source, policy=CAPTURE)
    assert "rng=" not in text and "capture=True" not in text


def test_the_target_shape_page_shows_what_migrate_writes():
    page = (ROOT / "docs" / "target-shape.md").read_text(encoding="utf-8")
    section = page.split("## Captured loops", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    assert block.endswith(CAPTURED_FORM)


def test_the_configuration_key_turns_it_on(cli, tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.ndd-migrate]\ncapture = true\n", encoding="utf-8")
    (tmp_path / "train.py").write_text(PIPELINE, encoding="utf-8")
    result = cli("migrate", str(tmp_path / "train.py"))
    assert result.exit_code == 0, result.output
    text = (tmp_path / "train.py").read_text(encoding="utf-8")
    for line in ("@prefetching(capture=True)", "    mean = ndd.capture.invariant(MEAN)", "capture=True):"):
        assert line in text, text
    (tmp_path / "train.py").write_text(PIPELINE, encoding="utf-8")
    assert cli("migrate", "--no-capture", str(tmp_path / "train.py")).exit_code == 0
    assert "capture" not in (tmp_path / "train.py").read_text(encoding="utf-8")


def test_a_captured_generator_runs_in_a_thread_of_its_own_at_depth_one_too():
    """DALI allows one active capture loop per thread: two captured loaders (train, validation)
    advanced in turn on the consumer's thread would fail."""
    seen = []

    def source():
        while True:
            seen.append(threading.current_thread())
            yield len(seen)

    plain = ndd_support.prefetching(depth=1)(source)()
    captured = ndd_support.prefetching(depth=1, capture=True)(source)()
    assert next(plain) == 1 and seen[-1] is threading.current_thread()
    assert next(captured) == 2 and seen[-1] is not threading.current_thread()
    assert next(captured) == 3 and len(seen) == 3  # nothing computed ahead
    captured.close()
    plain.close()


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    from fixtures.datasets import make_all

    return make_all(tmp_path_factory.mktemp("data"))


def _captured_project(name: str, folder):
    """The fixture's pipeline and its migration by ``migrate --capture``, with the support module."""
    folder.mkdir()
    source = (FIXTURES / name / "pipeline.py").read_text(encoding="utf-8")
    text, result = migrate_text(source, f"fixtures/{name}/pipeline.py", policy=CAPTURE)
    (folder / "pipeline.py").write_text(source, encoding="utf-8")
    (folder / "migrated.py").write_text(text, encoding="utf-8")
    harness.with_support_module(folder, text)
    return text


@pytest.mark.dali
@NEEDS_DALI
@pytest.mark.parametrize("name", CASES)
def test_every_fixtures_captured_form_is_proven_equal(name, datasets, tmp_path):
    """``verify`` of the captured form: the pipeline against the same code run eagerly (random
    states aligned), then the captured run against the eager one, byte for byte, over two epochs,
    the prefetch queue running ahead as it does for users. It runs without ``--capture``: code
    that asks for capture is proven captured too."""
    from ndd_migrate.verify.command import verify_command

    case = json.loads((FIXTURES / name / "case.json").read_text(encoding="utf-8"))
    data = str(datasets[case["dataset"]])
    args = {k: v.replace("{data}", data) if isinstance(v, str) else v for k, v in case["args"].items()}
    project = tmp_path / name
    text = _captured_project(name, project)
    assert ("capture=True" in text) == (name in CAPTURED), text
    report = tmp_path / "report.json"
    code = verify_command(
        [str(project / "pipeline.py"), str(project / "migrated.py")],
        pipeline=case["function"],
        args_json=json.dumps(args),
        batch_size=case["batch_size"],
        iterations=case.get("iterations"),
        epochs=None if case.get("iterations") else 2,
        device="cpu",
        output_format="json",
        report_file=str(report),
    )
    data = json.loads(report.read_text(encoding="utf-8"))
    assert code == 0, data
    capture = data["pairs"][0]["capture"]
    if name in CAPTURED:
        assert capture == {"checked": True, "equal": True, "detail": "captured run identical to the eager run"}
    else:
        assert not capture


PRELUDE = r"""
import sys, time
import numpy as np
sys.path.insert(0, sys.argv[1])
import migrated
from ndd_migrate.verify.lowering import NddLowering
from ndd_migrate.verify.readers import NddReaders

def host(batch):
    return [np.asarray(t) for t in batch.cpu().tensors]

def same(eager, captured):
    for k, (e, c) in enumerate(zip(eager, captured, strict=True)):
        for out, (x, y) in enumerate(zip(e, c, strict=True)):
            for i, (a, b) in enumerate(zip(x, y, strict=True)):
                assert a.shape == b.shape and np.array_equal(a, b), (k, out, i)
"""

QUEUE_FULL = r"""
def run(capture, hold):
    with NddReaders(1234, capture=capture) as readers:
        gen = migrated.image_classification(sys.argv[2], batch_size=4, device_id=None, prefetch_queue_depth=4)
        held = []
        for _ in range(8):  # 13 images: two epochs of 4 batches
            batch = next(gen)
            held.append(batch if hold else [host(b) for b in batch])
            time.sleep(0.05)  # the worker fills the queue, the pipeline runs ahead
        if hold:  # read only now, after every later batch was computed
            held = [[host(b) for b in batch] for batch in held]
            # the whole graph runs in the captured pipeline (DALI internals, read for the test)
            nodes = readers.readers[0]._captured_iter._capture_ctx.nodes
            print("captured", *[node.op_class.__name__ for node in nodes])
        gen.close()
    return held

with NddLowering():  # the fixture's GPU ops on the CPU, as `verify --device cpu` runs them
    eager, captured = run(False, False), run(None, True)
same(eager, captured)
print("equal", len(eager))
"""

TRAIN_AND_VALIDATION = r"""
def run(capture):
    with NddReaders(1234, capture=capture):
        # depth 1: nothing computed ahead, each generator in a thread of its own all the same
        train = migrated.train_pipe(sys.argv[2], batch_size=4, device_id=None, prefetch_queue_depth=1)
        val = migrated.val_pipe(sys.argv[2], batch_size=4, device_id=None, prefetch_queue_depth=1)
        out = []
        for step in range(10):  # both loops suspended in turn, across epochs
            out.append([host(b) for b in next(train)])
            if step % 3 == 2:
                out.append([host(b) for b in next(val)])
        train.close()
        val.close()
    return out

with NddLowering():
    eager, captured = run(False), run(None)
same(eager, captured)
print("equal", len(eager))
"""


@pytest.mark.dali
@NEEDS_DALI
def test_batches_of_a_captured_pipeline_stay_valid_while_the_queue_holds_them(datasets, tmp_path):
    """Every batch of two epochs, held by the consumer until the end while the queue (depth 4)
    and DALI's own prefetching ran ahead, equals the eager run's batch read at once: the captured
    pipeline (DALI's dynamic executor) does not reuse the buffers it handed out."""
    project = tmp_path / "p"
    text = _captured_project("image_classification", project)
    assert "capture=True" in text
    captured, equal = _run_script(tmp_path, QUEUE_FULL, project, datasets["jpeg"])[-2:]
    assert captured == "captured Image RandomResizedCrop CoinFlip CropMirrorNormalize"
    assert equal == "equal 8"


@pytest.mark.dali
@NEEDS_DALI
def test_a_training_and_a_validation_loader_are_both_captured_and_advance_in_turn(datasets, tmp_path):
    """DALI allows one active capture loop per thread: each captured loader runs in a thread of its
    own (``prefetching(capture=True)``), so the two loops interleave, giving the eager batches."""
    project = tmp_path / "p"
    text = _captured_project("train_val", project)
    assert text.count("capture=True):") == 2
    assert _run_script(tmp_path, TRAIN_AND_VALIDATION, project, datasets["jpeg"])[-1] == "equal 13"


def _run_script(tmp_path, body: str, project, data) -> list[str]:
    """The lines a script (:data:`PRELUDE` + ``body``) printed, run on ``project`` and ``data``."""
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(PRELUDE) + textwrap.dedent(body), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(script), str(project), str(data)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip().splitlines()
