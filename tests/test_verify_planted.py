"""Planted mistakes (tests/verify_planted/): every wrong migration is caught with a message
naming the cause; every correct one stays EQUAL, with and without --capture.

Each case is a real two-process verify run on tiny shared data; they run two at a time (each run
is mostly process start-up and DALI import) in one module fixture, and each case is then its own
test. The last test prints caught/total (docs/verify.md quotes it).
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.conftest import HAS_DALI

pytestmark = [
    pytest.mark.dali,
    pytest.mark.skipif(not HAS_DALI, reason="needs DALI (the verify extra)"),
    pytest.mark.xdist_group("verify_planted"),  # one worker computes `results`, for every test here
]

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from verify_planted.mutations import MUTATIONS, apply  # noqa: E402

PLANTED = os.path.join(HERE, "verify_planted")
CASES = os.path.join(HERE, "verify_cases")
BASE_PIPES = os.path.join(PLANTED, "base_pipes.py")
BASE_NDD = os.path.join(PLANTED, "base_ndd.py")

#: Correct pairs that must be EQUAL with and without capture: (id, original, migrated, pipeline,
#: data, options).
CORRECT = [
    ("planted:aug_pipe", BASE_PIPES, BASE_NDD, "aug_pipe", "npy", {"epochs": 2}),
    ("planted:shard_pipe", BASE_PIPES, BASE_NDD, "shard_pipe", "npy", {"epochs": 2}),
    ("planted:unseeded_pipe", BASE_PIPES, BASE_NDD, "unseeded_pipe", "npy", {"iterations": 2}),
    ("planted:image_pipe", BASE_PIPES, BASE_NDD, "image_pipe", "jpg", {"iterations": 2}),
    ("planted:ckpt_pipe", BASE_PIPES, BASE_NDD, "ckpt_pipe", "npy", {"epochs": 2}),
    ("cases:det_pipe", "numpy_pipes.py", "numpy_ndd.py", "det_pipe", "npy", {"iterations": 3}),
    ("cases:epoch_pipe", "numpy_pipes.py", "numpy_ndd.py", "epoch_pipe", "npy", {"epochs": 1}),
    ("cases:shard_pipe", "numpy_pipes.py", "numpy_ndd.py", "shard_pipe", "npy", {"epochs": 1}),
    ("cases:train_pipe", "image_pipes.py", "image_ndd.py", "train_pipe", "jpg", {"iterations": 2}),
    ("cases:color_pipe", "image_pipes.py", "image_ndd.py", "color_pipe", "jpg", {"iterations": 2}),
    ("cases:noise_pipe", "random_pipes.py", "random_ndd.py", "noise_pipe", None, {"iterations": 2}),
    ("cases:noise_legacy", "legacy_pipes.py", "legacy_ndd.py", "noise_legacy", None, {"iterations": 2}),
]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    pytest.importorskip("PIL", reason="Pillow writes the JPEG test data")
    from verify_cases.datasets import write_jpeg_folders, write_numpy_files

    from ndd_migrate.verify import verify_files

    root = tmp_path_factory.mktemp("planted")
    data = {
        "npy": write_numpy_files(str(root / "npy")),
        "jpg": write_jpeg_folders(str(root / "jpg")),
    }
    with open(BASE_NDD) as f:
        base = f.read()
    jobs = {}
    for m in MUTATIONS:
        path = root / f"m_{m.id.replace('-', '_')}.py"
        path.write_text(apply(base, m))
        jobs[("mutation", m.id)] = (BASE_PIPES, str(path), m.pipeline, [data[m.data]], m.run)
    for cid, orig, mig, pipe, d, opts in CORRECT:
        o, g = (p if os.path.isabs(p) else os.path.join(CASES, p) for p in (orig, mig))
        args = [data[d]] if d else []
        if cid.startswith("planted:"):  # the eager runs of verify_cases are test_verify_dali's
            jobs[("correct", cid)] = (o, g, pipe, args, opts)
        jobs[("capture", cid)] = (o, g, pipe, args, {**opts, "capture": True})

    def run(job):
        o, g, pipe, args, opts = job
        return verify_files(o, g, pipe, args=args, device="cpu", timeout=120, **opts)

    with ThreadPoolExecutor(max_workers=2) as pool:
        reports = dict(zip(jobs, pool.map(run, jobs.values())))
    return reports


@pytest.mark.parametrize("m", MUTATIONS, ids=[m.id for m in MUTATIONS])
def test_planted_mistake(results, m):
    report = results[("mutation", m.id)]
    text = report.to_text()
    if m.expect is None:
        assert report.exit_code == 0, text
        return
    assert report.exit_code == m.code, text
    assert m.expect in text, text
    if m.code == 2:  # DALI's own message, not dynamic mode's wrapper
        assert "asynchronous execution" not in report.pairs[0].error.message


#: the planted changes of the order a training run sees whose outputs part in the steps run (a
#: `stick_to_shard` added to one shard's reader changes no order: its metadata says so)
ORDER_CHANGES = ("reader-seed-changed", "shuffle-dropped", "shard-id-changed", "shard-stick-added")


@pytest.mark.parametrize("mid", ORDER_CHANGES)
def test_an_order_change_names_the_first_step_and_sample_where_the_outputs_part(results, mid):
    """The order is part of the contract: no reader is given the other side's seed, so a changed
    order is DIFFERENT through the outputs themselves, at a named step and sample."""
    report = results[("mutation", mid)]
    assert report.exit_code == 1 and "--align-order" not in report.to_text()
    first = report.pairs[0].outputs[0].first_failure
    assert first is not None and first.sample is not None, report.to_text()
    assert f"output 0: first failure at step {first.iteration}, sample {first.sample}" in report.to_text()


@pytest.mark.parametrize(
    "cid, capture",
    [(c[0], False) for c in CORRECT if c[0].startswith("planted:")] + [(c[0], True) for c in CORRECT],
)
def test_correct_migration_stays_equal(results, cid, capture):
    report = results[("capture" if capture else "correct", cid)]
    assert report.exit_code == 0, report.to_text()
    if cid == "planted:aug_pipe":  # the consumer main() was not run, and the report says so
        assert any("enumerate(aug_pipe(data_dir))" in u for u in report.pairs[0].not_exercised)
        assert "not proven by this run: 1 use(s)" in report.to_text()
    if capture:
        assert report.pairs[0].capture["equal"]


def test_caught_total(results):
    wrong = [m for m in MUTATIONS if m.expect is not None]
    caught = [m for m in wrong if results[("mutation", m.id)].exit_code != 0]
    named = [
        m
        for m in caught
        if results[("mutation", m.id)].exit_code == m.code and m.expect in results[("mutation", m.id)].to_text()
    ]
    correct = [m for m in MUTATIONS if m.expect is None]
    equal = [m for m in correct if results[("mutation", m.id)].exit_code == 0]
    print(
        f"\nplanted mistakes caught: {len(caught)}/{len(wrong)}, cause named: "
        f"{len(named)}/{len(wrong)}; correct variants EQUAL: {len(equal)}/{len(correct)}"
    )
    assert len(named) == len(wrong) and len(equal) == len(correct)
