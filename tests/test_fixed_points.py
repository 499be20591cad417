"""A second run changes nothing: the failure classes a fuzz round over real code found
(benchmarks/fuzz_fixed_points.py), each as its reduced reproducer, and the fuzz round's own
mutations of generated programs with pipelines, checked with the fuzz round's definition of a
failure (one definition, used by both)."""

from __future__ import annotations

import importlib.util
import os

import pytest

from tests.conftest import ROOT

hypothesis = pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_spec = importlib.util.spec_from_file_location("fuzz_fixed_points", ROOT / "benchmarks" / "fuzz_fixed_points.py")
fuzz = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz)

REPRODUCERS = {
    "match-statement": (
        "from nvidia.dali.plugin.pytorch import DALIGenericIterator\nmatch x:\n    case _:\n        pass\n"
    ),
    "todo-snippet-over-lines": (
        "from nvidia.dali.pipeline import Pipeline\n"
        "from nvidia.dali.plugin.pytorch import DALIGenericIterator\n"
        "\n"
        "\n"
        "def make(reader):\n"
        "    pipeline = Pipeline(batch_size=2, num_threads=1, device_id=0)\n"
        "    with pipeline:\n"
        "        dataset = reader.get(a=1,\n"
        "                             b=2).pipeline()\n"
        "        pipeline.set_outputs(dataset)\n"
        '    return DALIGenericIterator([pipeline], ["data"])\n'
    ),
    "condition-on-a-helper-value": (
        "import nvidia.dali.fn as fn\n"
        "\n"
        "\n"
        "def flip(images):\n"
        "    do_op = fn.random.coin_flip()\n"
        "    if do_op:\n"
        "        images = fn.flip(images)\n"
        "    return images\n"
    ),
    "todo-above-a-quoted-statement": (
        "from nvidia.dali.pipeline import Pipeline\n"
        "import nvidia.dali.ops as ops\n"
        "\n"
        "\n"
        "class P(Pipeline):\n"
        "    def __init__(self, flag):\n"
        "        super().__init__(1, 1, 0)\n"
        "        self.flag = flag\n"
        '        self.reader = ops.FileReader(file_root="x")\n'
        "        self.flip = ops.Flip()\n"
        "\n"
        "    def define_graph(self):\n"
        "        data, label = self.reader()\n"
        "        out = [data]\n"
        "        if self.flag:\n"
        "            out.append(self.flip(data))\n"
        "        return out\n"
    ),
    "outputs-of-another-pipeline-returned": (
        "from nvidia.dali import pipeline_def\n"
        "@pipeline_def\n"
        "def shuffled_pipeline():\n"
        "    return images, labels\n"
        "@pipeline_def\n"
        "def random_rotated_gpu_pipeline():\n"
        "    return rotated_images, labels\n"
        "pipe = random_rotated_gpu_pipeline(batch_size=max_batch_size, num_threads=1, device_id=0, seed=1234)\n"
        "pipe_out = pipe.run()\n"
        "images, labels = pipe_out\n"
    ),
}


@pytest.mark.parametrize("name", sorted(REPRODUCERS))
def test_a_reproducer_is_migrated_to_a_fixed_point_in_one_run(name):
    assert fuzz.failures(f"{name}.py", REPRODUCERS[name]) == []


# ------------------------------------------------------------------ generated programs, mutated


def _dali_programs() -> list[str]:
    from ndd_migrate.engine.catalog import all_rules

    found = [example.before for rule in all_rules() for example in rule.examples]
    found += [path.read_text() for path in sorted((ROOT / "tests" / "programs").glob("*.py"))]
    return sorted({text for text in found if "nvidia" in text and fuzz._compiles(text)})


PROGRAMS = _dali_programs()
PROFILE = settings(
    max_examples=int(os.environ.get("NDD_FIXED_POINT_EXAMPLES", "25")),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@PROFILE
@given(st.sampled_from(PROGRAMS), st.integers(min_value=0, max_value=2**32 - 1))
def test_a_mutated_program_with_pipelines_is_migrated_to_a_fixed_point(program, seed):
    ((name, mutant),) = fuzz.mutants([("program.py", program)], 1, seed) or [("program.py", program)]
    assert fuzz.failures(name, mutant) == [], mutant


# ------------------------------------------------------------------ the fuzz round itself


def test_mutants_are_seeded_and_compile():
    corpus = [("a.py", PROGRAMS[0]), ("b.py", PROGRAMS[-1])]
    first, again = fuzz.mutants(corpus, 20, seed=7), fuzz.mutants(corpus, 20, seed=7)
    assert first == again and len(first) == 20
    assert all(fuzz._compiles(text) for _, text in first)
    assert fuzz.mutants(corpus, 20, seed=8) != first


def test_each_mutation_keeps_the_program_valid_or_leaves_it():
    import random

    for mutation in fuzz.MUTATIONS:
        for seed in range(10):
            lines = PROGRAMS[seed % len(PROGRAMS)].splitlines()
            out = mutation(lines, random.Random(seed))
            assert isinstance(out, list)


def test_the_reducer_keeps_the_failing_line_and_drops_the_rest(monkeypatch):
    text = "import os\n\n\ndef f():\n    x = 1\n    marker = 2\n    return x\n\n\ny = f()\n"
    monkeypatch.setattr(fuzz, "failures", lambda name, source, only=None: [("c", "d")] if "marker" in source else [])
    reduced = fuzz.reduce("t.py", text, ("c", "d"), budget=30)
    assert "marker" in reduced and "import os" not in reduced and "y = f()" not in reduced
    assert fuzz._compiles(reduced)
