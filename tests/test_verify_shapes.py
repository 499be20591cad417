"""Every shape ``migrate`` emits verifies with no arguments but the data its pipeline reads: no
``--pipeline`` (pairs are found by name), no ``--batch-size``/``num_threads``/``seed`` (a parameter
the migrated function requires gets the original's call-site literal or verify's default; one
neither gives, a shard say, is asked for), and the checkpointed shape is saved mid-run and restored.

Real DALI on the CPU; the runs go two at a time in one module fixture (each is mostly process
start-up), then each shape is its own test.
"""

from __future__ import annotations

import importlib.util
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.conftest import FIXTURES, HAS_DALI, ROOT, migrate_text
from tests.harness import with_support_module

pytestmark = [
    pytest.mark.dali,
    pytest.mark.skipif(not HAS_DALI, reason="nvidia-dali-cuda120 is not installed (pip install '.[verify]')"),
    pytest.mark.xdist_group("verify_shapes"),  # one worker computes `reports`, for every test here
]

PROGRAMS = ROOT / "tests" / "programs"
HAS_TORCH = importlib.util.find_spec("torch") is not None

# Checkpointing declared at the call sites of a script: definitions-only loading must skip the
# migrated call sites too (`collect()` on a `Checkpoint` nothing registered in fails at load).
CHECKPOINT_SCRIPT = """\
import os

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=5)
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=7, name="Reader")
    flip = fn.random.coin_flip()
    images = fn.decoders.image(jpegs)
    return labels, flip, fn.resize(images, size=[8, 8])


DATA = os.environ.get("DATA", "/data")
pipe = train_pipe(DATA, enable_checkpointing=True)
pipe.build()
for _ in range(5):
    pipe.run()
state = pipe.checkpoint()
resumed = train_pipe(DATA, enable_checkpointing=True, checkpoint=state)
resumed.build()
labels, flip, images = resumed.run()
print(labels.as_array().ravel().tolist())
"""

#: shape → (fixture, or a program of tests/programs/ or a text, migrated here; dataset; arguments)
SHAPES = {
    "pipeline_def": ("image_classification", None, "jpeg", {"data_dir": "{data}"}),
    "legacy_subclass": ("legacy_classification", None, "jpeg", {"data_dir": "{data}"}),
    # `shard_id=args.local_rank, num_shards=args.world_size` at the call site: the shard to prove
    "framework_iterator": ("pytorch_training", None, "jpeg", {"data_dir": "{data}", "shard_id": 0, "num_shards": 1}),
    "external_source": ("external_source", None, "numpy", {"data_dir": "{data}"}),
    "hand_built_graph": (None, "hand_built_graph.py", "jpeg", {"image_dir": "{data}"}),  # a global
    "hand_built_factory": (None, "hand_built_factory.py", "jpeg", {"file_root": "{data}"}),
    "checkpointed": (None, CHECKPOINT_SCRIPT, "jpeg", ["{data}"]),
    "iter_setup": (None, "legacy_iter_setup_reader.py", "jpeg", {"root": "{data}"}),
}


def _sides(shape, tmp):
    fixture, program, _, _ = SHAPES[shape]
    if fixture:  # the golden, beside the support module `migrate` writes with it
        migrated = tmp / f"migrated_{shape}.py"
        migrated.write_text((FIXTURES / fixture / "migrated.py").read_text(encoding="utf-8"), encoding="utf-8")
        with_support_module(tmp, migrated.read_text(encoding="utf-8"))
        return FIXTURES / fixture / "pipeline.py", migrated
    if program.endswith(".py"):
        original = PROGRAMS / program
    else:
        original = tmp / f"{shape}.py"
        original.write_text(program, encoding="utf-8")
    migrated = tmp / f"migrated_{shape}.py"
    text = migrate_text(original.read_text(encoding="utf-8"))[0]
    assert "TODO" not in text, text  # converted: the shape, not a blocked pipeline, is verified
    migrated.write_text(text, encoding="utf-8")
    with_support_module(tmp, text)
    return original, migrated


def _with_data(value, folder: str):
    return value.replace("{data}", folder) if isinstance(value, str) else value


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    from fixtures.datasets import make_jpeg, make_numpy
    from ndd_migrate.verify import verify_base, verify_files

    tmp = tmp_path_factory.mktemp("shapes")
    data = {"jpeg": str(make_jpeg(tmp)), "numpy": str(make_numpy(tmp))}
    jobs = {}
    for shape, (_, _, dataset, given) in SHAPES.items():
        if shape == "framework_iterator" and not HAS_TORCH:
            continue  # the program imports torch
        original, migrated = _sides(shape, tmp)
        if isinstance(given, list):
            options = {"args": [a.replace("{data}", data[dataset]) for a in given]}
        else:
            options = {"kwargs": {k: _with_data(v, data[dataset]) for k, v in given.items()}}
        if shape == "iter_setup":
            options["iterations"] = 8  # past the feed's end, at step 5
        jobs[shape] = (str(original), str(migrated), options)

    # The README's CI recipe: the migrated file against its own text at a git revision.
    original, migrated, options = jobs.pop("framework_iterator", (None, None, None))
    if original:
        repo = tmp / "repo"
        repo.mkdir()
        loader = repo / "train.py"
        loader.write_text(open(original, encoding="utf-8").read(), encoding="utf-8")
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
        for command in (["init", "-q"], ["add", "train.py"], ["commit", "-qm", "pipeline mode"]):
            subprocess.run([*git, *command], check=True, capture_output=True)
        loader.write_text(open(migrated, encoding="utf-8").read(), encoding="utf-8")
        with_support_module(repo, loader.read_text(encoding="utf-8"))  # as `migrate` writes it beside
        jobs["framework_iterator"] = ("HEAD", str(loader), options)

    def run(job):
        original, migrated, options = job
        if original == "HEAD":
            return verify_base("HEAD", [migrated], device="cpu", timeout=120, **options)
        return verify_files(original, migrated, device="cpu", timeout=120, **options)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(jobs, pool.map(run, jobs.values())))


def _equal(reports, shape):
    if shape not in reports:
        pytest.skip("needs torch")
    report = reports[shape]
    assert report.exit_code == 0, report.to_text()
    return report


def test_pipeline_def_function(reports):
    report = _equal(reports, "pipeline_def")
    assert [p.name for p in report.pairs] == ["image_classification"]


def test_legacy_subclass_is_paired_by_its_name(reports):
    report = _equal(reports, "legacy_subclass")
    assert [p.name for p in report.pairs] == ["HybridTrainPipe"]
    notes = report.pairs[0].notes
    # `HybridTrainPipe(args.batch_size, 4, args.device_id, args.data_dir)`: the literal 4 by position
    assert "not given: num_threads=4 from the original's call site (line 48)" in notes, notes
    assert "not given: batch_size=4: verify's default (no call site gives a literal)" in notes, notes


def test_framework_iterator_shape_returns_metadata_and_generator(reports):
    """Through ``verify --base HEAD`` (the README's CI recipe), the file migrated in place."""
    report = _equal(reports, "framework_iterator")
    assert [p.name for p in report.pairs] == ["create_dali_pipeline"]
    notes = report.pairs[0].notes
    assert "not given: crop=32 from the original's call site (line 58)" in notes, notes


def test_external_source_loop(reports):
    _equal(reports, "external_source")


def test_hand_built_graphs_are_paired_with_their_generators(reports):
    report = _equal(reports, "hand_built_graph")
    assert [p.name for p in report.pairs] == ["pipe_batches", "pipe_batches_2"]
    assert "original: the module global `image_dir` set to" in report.to_text()


def test_hand_built_factory_is_paired_by_its_name(reports):
    report = _equal(reports, "hand_built_factory")
    assert [p.name for p in report.pairs] == ["build_pipeline"]
    # `build_pipeline(sys.argv[1], 4, 1, None)`: the line as written, not as read
    assert "not given: batch_size=4 from the original's call site (line 26)" in report.pairs[0].notes


def test_checkpointed_shape_is_saved_and_restored(reports):
    report = _equal(reports, "checkpointed")
    checkpoint = report.pairs[0].checkpoint
    assert checkpoint["at"] == 2 and checkpoint["equal"], checkpoint
    assert checkpoint["registered"] == ["Reader", "rng"] and checkpoint["unregistered"] == []


def test_iter_setup_shape_ends_where_the_original_does(reports):
    """The feed (a module-level generator, which definitions-only loading runs) ends before the
    reader's epoch: both sides raise StopIteration at step 5."""
    report = _equal(reports, "iter_setup")
    assert [p.name for p in report.pairs] == ["Crops"]
    assert report.pairs[0].ended == {"original": 5, "migrated": 5}
    assert report.pairs[0].iterations == 5
