"""Pipelines and batches handed to the comparisons of DALI's ``test_utils`` (NDD412): the programs
of a project whose tests compare pipelines run before and after ``migrate`` and say the same; a
comparison that fails still fails; two pipelines compared convert together. Before, each such
pipeline stayed in pipeline mode (NDD008: passed to a function the migration does not follow).

``test_utils.py`` here is our own, written as DALI's documents its two functions (built, run,
``TensorList.at()``): what a copy of DALI's test tree holds."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.dali

TEST_UTILS = """\
import numpy as np


def sample(batch, i):
    return batch[i] if isinstance(batch, list) else batch.at(i)


def check_batch(batch1, batch2, batch_size, eps=1e-07):
    for i in range(batch_size):
        left, right = np.array(sample(batch1, i)), np.array(sample(batch2, i))
        assert left.shape == right.shape, "Shape mismatch"
        assert np.mean(np.abs(left - right)) <= eps, "values differ"


def compare_pipelines(pipe1, pipe2, batch_size, N_iterations, eps=1e-07):
    pipe1.build()
    pipe2.build()
    for _ in range(N_iterations):
        out1 = pipe1.run()
        out2 = pipe2.run()
        assert len(out1) == len(out2)
        for a, b in zip(out1, out2):
            check_batch(a, b, batch_size, eps)
    print("OK: ({} iterations)".format(N_iterations))
"""

PIPELINES = """\
import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali import pipeline_def
from nvidia.dali.pipeline import Pipeline


@pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=5)
def scaled(root, factor):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy", random_shuffle=True, name="Reader")
    return fn.cast(data, dtype=types.FLOAT) * factor


class ScaledPipe(Pipeline):
    def __init__(self, root, factor, batch_size=2):
        super().__init__(batch_size, 1, None, seed=5)
        self.input = ops.readers.Numpy(file_root=root, file_filter="*.npy", random_shuffle=True)
        self.cast = ops.Cast(dtype=types.FLOAT)
        self.factor = factor

    def define_graph(self):
        data = self.input()
        return self.cast(data) * self.factor
"""

PROGRAM = """\
import sys

import numpy as np
{imports}
from pipes import ScaledPipe, scaled


def test_modes_agree(root):
    {compare}(scaled(root, 2.0), ScaledPipe(root, 2.0), 2, 5)


def test_outputs_against_numpy(root):
    pipe = scaled(root, 3.0)
    pipe.build()
    for _ in range(3):
        (out,) = pipe.run()
        ref = [np.asarray(out.at(i)) for i in range(2)]
        {check}(out, [r.copy() for r in ref], 2, eps=1e-6)
    print("checked")


def test_differ(root):
    pipe1 = scaled(root, 2.0)
    pipe2 = ScaledPipe(root, 2.5)
    try:
        {compare}(pipe1, pipe2, batch_size=2, N_iterations=2)
    except AssertionError:
        print("differ: AssertionError")


if __name__ == "__main__":
    test_modes_agree(sys.argv[1])
    test_outputs_against_numpy(sys.argv[1])
    test_differ(sys.argv[1])
"""

BY_NAME = dict(
    imports="from test_utils import check_batch, compare_pipelines", compare="compare_pipelines", check="check_batch"
)
BY_ALIAS = dict(imports="from test_utils import check_batch as cb, compare_pipelines as cp", compare="cp", check="cb")
BY_MODULE = dict(imports="import test_utils", compare="test_utils.compare_pipelines", check="test_utils.check_batch")


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project: ``pipes.py`` (two pipelines of either spelling), our ``test_utils.py``, numpy data,
    and the programs given."""
    monkeypatch.chdir(tmp_path)

    def make(**programs: str):
        (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
        (tmp_path / "test_utils.py").write_text(TEST_UTILS, encoding="utf-8")
        (tmp_path / "pipes.py").write_text(PIPELINES, encoding="utf-8")
        for name, text in programs.items():
            (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
        (tmp_path / "data").mkdir()
        for i in range(5):
            np.save(tmp_path / "data" / f"{i}.npy", np.arange(6, dtype=np.int32).reshape(2, 3) * (i + 1))
        return tmp_path

    return make


def runs(name: str) -> str:
    done = subprocess.run([sys.executable, f"{name}.py", "data"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.parametrize("spelling", [BY_NAME, BY_ALIAS, BY_MODULE], ids=["by-name", "by-alias", "by-module"])
def test_compared_pipelines_convert_and_the_tests_say_the_same(project, cli, spelling):
    project(check_pipes=PROGRAM.format(**spelling))
    before = runs("check_pipes")
    assert before.count("OK: (5 iterations)") == 1 and "checked" in before and "differ: AssertionError" in before
    result = cli("migrate", ".")
    assert result.exit_code == 0, result.stderr
    pipes, program = open("pipes.py").read(), open("check_pipes.py").read()
    assert "class ScaledPipe" not in pipes and "ndd.readers.Numpy" in pipes, pipes
    assert ".run()" not in program and ".build()" not in program, program
    if spelling is BY_NAME:  # the calls stay as written; the names come from the support module
        assert "from ndd_support import check_batch, compare_pipelines" in program, program
        assert "from test_utils" not in program and "compare_pipelines(scaled(root" in program, program
    elif spelling is BY_ALIAS:  # under the names the module gave them
        assert "from ndd_support import cb as cb" not in program, program
        assert "check_batch as cb" in program and "compare_pipelines as cp" in program, program
        assert "from test_utils" not in program and "    cp(scaled(root" in program, program
    else:  # the module's other names stay theirs
        assert "import test_utils\n" in program and "    compare_pipelines(scaled(" in program, program
        assert "test_utils.check_batch" not in program, program
    assert runs("check_pipes") == before
    assert open("test_utils.py").read() == TEST_UTILS


def one_module(**spelling) -> str:
    """The program with the pipelines in its own module, as DALI's tests are written."""
    return PIPELINES + "\n\n" + PROGRAM.format(**spelling).replace("from pipes import ScaledPipe, scaled\n", "")


def test_a_pipeline_compared_with_one_that_stays_stays_too(project, cli):
    program = one_module(**BY_NAME).replace(
        "    pipe2 = ScaledPipe(root, 2.5)\n", "    pipe2 = ScaledPipe(root, 2.5)\n    setattr(pipe2, 'note', 'kept')\n"
    )
    project(check_pipes=program)
    before = runs("check_pipes")
    result = cli("migrate", ".")
    assert result.exit_code == 1, result.stderr
    assert "compares it with a value of `ScaledPipe`, which stays in pipeline mode" in result.stderr, result.stderr
    migrated = open("check_pipes.py").read()
    assert "from test_utils import check_batch, compare_pipelines" in migrated, migrated
    assert "class ScaledPipe(Pipeline)" in migrated and "@pipeline_def(" in migrated, migrated
    assert runs("check_pipes") == before


def test_a_pipeline_given_as_another_argument_stays(project, cli):
    program = one_module(**BY_NAME).replace(
        "compare_pipelines(pipe1, pipe2, batch_size=2", "compare_pipelines(pipe1, pipe2, batch_size=pipe1"
    )
    project(check_pipes=program)
    result = cli("migrate", "--diff", "check_pipes.py")
    assert "is given it other than as one of the two values it compares" in result.stderr, result.stderr


def test_the_support_modules_comparisons_fail_as_dalis_do(tmp_path):
    """check_batch of the support module on plain data: what it accepts and refuses."""
    from ndd_migrate import support

    (tmp_path / "ndd_support.py").write_text(support.text(), encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        import ndd_support
    finally:
        sys.path.remove(str(tmp_path))
    a = [np.zeros((2, 2), np.uint8), np.full((1, 3), 200, np.uint8)]
    ndd_support.check_batch(a, [x.copy() for x in a], 2)
    ndd_support.check_batch(np.stack([a[0], a[0]]), [a[0], a[0]])
    b = [a[0], np.full((1, 3), 10, np.uint8)]
    with pytest.raises(AssertionError, match="mean error 190"):  # not 66: no uint8 wrap-around
        ndd_support.check_batch(a, b, 2)
    ndd_support.check_batch(a, b, 2, eps=200)
    with pytest.raises(AssertionError, match="max error 190"):
        ndd_support.check_batch(a, b, 2, eps=200, max_allowed_error=100)
    with pytest.raises(AssertionError, match="shape mismatch"):
        ndd_support.check_batch(a, [a[0], a[0]], 2)
    with pytest.raises(AssertionError, match="batch size 2 != 3"):
        ndd_support.check_batch(a, a, 3)


def test_a_second_run_leaves_a_module_whose_comparisons_moved_as_it_is(project, cli):
    """One comparison converts (its name now the support module's) and another compares
    pipelines that stay: a second run reads the support module's name as the comparison it
    stands for. Before, it wrote an NDD008 TODO at the comparison that stayed."""
    kept = (
        "\n\n@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def offset(root):\n"
        "    data = fn.readers.numpy(file_root=root, file_filter='*.npy')\n"
        "    return data + 1\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def plus_one(root):\n"
        "    data = fn.readers.numpy(file_root=root, file_filter='*.npy')\n"
        "    return 1 + data\n\n\n"
        "def test_kept(root):\n"
        "    pipe = offset(root)\n"
        "    setattr(pipe, 'note', 'kept')\n"
        "    compare_pipelines(plus_one(root), pipe, 2, 2)\n"
    )
    program = one_module(**BY_NAME).replace(
        '\n\nif __name__ == "__main__":\n', kept + '\n\nif __name__ == "__main__":\n'
    )
    program = program.replace(
        "    test_differ(sys.argv[1])\n", "    test_differ(sys.argv[1])\n    test_kept(sys.argv[1])\n"
    )
    project(check_pipes=program)
    before = runs("check_pipes")
    cli("migrate", ".")
    first = open("check_pipes.py").read()
    assert "from ndd_support import" in first and "def scaled(root, factor, *" in first
    assert "def plus_one(root):" in first and "NDD008 `plus_one` stays in pipeline mode" in first
    cli("migrate", ".")
    assert open("check_pipes.py").read() == first
    assert runs("check_pipes") == before
