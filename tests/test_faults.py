"""Faults during ``migrate``'s write phase: a run killed between two writes, and two runs over the
same tree at once. Every file is always either its original or its complete migration, and the
next run finishes the job and leaves no temporary file behind."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ndd_migrate.io import writing
from tests.conftest import ROOT, SMALL_PIPELINE

COUNT = 6

#: ``migrate`` over a tree, killed (SIGKILL: no handler, no clean-up) inside the fsync of the
#: temporary file of its ``argv[2]``-th write: that temporary file is complete but not yet renamed.
KILLED_WHILE_WRITING = """
import os, signal, sys
from ndd_migrate.cli import main

calls, real_fsync, tree, at = [], os.fsync, sys.argv[1], int(sys.argv[2])

def fsync(fd):
    real_fsync(fd)
    calls.append(fd)
    if len(calls) == at:
        os.kill(os.getpid(), signal.SIGKILL)

os.fsync = fsync
sys.argv = ["ndd-migrate", "migrate", "--quiet", "--jobs", "1", tree]
main()
"""


def _tree(folder):
    folder.mkdir()
    for i in range(COUNT):
        (folder / f"m{i}.py").write_text(SMALL_PIPELINE.replace("p(root)", f"p{i}(root)"))
    return folder


def _run(*args, script=None):
    command = [sys.executable, "-c", script or "from ndd_migrate.cli import main; main()", *map(str, args)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _finish(process, timeout=180):
    out, err = process.communicate(timeout=timeout)
    return process.returncode, out.decode(errors="replace") + err.decode(errors="replace")


@pytest.fixture
def reference(tmp_path):
    """Each file's original and migrated bytes."""
    tree = _tree(tmp_path / "reference")
    originals = {p.name: p.read_bytes() for p in tree.iterdir()}
    code, output = _finish(_run("migrate", "--quiet", tree))
    assert code == 0, output
    return {name: (raw, (tree / name).read_bytes()) for name, raw in originals.items()}


def _temporaries(tree):
    return [p.name for p in tree.iterdir() if p.name.endswith(writing.TEMPORARY_SUFFIX)]


def _each_original_or_migrated(tree, reference) -> list[str]:
    """The names of the files migrated; fails on any file that is neither."""
    migrated = []
    for name, (original, new) in reference.items():
        now = (tree / name).read_bytes()
        assert now in (original, new), f"{name} is neither its original nor its migration"
        if now == new:
            migrated.append(name)
    return migrated


def test_a_run_killed_while_writing_leaves_whole_files_and_the_next_run_cleans_up(tmp_path, reference):
    tree = _tree(tmp_path / "tree")
    # the 4th write: the support module the files import (written first), two files, and the third
    code, output = _finish(_run(tree, 4, script=KILLED_WHILE_WRITING))
    assert code == -9, output
    assert len(_each_original_or_migrated(tree, reference)) == 2  # the third was being written
    assert len(_temporaries(tree)) == 1  # its complete temporary file, never renamed
    code, output = _finish(_run("migrate", "--quiet", tree))
    assert code == 0, output
    assert len(_each_original_or_migrated(tree, reference)) == COUNT
    assert _temporaries(tree) == []


def test_two_runs_at_once_over_one_tree_lose_nothing_and_a_third_finishes(tmp_path, reference):
    tree = _tree(tmp_path / "tree")
    both = [_run("migrate", "--quiet", "--jobs", "1", tree) for _ in range(2)]
    for process in both:
        code, output = _finish(process)
        # A file the other run rewrote first is "changed on disk during the run" (exit 2), never lost.
        assert code in (0, 2), output
        assert "Traceback" not in output, output
    _each_original_or_migrated(tree, reference)
    code, output = _finish(_run("migrate", "--quiet", tree))
    assert code == 0, output
    assert len(_each_original_or_migrated(tree, reference)) == COUNT
    assert _temporaries(tree) == []
