"""verify with real DALI, CPU-lowered: equal pairs, wrong migrations, readers, epochs, bad input.

Every test runs the real two-sided check (two worker processes each) on tiny data written to tmp
dirs, so the whole file stays well under three minutes on two cores. The pairs live in
tests/verify_cases/. Skipped, with the reason shown, when DALI cannot be imported.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

try:
    import nvidia.dali  # noqa: F401

    _DALI_ERROR = None
except Exception as e:  # ImportError, or a broken installation
    _DALI_ERROR = f"DALI cannot be imported ({type(e).__name__}: {e}); install the verify extra"

pytestmark = [
    pytest.mark.dali,
    pytest.mark.skipif(_DALI_ERROR is not None, reason=_DALI_ERROR or ""),
]

from ndd_migrate.verify import CouldNotVerify, NotEquivalent, assert_equivalent, verify_files  # noqa: E402
from ndd_migrate.verify.command import verify_command  # noqa: E402
from ndd_migrate.verify.model import BenchConfig  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "verify_cases")
ROOT = os.path.dirname(HERE)
if HERE not in sys.path:  # `from verify_cases import ...` whatever pytest's import mode
    sys.path.insert(0, HERE)


def case(name: str) -> str:
    return os.path.join(CASES, name)


def marker_line(path: str, marker: str) -> int:
    with open(path) as f:
        for i, line in enumerate(f, 1):
            if marker in line:
                return i
    raise AssertionError(f"{marker!r} not in {path}")


@pytest.fixture(scope="module")
def npy_dir(tmp_path_factory):
    from verify_cases.datasets import write_numpy_files

    return write_numpy_files(str(tmp_path_factory.mktemp("npy")))


@pytest.fixture(scope="module")
def jpeg_dir(tmp_path_factory):
    pytest.importorskip("PIL", reason="Pillow writes the JPEG test data")
    from verify_cases.datasets import write_jpeg_folders

    return write_jpeg_folders(str(tmp_path_factory.mktemp("jpg")))


# --------------------------------------------------------------------------------------------
# The _random_state mechanics, in process (what rng.py relies on)


def test_random_state_is_7_uint32_words_per_call_broadcast_per_sample():
    """An ndd random call draws 7 words once (whatever the batch size); given those words per
    sample as ``_random_state``, the pipeline op reproduces it bit for bit — also over its own
    explicit seed= — and without them it does not."""
    import numpy as np
    import nvidia.dali.experimental.dynamic as ndd
    from nvidia.dali import fn, pipeline_def

    from ndd_migrate.verify.rng import STATE_WORDS, NddRandomRecorder, PipelineRandomFeeder

    B = 3
    expected = []
    with NddRandomRecorder() as rec:
        rng = ndd.random.RNG(seed=5)
        for k in range(2):
            if k:
                rec.next_step()
            u = ndd.random.uniform(range=(0, 1), shape=[2], batch_size=B, rng=rng)
            c = ndd.random.coin_flip(batch_size=B, rng=rng)
            expected.append([np.stack([np.asarray(t) for t in b.tensors]) for b in (u, c)])
    assert [[c.display for c in s] for s in rec.steps] == [["random.uniform", "random.coin_flip"]] * 2
    assert all(len(c.words) == STATE_WORDS and c.batched for s in rec.steps for c in s)
    fresh = ndd.random.RNG(seed=5)  # recording read a clone: the draws themselves are the RNG's
    assert tuple(fresh() for _ in range(STATE_WORDS)) == rec.steps[0][0].words
    assert tuple(fresh() for _ in range(STATE_WORDS)) == rec.steps[0][1].words

    @pipeline_def(batch_size=B, num_threads=1, device_id=None, seed=999)
    def pipe():
        return fn.random.uniform(range=(0, 1), shape=[2], seed=123), fn.random.coin_flip()

    def run(states):
        with PipelineRandomFeeder(states) as feeder:
            p = pipe()
        p.build()
        return feeder, [[np.array(o.as_array()) for o in p.run()] for _ in range(2)]

    feeder, got = run([[c.words for c in s] for s in rec.steps])
    assert [o.display for o in feeder.ops] == ["random.uniform", "random.coin_flip"]
    for k in range(2):
        for a, b in zip(expected[k], got[k]):
            assert np.array_equal(a, b)
    _, unfed = run(None)
    assert not np.array_equal(unfed[0][0], expected[0][0])


# --------------------------------------------------------------------------------------------
# Equal pairs


def test_deterministic_pair_equal_over_two_epochs(npy_dir):
    report = verify_files(case("numpy_pipes.py"), case("numpy_ndd.py"), "det_pipe", args=[npy_dir], epochs=2)
    assert report.exit_code == 0, report.to_text()
    pair = report.pairs[0]
    assert pair.verdict == "equal" and pair.device == "CPU-lowered"
    # 7 samples, batch 3: 3 steps per epoch, the last one wrapping into the next epoch.
    assert (pair.iterations, pair.epochs, pair.iterations_per_epoch) == (6, 2, 3)
    assert [o.samples_equal for o in pair.outputs] == [18, 18]
    assert [o.dtype for o in pair.outputs] == [("INT32", "INT32"), ("FLOAT", "FLOAT")]
    assert pair.random["status"] == "none"


def test_random_augmentation_equal_thanks_to_alignment(jpeg_dir):
    from verify_cases import image_ndd, image_pipes

    report = assert_equivalent(image_pipes.train_pipe, image_ndd.train_pipe, args=[jpeg_dir], iterations=3)
    pair = report.pairs[0]
    assert pair.random["original"] == ["random_resized_crop", "random.coin_flip"]
    assert pair.random["migrated"] == ["random_resized_crop", "random.coin_flip"]
    assert pair.random["aligned"] and pair.random["status"].startswith("aligned")
    assert all(o.exact for o in pair.outputs) and pair.outputs[0].samples_equal == 12
    assert "CPU-lowered" in report.to_text()


def test_random_augmentation_differs_without_alignment(jpeg_dir):
    from verify_cases import image_ndd, image_pipes

    with pytest.raises(NotEquivalent) as e:
        assert_equivalent(
            image_pipes.train_pipe,
            image_ndd.train_pipe,
            args=[jpeg_dir],
            iterations=2,
            align_random=False,
        )
    pair = e.value.report.pairs[0]
    assert pair.random["status"].startswith("NOT aligned")
    assert not pair.outputs[0].ok and pair.outputs[0].first_failure.reason == "values"
    assert pair.outputs[1].exact  # labels: same reader order, no randomness
    assert "first failure at step 0" in str(e.value)


def test_random_ops_without_reader_and_unused_op():
    report = verify_files(case("random_pipes.py"), case("random_ndd.py"), iterations=3)
    assert report.exit_code == 0, report.to_text()
    pair = report.pair("noise_pipe")
    # The unused uniform is pruned from the pipeline graph, yet created and fed in order.
    assert pair.random["original"] == [
        "random.uniform",
        "random.normal",
        "random.coin_flip",
        "random.uniform",
    ]
    # The migration has no device_id parameter (it was always 0); device_id=None is not passed.
    assert not any("device_id" in n for n in pair.notes)


def test_dropping_an_unused_random_op_is_reported():
    report = verify_files(
        case("random_pipes.py"),
        case("random_ndd.py"),
        "noise_pipe:noise_pipe_dropped_unused",
        iterations=2,
    )
    assert report.exit_code == 1
    text = report.to_text()
    assert "made 3 random call(s), the original pipeline has 4 random op(s)" in text
    assert "original: random.uniform → random.normal → random.coin_flip → random.uniform" in text


def test_legacy_ops_pipeline_subclass():
    """ops.* objects, a graph defined in build(), one op object called twice, device_id=0 hard-coded
    in the Pipeline constructor: lowered and fed all the same."""
    report = verify_files(case("legacy_pipes.py"), case("legacy_ndd.py"), "noise_legacy", iterations=2)
    assert report.exit_code == 0, report.to_text()
    assert report.pairs[0].random["original"] == [
        "random.uniform",
        "random.coin_flip",
        "random.uniform",
    ]


# --------------------------------------------------------------------------------------------
# Wrong migrations


@pytest.mark.parametrize(
    "pipeline, expected",
    [
        ("train_pipe:missing_batch_size", "called without batch_size=: random.coin_flip"),
        ("train_pipe:swapped_order", "random calls in a different order"),
        ("train_pipe:changed_crop", "shape — original (3, 16, 16), migrated (3, 18, 18)"),
        ("train_pipe:dropped_mirror", "values — "),
        ("color_pipe:swapped_uniforms", "values — "),
    ],
)
def test_wrong_migration_is_caught(jpeg_dir, pipeline, expected):
    report = verify_files(case("image_pipes.py"), case("image_wrong.py"), pipeline, args=[jpeg_dir], iterations=2)
    text = report.to_text()
    assert report.exit_code == 1, text
    assert expected in text
    first = next(o.first_failure for o in report.pairs[0].outputs if o.first_failure)
    assert first.iteration == 0  # caught on the first step already
    if first.reason == "values":
        assert first.excerpt and {"index", "original", "migrated"} <= set(first.excerpt[0])
    if "swapped_order" in pipeline:
        assert "migrated: random.coin_flip → random_resized_crop" in text


# --------------------------------------------------------------------------------------------
# Readers: shuffle, shards, epochs


def test_a_reader_seed_derived_as_dali_derives_it_keeps_the_order(npy_dir):
    """The original's reader has no seed= (its pipeline's seed=11 decides); the migrated one has
    the seed DALI derives for it: the same order, proven without giving either side a seed."""
    report = verify_files(case("numpy_pipes.py"), case("numpy_ndd.py"), "epoch_pipe", args=[npy_dir], epochs=2)
    assert report.exit_code == 0, report.to_text()
    readers = report.pairs[0].readers
    assert readers["original"][0]["explicit_seed"] is None and readers["original"][0]["used_seed"] is None
    assert readers["migrated"][0]["explicit_seed"] == 1163822806
    meta = readers["original_meta"][0]
    assert meta["epoch_size"] == 7 and meta["pad_last_batch"] == 0


def test_a_changed_sample_order_is_different_unless_alignment_is_asked_for(npy_dir):
    """Before, verify gave the original reader the migrated seed and said EQUAL: a migration that
    changes the order a training run sees passed."""
    pair = "epoch_pipe:epoch_pipe_reordered"
    report = verify_files(case("numpy_pipes.py"), case("numpy_ndd.py"), pair, args=[npy_dir], epochs=2)
    assert report.exit_code == 1, report.to_text()
    assert "the sample order is compared as each gives it" in report.to_text()
    aligned = verify_files(
        case("numpy_pipes.py"), case("numpy_ndd.py"), pair, args=[npy_dir], epochs=2, align_order=True
    )
    assert aligned.exit_code == 0, aligned.to_text()
    assert "--align-order: the original reader given the migrated seed=11; order not proven" in aligned.to_text()


def test_the_same_samples_in_another_order_are_named_so(tmp_path):
    data = tmp_path / "npy"
    data.mkdir()
    for i in range(6):  # two whole batches per epoch: both sides give the same samples
        np.save(data / f"{i}.npy", np.full((2,), i, dtype=np.int32))
    pair = "epoch_pipe:epoch_pipe_reordered"
    report = verify_files(case("numpy_pipes.py"), case("numpy_ndd.py"), pair, args=[str(data)], epochs=2)
    assert report.exit_code == 1
    assert "output 0: the same samples in another order: the sample order differs from step 0" in report.to_text()


def test_the_reader_of_an_unseeded_pipeline_is_aligned_and_said_so(npy_dir):
    # `seeded_pipe` of the migrated cases, wrong for a seeded original, is the right migration of an
    # unseeded one: its reader has no seed= either
    report = verify_files(
        case("numpy_pipes.py"), case("numpy_ndd.py"), "unseeded_shuffle_pipe:seeded_pipe", args=[npy_dir], iterations=3
    )
    assert report.exit_code == 0, report.to_text()
    assert "the original pipeline has no seed, so its reader shuffles in a new order in every run" in report.to_text()


def test_epoch_boundary_with_pad_last_batch(npy_dir):
    report = verify_files(
        case("numpy_pipes.py"),
        case("numpy_ndd.py"),
        "epoch_pipe",
        kwargs={"pad": True},
        args=[npy_dir],
        epochs=2,
    )
    assert report.exit_code == 0, report.to_text()
    pair = report.pairs[0]
    assert (pair.iterations, pair.iterations_per_epoch) == (6, 3)
    assert pair.readers["original_meta"][0]["pad_last_batch"] == 1


def test_dropped_pad_last_batch_is_caught(npy_dir):
    report = verify_files(
        case("numpy_pipes.py"),
        case("numpy_ndd.py"),
        "epoch_pipe:epoch_pipe_ignores_pad",
        kwargs={"pad": True},
        args=[npy_dir],
        epochs=2,
    )
    assert report.exit_code == 1, report.to_text()


def test_sharded_reader_over_three_epochs(npy_dir):
    report = verify_files(case("numpy_pipes.py"), case("numpy_ndd.py"), "shard_pipe", args=[npy_dir], epochs=3)
    assert report.exit_code == 0, report.to_text()
    pair = report.pairs[0]
    assert pair.epochs == 3
    meta = pair.readers["migrated_meta"][0]
    assert meta["number_of_shards"] == 2


def test_padded_short_shard_reads_the_largest_shard(npy_dir):
    # Before: "batches per epoch: the original reader gives 1 ..., the migrated loop 2" although
    # both sides read the same two padded batches (the count ignored pad_last_batch).
    report = verify_files(case("numpy_pipes.py"), case("numpy_ndd.py"), "padded_shard_pipe", args=[npy_dir], epochs=2)
    assert report.exit_code == 0, report.to_text()
    assert "batches per epoch" not in report.to_text()
    assert report.pairs[0].iterations_per_epoch == 2


def test_dropped_reader_seed_is_an_error(npy_dir):
    report = verify_files(case("numpy_pipes.py"), case("numpy_ndd.py"), "seeded_pipe", args=[npy_dir], iterations=2)
    assert report.exit_code == 1
    assert "the original gives seed=7, the migrated reader has no seed=" in report.to_text()


# --------------------------------------------------------------------------------------------
# Bad input, crashes, hangs


def test_no_such_function(npy_dir):
    report = verify_files(case("numpy_pipes.py"), case("numpy_ndd.py"), "det_pipe:nope", args=[npy_dir])
    assert report.exit_code == 2
    err = report.pairs[0].error
    assert err.kind == "no-function" and err.side == "migrated"
    assert "has no function `nope`; it defines: det_pipe" in err.message


def test_exception_inside_the_pipeline_points_at_the_line(npy_dir):
    path = case("numpy_pipes.py")
    report = verify_files(path, case("numpy_ndd.py"), "raising_pipe:det_pipe", args=[npy_dir])
    assert report.exit_code == 2
    err = report.pairs[0].error
    assert err.side == "original" and err.kind == "exception"
    assert "ValueError: boom while defining the graph" in err.message
    assert err.location == f"{path}:{marker_line(path, 'boom while defining')}"
    assert err.phase == "defining the graph"
    assert not err.traceback.split("\n")[1].strip().startswith('File "' + ROOT + "/ndd_migrate")


def test_dali_error_at_run_time_points_at_the_op_definition(npy_dir):
    path = case("numpy_pipes.py")
    report = verify_files(path, case("numpy_ndd.py"), "run_error_pipe:det_pipe", args=[npy_dir])
    err = report.pairs[0].error
    assert report.exit_code == 2 and err.side == "original" and err.phase == "step 0"
    assert "Error in CPU operator `nvidia.dali.fn.reshape`" in err.message
    # Raised from pipe.run(); the line comes from DALI's definition traceback in the message.
    assert err.location == f"{path}:{marker_line(path, 'fails in pipe.run()')}"


def test_device_gpu_without_a_gpu_is_exit_2(npy_dir):
    from nvidia.dali import backend

    if backend.GetCUDADeviceCount() > 0:
        pytest.skip("this machine has a GPU")
    report = verify_files(case("numpy_pipes.py"), case("numpy_ndd.py"), "det_pipe", args=[npy_dir], device="gpu")
    assert report.exit_code == 2 and "no GPU is visible" in report.pairs[0].error.message


def test_exception_inside_the_migrated_loop_via_assert_equivalent(npy_dir):
    from verify_cases import numpy_ndd, numpy_pipes

    with pytest.raises(CouldNotVerify) as e:
        assert_equivalent(numpy_pipes.det_pipe, numpy_ndd.raising_gen, args=[npy_dir])
    err = e.value.report.pairs[0].error
    path = numpy_ndd.__file__
    assert err.side == "migrated" and err.phase == "step 0"
    assert err.location == f"{path}:{marker_line(path, 'boom inside the migrated loop')}"
    assert "RuntimeError: boom inside the migrated loop" in str(e.value)


def test_hang_times_out_with_location(npy_dir):
    path = case("numpy_ndd.py")
    report = verify_files(case("numpy_pipes.py"), path, "det_pipe:hanging_gen", args=[npy_dir], timeout=12)
    assert report.exit_code == 2
    err = report.pairs[0].error
    assert err.kind == "timeout" and "timed out after 12 s" in err.message
    if err.phase == "step 0":  # on a very slow machine the import alone may eat the budget
        assert err.location == f"{path}:{marker_line(path, 'a hang verify must time out on')}"


def test_not_a_generator(npy_dir):
    report = verify_files(case("numpy_pipes.py"), case("numpy_ndd.py"), "det_pipe:not_a_generator", args=[npy_dir])
    assert report.exit_code == 2
    assert "returned a list, not a generator" in report.pairs[0].error.message


def test_op_without_cpu_backend_is_named(npy_dir):
    # Migrated side (runs first): ndd.jitter cannot be lowered.
    report = verify_files(case("numpy_pipes.py"), case("numpy_ndd.py"), "jitter_pipe", args=[npy_dir])
    err = report.pairs[0].error
    assert report.exit_code == 2 and err.kind == "no-cpu-backend" and err.ops == ["jitter"]
    # Original side: fn.jitter in the pipeline.
    report = verify_files(case("numpy_pipes.py"), case("numpy_ndd.py"), "jitter_pipe:det_pipe", args=[npy_dir])
    err = report.pairs[0].error
    assert err.side == "original" and err.kind == "no-cpu-backend" and err.ops == ["jitter"]
    assert "no CPU backend for jitter" in report.to_text()


# --------------------------------------------------------------------------------------------
# Command line, git base, capture and timing


def test_python_m_json_and_report_file(npy_dir, tmp_path):
    report_file = tmp_path / "report.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "ndd_migrate.verify",
            case("numpy_pipes.py"),
            case("numpy_ndd.py"),
            "--pipeline",
            "det_pipe",
            "--args",
            json.dumps([npy_dir]),
            "--iterations",
            "2",
            "--batch-size",
            "2",
            "--device",
            "cpu",
            "--output-format",
            "json",
            "--report",
            str(report_file),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(proc.stdout)
    assert data == json.loads(report_file.read_text())
    pair = data["pairs"][0]
    assert pair["verdict"] == "equal" and pair["batch_size"] == 2 and pair["iterations"] == 2
    assert pair["device"] == "CPU-lowered"
    assert [o["samples_equal"] for o in pair["outputs"]] == [4, 4]


def test_progress_shows_on_a_terminal_and_not_in_a_pipe(npy_dir):
    """Under a pseudo-terminal the command says which side of which pipeline is in which phase
    while it runs; the run above, in a pipe, printed nothing but its JSON."""
    import pty

    command = [sys.executable, "-m", "ndd_migrate.verify", case("numpy_pipes.py"), case("numpy_ndd.py")]
    command += ["--pipeline", "det_pipe", "--args", json.dumps([npy_dir]), "--iterations", "1", "--device", "cpu"]
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.chdir(ROOT)
        os.execv(sys.executable, command)
    out = b""
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        out += data
    _, status = os.waitpid(pid, 0)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.decode(errors="replace"))  # colours, cursor
    assert os.waitstatus_to_exitcode(status) == 0, text
    assert "verify det_pipe: migrated side" in text and "EQUAL det_pipe" in text, text


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_base_mode_on_a_real_git_repo(npy_dir, tmp_path, capsys):
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }

    def git(*args):
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True, env=env)

    pipe_file = tmp_path / "pipes.py"
    with open(case("numpy_pipes.py")) as f:
        pipe_file.write_text(f.read())
    git("init", "-q")
    git("add", "pipes.py")
    git("commit", "-q", "-m", "pipeline mode")
    with open(case("numpy_ndd.py")) as f:  # "migrate" in place
        pipe_file.write_text(f.read())

    code = verify_command(
        [str(pipe_file)],
        base="HEAD",
        pipeline="det_pipe",
        args_json=json.dumps([npy_dir]),
        iterations=2,
        output_format="json",
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 0, data
    assert data["pairs"][0]["original"] == f"{pipe_file}@HEAD:det_pipe"
    assert data["pairs"][0]["migrated"] == f"{pipe_file}:det_pipe"

    code = verify_command([str(pipe_file)], base="no-such-rev", pipeline="det_pipe")
    assert code == 2
    assert "names no commit" in capsys.readouterr().out  # validated before git reads anything


def test_capture_check_and_throughput(jpeg_dir):
    report = verify_files(
        case("image_pipes.py"),
        case("image_ndd.py"),
        "color_pipe",
        args=[jpeg_dir],
        iterations=2,
        capture=True,
        bench=BenchConfig(warmup=1, runs=3, iterations=2),
    )
    assert report.exit_code == 0, report.to_text()
    pair = report.pairs[0]
    assert pair.capture == {
        "checked": True,
        "equal": True,
        "detail": "captured run identical to the eager run",
    }
    t = pair.timing
    for side in ("original", "migrated"):
        assert t[side]["samples_per_s"] > 0 and len(t[side]["run_samples_per_s"]) == 3
        assert t[side]["batch_size"] == 4
    assert t["migrated"]["note"] == "next_epoch(capture=True)"
    assert t["ratio"] == pytest.approx(t["migrated"]["samples_per_s"] / t["original"]["samples_per_s"])
    assert "migrated / original" in report.to_text()


def test_dynamic_mode_error_shows_dalis_own_message(npy_dir):
    """Not "An error happened during asynchronous execution": the operator's message, located at
    the user's op call."""
    path = case("numpy_ndd.py")
    report = verify_files(case("numpy_pipes.py"), path, "det_pipe:slice_error_gen", args=[npy_dir], iterations=1)
    err = report.pairs[0].error
    assert report.exit_code == 2 and err.side == "migrated"
    assert "Slice can't be placed out of bounds" in err.message
    assert "asynchronous execution" not in err.message
    line = marker_line(path, 'out_of_bounds_policy="error"')
    assert err.location == f"{path}:{line}"


def test_a_legacy_reader_is_named_as_the_dynamic_mode_one():
    """`ops.COCOReader` was recorded as `coco_reader` and the migrated `readers.COCO` as
    `readers.coco`: "different reader ops", a correct migration reported DIFFERENT."""
    import nvidia.dali.ops as ops

    from ndd_migrate.verify.readers import PipelineReaderSeeds

    seeds = PipelineReaderSeeds([], 1)
    for cls in (ops.COCOReader, ops.FileReader, ops.readers.COCO):
        seeds._transform(cls, {"file_root": "/data"})
    assert [r.op for r in seeds.records] == ["readers.coco", "readers.file", "readers.coco"]


def test_a_reader_that_does_not_shuffle_gets_no_word_about_seeds(npy_dir):
    """Its order is the files' order, whatever the seed: "shuffles in a new order in every run" was
    said of it."""
    report = verify_files(case("numpy_pipes.py"), case("numpy_ndd.py"), "det_pipe", args=[npy_dir], iterations=2)
    assert report.exit_code == 0 and "reader #0" not in report.to_text()
