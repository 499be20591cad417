"""The harness that runs the tests' programs (tests/harness.py, tests/zygote.py): a forked child is the
process ``python script.py`` would be, a hang is reported where it hangs, and a kept original is used
only for the same program, arguments, data, DALI and harness."""

from __future__ import annotations

import os

import pytest

from tests import harness
from tests.conftest import HAS_DALI

PROBE = """\
import os, sys
print("dali already imported:", "nvidia.dali" in sys.modules)
print("main:", __name__, os.path.basename(__file__))
print("argv:", sys.argv[1:])
print("cwd:", os.getcwd())
print("path0:", sys.path[0])
print("own group:", os.getpgid(0) == os.getpid(), "own session:", os.getsid(0) == os.getpid())
sys.stderr.write("to stderr\\n")
raise SystemExit(int(sys.argv[1]))
"""


def _write(folder, name: str, text: str):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.dali
def test_a_program_gets_a_fresh_process_as_the_interpreter_would_start_it(programs, tmp_path):
    script = _write(tmp_path / "here", "probe.py", PROBE)
    ran = programs.run(script, ["3", "x y"], cwd=tmp_path)
    assert ran.returncode == 3 and ran.stderr == "to stderr\n"
    assert ran.stdout.splitlines() == [
        "dali already imported: True",  # forked from the zygote
        "main: __main__ probe.py",
        "argv: ['3', 'x y']",
        f"cwd: {tmp_path}",
        f"path0: {script.parent}",
        "own group: True own session: True",
    ]


@pytest.mark.dali
def test_each_program_draws_its_own_random_seeds(programs, tmp_path):
    """As in fresh interpreters: numpy's and Python's unseeded generators differ from run to run."""
    script = _write(
        tmp_path, "draw.py", "import random\nimport numpy as np\nprint(np.random.randint(1 << 30), random.random())\n"
    )
    first, second = (programs.run(script).stdout.split() for _ in range(2))
    assert first[0] != second[0] and first[1] != second[1]


@pytest.mark.dali
def test_a_program_with_its_own_pythonpath_gets_an_interpreter_of_its_own(programs, tmp_path, monkeypatch):
    script = _write(tmp_path, "probe.py", PROBE)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "elsewhere"))
    ran = programs.run(script, ["0"])
    assert ran.returncode == 0 and "dali already imported: False" in ran.stdout


@pytest.mark.dali
def test_an_uncaught_exception_is_printed_as_the_interpreter_prints_it(programs, tmp_path):
    script = _write(tmp_path, "boom.py", "def f():\n    raise ValueError('boom')\n\n\nf()\n")
    ran = programs.run(script)
    assert ran.returncode == 1
    lines = ran.stderr.splitlines()
    assert lines[0] == "Traceback (most recent call last):" and f'File "{script}", line 5, in <module>' in lines[1]
    assert lines[-1] == "ValueError: boom" and "zygote" not in ran.stderr


@pytest.mark.dali
def test_a_hang_is_run_twice_then_fails_at_its_line(programs, tmp_path):
    script = _write(tmp_path, "hang.py", "import time\n\n\nwhile True:\n    time.sleep(0.1)\n")
    with pytest.raises(pytest.fail.Exception) as failed:
        programs.run(script, timeout=2)
    assert f"hang.py hung twice: stopped after 2 s at {script}:5" in str(failed.value)


@pytest.mark.dali
def test_verify_workers_are_forked_from_the_zygote():
    """tests/conftest.py hands ``verify``'s runner this harness's ``Popen`` for the whole session."""
    from ndd_migrate.verify import runner

    assert runner.subprocess is harness.VERIFY_SUBPROCESS
    assert harness.ZYGOTE.serves(dict(os.environ, PYTHONPATH=str(harness.ROOT)))
    assert not harness.ZYGOTE.serves(dict(os.environ, PYTHONPATH="/elsewhere"))


def test_a_kept_original_is_used_for_the_same_content_only(tmp_path, monkeypatch):
    """The key: the program's text, its arguments (its own folder aside), the data they name,
    the installed DALI and this harness; a run that failed is not kept."""
    originals = harness.Originals(tmp_path / "kept")
    (tmp_path / "kept").mkdir()
    data = _write(tmp_path / "data", "x.txt", "one")
    program = "import sys\nprint(open(sys.argv[1]).read())\n"
    first = _write(tmp_path / "a", "p.py", program)
    second = _write(tmp_path / "b", "p.py", program)
    key = originals.key(first, [str(data), str(first.parent / "out")], None, [])
    assert originals.key(second, [str(data), str(second.parent / "out")], None, []) == key  # another folder
    assert originals.key(_write(tmp_path / "c", "p.py", program + "\n"), [str(data)], None, []) != key
    assert originals.key(first, [str(data), "other"], None, []) != key
    data.write_text("two")
    assert originals.key(first, [str(data), str(first.parent / "out")], None, []) != key
    data.write_text("one")
    other = harness.Originals(tmp_path / "kept")
    other._environment = [v for v in other._environment if not v.startswith("nvidia-dali")] + [
        "nvidia-dali-cuda120==0.1"
    ]
    assert other.key(first, [str(data), str(first.parent / "out")], None, []) != key
    assert not HAS_DALI or any(v.startswith("nvidia-dali") for v in originals._environment)
    monkeypatch.setattr(harness, "HARNESS", "another harness")
    assert originals.key(first, [str(data), str(first.parent / "out")], None, []) != key
    monkeypatch.undo()

    exits, runs = [0, 1, 1], []
    monkeypatch.setattr(
        harness, "run", lambda script, args, **_: runs.append(script) or harness.Ran(exits.pop(0), "", "")
    )
    assert originals.run(first, [str(data)]).returncode == 0 and originals.run(second, [str(data)]).returncode == 0
    assert runs == [first]  # the second is the same program on the same data
    failing = _write(tmp_path / "d", "p.py", program + "# fails\n")
    assert originals.run(failing, [str(data)]).returncode == 1 and originals.run(failing, [str(data)]).returncode == 1
    assert runs == [first, failing, failing]


def test_a_dataset_is_made_once_under_a_name_of_its_generator(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    made = []

    def make(root, count):
        made.append(root)
        os.makedirs(os.path.join(root, "numbers"))
        for i in range(count):
            with open(os.path.join(root, "numbers", f"{i}.txt"), "w") as f:
                f.write(str(i))
        return os.path.join(root, "numbers")

    first = harness.dataset(folder, make, 3)
    assert harness.dataset(folder, make, 3) == first and len(made) == 1
    assert sorted(p.name for p in first.iterdir()) == ["0.txt", "1.txt", "2.txt"] and first.is_relative_to(folder)
    assert harness.dataset(folder, make, 2) != first and len(made) == 2


@pytest.mark.dali
def test_the_zygote_exits_with_its_standard_input():
    """Nothing is left running after a session: the zygote exits by itself once told to stop."""
    zygote = harness.Zygote()
    zygote._socket_path()
    process = zygote._process
    zygote.stop()
    assert process.returncode == 0
