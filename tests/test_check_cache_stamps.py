"""A warm ``check`` tells unchanged files from their ``os.stat`` stamps (ndd_migrate/app/stamps.py):
a file whose stamp is the one recorded is not read again, a ``touch`` costs a read but no check,
an edit is always seen, a stamp recorded within a clock tick of the file's last change is not
trusted, and what other files import (the cross-file facts) is kept with the stamp, so that a
changed module still changes the findings of the files importing it on the next warm run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from ndd_migrate.app import cache as results_cache
from ndd_migrate.app import runner, stamps
from ndd_migrate.io import files
from ndd_migrate.io.policy import Policy
from tests.conftest import ROOT
from tests.test_check_cache import CACHE, check, messages, poison
from tests.test_cli_contract import LEFTOVER, ndd, out, write
from tests.test_runner import _LOADED

PLAIN = "import os\n\n\ndef cwd():\n    return os.getcwd()\n"
PIPES = (
    "from nvidia.dali import fn, pipeline_def\n\n\n"
    "@pipeline_def(batch_size=2)\n"
    "def train_pipe():\n"
    "    return fn.random.uniform()\n"
)
NOT_A_PIPELINE = "from nvidia.dali import fn\n\n\ndef train_pipe():\n    return fn.random.uniform()\n"
MAIN = "from pkg.pipes import train_pipe\n\npipe = train_pipe()\npipe.build()\nout = pipe.run()\n"


def settle():
    """Wait until the files written so far are older than a racy stamp: the next run trusts them."""
    time.sleep(stamps.RACY_NS / 1e9 + 0.2)


def test_an_unchanged_file_is_not_read_on_a_warm_run(tmp_path, monkeypatch):
    """Files without DALI and a DALI file without findings, unchanged since the first run: the
    second run takes what it needs from their stamps and the cache, and reads none of them."""
    monkeypatch.chdir(tmp_path)
    clean = "import nvidia.dali.experimental.dynamic as ndd\n\n\ndef f(x):\n    return ndd.cast(x, dtype=ndd.float32)\n"
    paths = [str(write(tmp_path / "plain.py", PLAIN)), str(write(tmp_path / "clean.py", clean))]
    settle()
    first = runner.run(paths, Policy.check(), cache=results_cache.Cache(tmp_path / CACHE))
    read = []
    original = files.read_bytes
    monkeypatch.setattr(files, "read_bytes", lambda path: read.append(path) or original(path))
    second = runner.run(paths, Policy.check(), cache=results_cache.Cache(tmp_path / CACHE))
    assert read == []
    assert [(r.path, r.skipped, r.diagnostics) for r in second.results] == [
        (r.path, r.skipped, r.diagnostics) for r in first.results
    ]


def test_a_touched_file_is_read_again_and_its_result_taken_from_the_cache(tmp_path):
    path = write(tmp_path / "a.py", LEFTOVER)
    settle()
    check(tmp_path)
    poison(tmp_path / CACHE)
    assert messages(check(tmp_path)) == ["from the cache"]  # the stamp: not read
    os.utime(path)  # touch: another stamp, the same bytes
    assert messages(check(tmp_path)) == ["from the cache"]


def test_an_edited_file_is_checked_again_even_with_its_size_unchanged(tmp_path):
    path = write(tmp_path / "a.py", LEFTOVER)
    settle()
    expected = out(check(tmp_path, "--no-cache"))
    check(tmp_path)
    poison(tmp_path / CACHE)
    assert messages(check(tmp_path)) == ["from the cache"]
    edited = LEFTOVER.replace("jpegs", "bytes")
    assert len(edited) == len(LEFTOVER)
    path.write_text(edited)
    found = out(check(tmp_path))
    assert "from the cache" not in found and found == expected.replace("jpegs", "bytes")


def test_a_stamp_taken_within_a_tick_of_the_last_change_is_not_trusted(tmp_path, monkeypatch):
    """A file written twice within one tick of the file system's clock keeps its stamp: a stamp
    that recent is only trusted once checked again later (git's racily clean entries)."""
    path = write(tmp_path / "a.py", PLAIN)
    index = stamps.FileIndex(tmp_path / "index")
    stamp, facts = index.lookup(str(path))
    assert facts is None
    index.record(str(path), stamp, ("facts",))
    index.save()
    assert stamps.FileIndex(tmp_path / "index").lookup(str(path)) == (stamp, None)  # just written: read it
    monkeypatch.setattr(stamps, "RACY_NS", 0)  # as if recorded long after the change
    index = stamps.FileIndex(tmp_path / "index")
    index.record(str(path), stamp, ("facts",))
    index.save()
    assert stamps.FileIndex(tmp_path / "index").lookup(str(path)) == (stamp, ("facts",))
    path.write_text(PLAIN.replace("cwd", "pwd"))  # another stamp: not these facts
    assert stamps.FileIndex(tmp_path / "index").lookup(str(path))[1] is None


def test_an_index_that_cannot_be_read_is_empty(tmp_path):
    write(tmp_path / "a.py", LEFTOVER)
    write(tmp_path / "b.py", PLAIN)
    settle()
    expected = out(check(tmp_path, "--no-cache"))
    assert out(check(tmp_path)) == expected
    (index,) = (tmp_path / CACHE).rglob("files/*")
    index.write_bytes(b"\x00not an index")
    assert out(check(tmp_path)) == expected
    assert out(check(tmp_path)) == expected


def test_a_run_leaves_the_garbage_collector_as_it_was(tmp_path):
    """The collector is paused while the index loads, and what is alive then frozen, for the run
    only (runner._frozen): after it, nothing is frozen and the collector is on or off as before."""
    import gc

    write(tmp_path / "a.py", LEFTOVER)
    write(tmp_path / "b.py", PLAIN)
    paths = [str(tmp_path / "a.py"), str(tmp_path / "b.py")]
    cache = results_cache.Cache(tmp_path / CACHE)
    enabled = gc.isenabled()
    try:
        for state in (True, False, True):
            gc.enable() if state else gc.disable()
            summary = runner.run(paths, Policy.check(), jobs=1, cache=cache)
            assert [r.skipped for r in summary.results] == [False, True]
            assert gc.isenabled() is state and gc.get_freeze_count() == 0
    finally:
        gc.enable() if enabled else gc.disable()


def test_a_warm_run_imports_neither_libcst_nor_the_rules(tmp_path):
    write(tmp_path / "a.py", LEFTOVER)
    write(tmp_path / "b.py", PLAIN)
    settle()
    check(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", _LOADED, "check", "."], cwd=tmp_path, env=env, capture_output=True)
    assert "a.py:5:38: NDD103" in done.stdout.decode()  # the finding, from the cache
    loaded = json.loads(done.stdout.decode().strip().splitlines()[-1])
    assert [m for m in loaded if not m.startswith("rich")] == []  # rich prints the report


MIGRATED = "import nvidia.dali.experimental.dynamic as ndd\n\n\ndef train_pipe():\n    while True:\n        yield ndd.random.uniform()\n"


@pytest.mark.parametrize("given", [".", "main.py"])
def test_a_changed_module_changes_the_findings_of_its_importer_on_a_warm_run(tmp_path, given):
    """``main.py`` (no DALI) runs ``train_pipe`` of ``pkg/pipes.py``, in the run or read from disk
    (pre-commit gives the staged files). On warm runs ``main.py`` is not read (its imports come
    from the cache), yet whenever ``pkg/pipes.py`` changes what ``train_pipe`` is (a graph helper,
    a pipeline, a migrated generator), the findings of ``main.py`` follow, as a run without the
    cache gives them."""
    for name, text in {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/pipes.py": NOT_A_PIPELINE}.items():
        write(tmp_path / name, text)
    write(tmp_path / "main.py", MAIN)
    settle()

    def run(*options):
        found = json.loads(out(ndd("check", "--output-format", "json", *options, given, cwd=tmp_path)))
        return sorted(
            (f["filename"].rpartition(os.sep)[2], f["location"]["row"], f["code"], f["message"]) for f in found
        )

    seen = [[f for f in run() if f[0] == "main.py"]]
    run()  # warm
    for text in (PIPES, MIGRATED, NOT_A_PIPELINE, PIPES):
        write(tmp_path / "pkg" / "pipes.py", text)
        found = run()
        assert found == run("--no-cache"), text
        assert run() == found  # and warm again
        seen.append([f for f in found if f[0] == "main.py"])
    assert seen[0] != seen[1] and seen[2] != seen[3] != seen[4]  # a stale result would show


def test_the_import_facts_kept_answer_as_the_bytes_do():
    """What the cache keeps of a file's imports (crossfile.import_facts, importers.import_lines) gives what
    the bytes give, on every file of this project, a notebook's JSON and edge spellings."""
    from ndd_migrate.model import crossfile, importers

    sources = [path.read_bytes() for path in sorted(ROOT.glob("**/*.py")) if ".ndd_migrate_cache" not in path.parts]
    sources += [
        b'{"cells": [{"source": ["from .train import make\\n", "import pkg.val as v\\n"]}]}',
        b"from pkg.train \\\n    import x\nfrom pkg import (\n    train,\n    val)\r\nimport a.b as c, d\nfrom",
        b"import",
    ]
    tops = [frozenset(), frozenset({b"ndd_migrate", b"tests"}), frozenset({b"pkg", b"a", b"os", b"typing"})]
    for raw in sources:
        facts = crossfile.import_facts(raw)
        for top in tops:
            assert crossfile.select_imports(facts, top) == crossfile.imported_modules(raw, top)
        modules = {module for _, module, _ in crossfile.imported_modules(raw) if module} | {"train", "pkg.train"}
        lines = importers.import_lines(raw)
        for module in sorted(modules)[:40]:
            assert crossfile.import_test({module})(lines) == crossfile.import_test({module})(raw), module
