"""``verify`` on the generator of a legacy class fed in ``iter_setup`` (docs/target-shape.md,
"External input fed in ``iter_setup``"): the generator ends where ``pipe.run()`` raised
StopIteration, and verify accepts exactly that end, with ``--iterations`` and ``--epochs``.

tests/verify_cases/feed_pipes.py is the original, feed_ndd.py its migration by the tool. Planted
mistakes in the migrated text: the feed ends one step early, never ends, or its data changed.
Real DALI on the CPU; the runs go two at a time in one module fixture.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from tests import harness
from tests.conftest import HAS_DALI, ROOT, migrate_text

CASES = ROOT / "tests" / "verify_cases"
ORIGINAL = CASES / "feed_pipes.py"
MIGRATED = CASES / "feed_ndd.py"

#: id → (text substituted in feed_ndd.py, its replacement)
PLANTED = {
    "early": ("iter(Counter(steps, batch_size))", "iter(Counter(steps - 1, batch_size))"),
    # the feed restarted instead of ending: the generator never ends
    "never": (
        "            except StopIteration:\n                return\n",
        "            except StopIteration:\n"
        "                iterator = iter(Counter(steps, batch_size))\n"
        "                values, scales = iter_setup()\n",
    ),
    "fed": ("ndd.batch(scales, dtype=types.FLOAT)", "ndd.batch(scales + 1, dtype=types.FLOAT)"),
}

#: run id → (planted mistake or None, options); ``max_feed_steps`` bounds --epochs without a reader
RUNS = {
    "equal-iterations": (None, {"iterations": 5}),
    "equal-epochs": (None, {"epochs": 1}),
    "early-iterations": ("early", {"iterations": 5}),
    "early-epochs": ("early", {"epochs": 1}),
    "never-iterations": ("never", {"iterations": 5}),
    "never-epochs": ("never", {"epochs": 1, "max_feed_steps": 6}),
    "fed-iterations": ("fed", {"iterations": 5}),
    "one-epoch": ("one-epoch", {"epochs": 2}),
    "bench": (None, {"iterations": 5, "bench": True}),
    "no-end": ("no-end", {"epochs": 1, "max_feed_steps": 3}),
}

PLANTED_DIR = ROOT / "tests" / "verify_planted"
#: A reader's loop without ``while True``: the generator ends after one epoch, the pipeline does
#: not (the same finding, outside iter_setup).
ONE_EPOCH = (
    "    while True:\n        for (data,) in reader.next_epoch",
    "    for _ in range(1):\n        for (data,) in reader.next_epoch",
)


def test_the_migrated_case_is_the_tools_output():
    text, _ = migrate_text(ORIGINAL.read_text(encoding="utf-8"))
    assert text == MIGRATED.read_text(encoding="utf-8")


def test_each_planted_mistake_changes_the_text():
    base = MIGRATED.read_text(encoding="utf-8")
    for old, _ in PLANTED.values():
        assert base.count(old) == 1, old
    planted = (PLANTED_DIR / "base_ndd.py").read_text(encoding="utf-8")
    aug = planted.index("def aug_pipe(")
    assert aug < planted.index(ONE_EPOCH[0]) < planted.index("\ndef ", aug)  # the first: aug_pipe's


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    if not HAS_DALI:
        pytest.skip("needs DALI (the verify extra)")
    import dataclasses

    from ndd_migrate.verify.api import make_settings, verify_pair
    from ndd_migrate.verify.model import SideSpec
    from ndd_migrate.verify.report import VerifyReport
    from tests.verify_cases.datasets import write_numpy_files

    tmp = tmp_path_factory.mktemp("feed")
    base = MIGRATED.read_text(encoding="utf-8")
    # as `migrate` leaves a project: the migrated files beside the support module they import
    harness.with_support_module(tmp, base)
    (tmp / MIGRATED.name).write_text(base, encoding="utf-8")
    jobs = {}
    for run_id, (planted, options) in RUNS.items():
        options = dict(options)
        feed_steps = options.pop("max_feed_steps", None)
        original, migrated, name = ORIGINAL, tmp / MIGRATED.name, "FeedPipe"
        if planted == "one-epoch":
            original, migrated, name = PLANTED_DIR / "base_pipes.py", tmp / "aug_one_epoch.py", "aug_pipe"
            migrated.write_text((PLANTED_DIR / "base_ndd.py").read_text(encoding="utf-8").replace(*ONE_EPOCH, 1))
            options["args"] = [write_numpy_files(str(tmp / "npy"))]
        elif planted == "no-end":  # random numbers, no reader, no end: no epoch to compare
            original, migrated, name = CASES / "random_pipes.py", CASES / "random_ndd.py", "noise_pipe"
        elif planted:
            migrated = tmp / f"feed_{planted}.py"
            migrated.write_text(base.replace(*PLANTED[planted]), encoding="utf-8")
        settings = make_settings(device="cpu", timeout=120, **options)
        if feed_steps:
            settings = dataclasses.replace(settings, max_feed_steps=feed_steps)
        jobs[run_id] = (SideSpec(str(original), name), SideSpec(str(migrated), name), settings)

    def run(job):
        return VerifyReport(pairs=[verify_pair(*job)])

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(jobs, pool.map(run, jobs.values())))


pytestmark = [pytest.mark.dali, pytest.mark.xdist_group("verify_iter_setup")]  # `reports` computed once


@pytest.mark.parametrize("run_id", ["equal-iterations", "equal-epochs"])
def test_an_end_at_the_same_step_is_equal(reports, run_id):
    report = reports[run_id].pairs[0]
    assert report.exit_code == 0, reports[run_id].to_text()
    assert report.ended == {"original": 3, "migrated": 3}
    assert report.iterations == 3 and report.batch_size == 4
    assert [(o.samples_equal, o.samples_compared) for o in report.outputs] == [(12, 12)] * 2
    assert "both sides ended at step 3 (StopIteration)" in _flat(reports[run_id])
    if run_id == "equal-epochs":
        assert report.epochs == 1


@pytest.mark.parametrize(
    "run_id, cause",
    [
        ("early-iterations", "the migrated generator ended at step 2 (next() raised StopIteration"),
        ("early-epochs", "the migrated generator ended at step 2 (next() raised StopIteration"),
        ("never-iterations", "the original ended at step 3 (pipe.run() raised StopIteration"),
        ("never-epochs", "the original ended at step 3 (pipe.run() raised StopIteration"),
        ("fed-iterations", "output 0: first failure at step 0, sample 0: values"),
        ("one-epoch", "the migrated generator ended at step 3 (next() raised StopIteration"),
    ],
)
def test_planted_mistake_is_caught_with_its_cause(reports, run_id, cause):
    text = _flat(reports[run_id])
    assert reports[run_id].exit_code == 1, text
    assert cause in text, text


def _flat(report) -> str:
    """The report's text with its line wrapping undone."""
    return " ".join(report.to_text().split())


def test_bench_on_a_feed_shorter_than_the_timed_steps_says_so(reports):
    text = _flat(reports["bench"])
    assert reports["bench"].exit_code == 2, text
    assert "--bench: the generator ended (StopIteration) before the 3 warm-up and 5 × 10 timed steps" in text


def test_epochs_without_a_reader_or_an_end_cannot_run(reports):
    text = _flat(reports["no-end"])
    assert reports["no-end"].exit_code == 2, text
    assert "--epochs needs a reader or an end: no reader, and neither side ended in 3 step(s)" in text
