"""benchmarks/gpu_programs.py, which runs the GPU path of our GPU-aware programs on a GPU machine:
checked here on their CPU path, and on a program whose two runs differ."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from tests.conftest import HAS_DALI, ROOT

_spec = importlib.util.spec_from_file_location("gpu_programs", ROOT / "benchmarks" / "gpu_programs.py")
gpu_programs = importlib.util.module_from_spec(_spec)
sys.modules["gpu_programs"] = gpu_programs
_spec.loader.exec_module(gpu_programs)


def test_every_gpu_program_names_its_variable_and_data():
    found = gpu_programs.gpu_programs()
    assert [p.name for p, _, _ in found] == ["gpu_arithmetic_chosen_at_run_time.py"]
    assert all(
        variable.isupper() and kind in ("jpeg", "numpy", "audio", "coco", "tfrecord") for _, variable, kind in found
    )


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_the_cpu_path_of_each_program_prints_the_same_after_migrate(tmp_path, capsys):
    assert gpu_programs.main(["--cpu", "--out", str(tmp_path / "report.txt")]) == 0
    report = (tmp_path / "report.txt").read_text()
    assert report == "gpu_arithmetic_chosen_at_run_time.py (CPU): the same\n"


def test_two_runs_that_print_differently_are_reported(tmp_path):
    program = tmp_path / "pid.py"
    program.write_text("import os\n\nprint(os.getpid())\n")
    problem = gpu_programs.check(program, "ON_GPU", tmp_path, tmp_path / "work", on_gpu=True)
    assert problem is not None and problem.startswith("printed differently"), problem
