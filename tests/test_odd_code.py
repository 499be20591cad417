"""Deep nesting and odd but possible code: each file is migrated, or gets one short error with its
line, and the run goes on (docs/safety.md); and a second run changes nothing."""

from __future__ import annotations

import os
import signal

import pytest

from ndd_migrate.app import pool
from ndd_migrate.engine import stack, transform
from ndd_migrate.io.policy import Policy
from ndd_migrate.syntax import pyparse
from tests.conftest import SMALL_PIPELINE, migrate_text
from tests.test_safety import run_cli

PIPELINE_LINES = SMALL_PIPELINE.count("\n")


def _error(source: str, mode: str = "migrate"):
    policy = Policy.migrate() if mode == "migrate" else Policy.check()
    result = transform.transform(source, "odd.py", policy)
    assert result.error is not None, f"{mode}: expected an error"
    assert not result.changed
    return result.error


# ------------------------------------------------------------------ refused by CPython: its error


def test_brackets_nested_past_pythons_limit_are_the_files_error_not_a_crash(tmp_path):
    # libcst's native parser overflows its stack on this (the process dies); CPython refuses it.
    (tmp_path / "deep.py").write_text(SMALL_PIPELINE + "x = " + "(" * 1500 + "1" + ")" * 1500 + "\n")
    (tmp_path / "ok.py").write_text(SMALL_PIPELINE)
    for command in ("check", "migrate"):
        result = run_cli(command, tmp_path / "deep.py", tmp_path / "ok.py")
        assert result.returncode == 2, (result.returncode, result.stderr[-500:])
        assert f"deep.py:{PIPELINE_LINES + 1}" in result.stdout + result.stderr
        assert "too many nested parentheses" in result.stdout + result.stderr
    assert "ndd" in (tmp_path / "ok.py").read_text()


def test_a_module_level_nonlocal_is_a_parse_error_at_its_line_in_migrate_and_check():
    source = SMALL_PIPELINE + "nonlocal q\n"
    for mode in ("migrate", "check"):
        error = _error(source, mode)
        assert error.line == PIPELINE_LINES + 1
        assert error.message == "cannot parse: nonlocal declaration not allowed at module level"


def test_the_files_own_syntax_warnings_are_not_printed(tmp_path):
    """Asking CPython first must not print the user's `SyntaxWarning`s (`assert (x, "msg")`) into
    the report, once per file and run."""
    path = tmp_path / "warns.py"
    path.write_text(SMALL_PIPELINE + 'assert (1, "always true")\n', encoding="utf-8")
    done = run_cli("check", str(path))
    assert "SyntaxWarning" not in done.stdout + done.stderr


def test_a_return_outside_a_function_is_a_parse_error():
    error = _error(SMALL_PIPELINE + "return 1\n", "check")
    assert (error.line, error.message) == (PIPELINE_LINES + 1, "cannot parse: 'return' outside function")


def test_a_nul_byte_in_a_string_is_a_parse_error_at_its_line():
    for mode in ("migrate", "check"):
        error = _error(SMALL_PIPELINE + "s = 'a\0b'\n", mode)
        assert error.line == PIPELINE_LINES + 1
        assert "NUL byte" in error.message and "internal error" not in error.message


def test_nesting_too_deep_for_pythons_parser_is_a_short_error_at_the_deepest_line():
    source = SMALL_PIPELINE + "x = 1\ny = " + "lambda: " * 3000 + "1\n"  # ast raises MemoryError
    error = _error(source)
    assert error.message == "cannot parse: nested too deeply for Python's parser"
    assert error.line == PIPELINE_LINES + 2


def test_top_level_await_is_accepted_in_a_notebook_only():
    assert pyparse.parse("await x\n", notebook=True) is not None
    error = _error(SMALL_PIPELINE + "await x\n")
    assert "'await' outside function" in error.message


def test_messages_are_one_short_line():
    text = "first line " + "x" * 500 + "\nsecond line\n"
    assert "\n" not in pyparse.one_line(text)
    assert len(pyparse.one_line(text)) == pyparse.MAX_MESSAGE


# ------------------------------------------------------------------ valid deep code: migrated


def test_a_400_term_sum_and_a_list_nested_150_deep_are_migrated():
    for tail in ("y = " + " + ".join(["1"] * 400) + "\n", "y = " + "[" * 150 + "]" * 150 + "\n"):
        new, _ = migrate_text(SMALL_PIPELINE + tail)
        assert "ndd.readers.Numpy" in new and new.endswith(tail)


def _in_blocks(depth: int) -> str:
    source = "from nvidia.dali import pipeline_def, fn\nx = 1\n"
    source += "".join("    " * i + "if x:\n" for i in range(depth))
    pad = "    " * depth
    source += f"{pad}@pipeline_def(batch_size=2)\n{pad}def p(root):\n"
    source += f"{pad}    data = fn.readers.numpy(file_root=root)\n{pad}    return data\n"
    return source + f"{pad}pipe = p('r')\n{pad}pipe.build()\n{pad}(out,) = pipe.run()\n"


def test_a_pipeline_inside_94_nested_blocks_is_migrated():
    new, _ = migrate_text(_in_blocks(94))
    assert "ndd.readers.Numpy" in new and "next(pipe)" in new


def test_a_rewrite_nesting_past_pythons_limit_is_an_error_saying_why():
    # The generator adds blocks: 98 + 4 is past CPython's 100 levels of indentation.
    _, result = migrate_text(_in_blocks(98), expect_error=True)
    assert result.error.message == "the rewrite did not parse, file left unchanged: too many levels of indentation"


def test_the_recursion_limit_is_restored_after_a_file():
    import sys

    before = sys.getrecursionlimit()
    migrate_text(SMALL_PIPELINE)
    assert sys.getrecursionlimit() == before


def test_an_exception_in_the_engine_thread_reaches_the_caller():
    def fails():
        raise KeyError("boom")

    try:
        stack.on_deep_stack(fails)
    except KeyError as exc:
        assert exc.args == ("boom",)
    else:
        raise AssertionError("the exception was lost")


def test_nesting_deeper_than_the_engine_follows_is_a_short_error_not_an_internal_one(monkeypatch):
    monkeypatch.setattr(stack, "DEEP_RECURSION_LIMIT", 1000)
    monkeypatch.setattr(stack, "DEEP_STACK_BYTES", 8 * 1024 * 1024)
    source = SMALL_PIPELINE + "y = " + " + ".join(["1"] * 400) + "\n"
    error = _error(source)
    assert (error.message, error.line) == (stack.TOO_DEEP, PIPELINE_LINES + 1)


# ------------------------------------------------------------------ one run reaches the fixed point


def _twice(source: str) -> tuple[str, str]:
    once, _ = migrate_text(source)
    twice, _ = migrate_text(once)
    return once, twice


def test_blocking_uses_on_one_line_give_the_same_todo_every_run():
    # The uses of `pipe` on one line come in the order of libcst's reference sets, which varies.
    source = (
        "from nvidia.dali import Pipeline, fn\n\n\n"
        "def api():\n"
        "    class Rand(Pipeline):\n"
        "        def __init__(self, batch_size, num_threads, device_id):\n"
        "            super().__init__(batch_size, num_threads, device_id)\n\n"
        "        def define_graph(self):\n"
        "            return fn.random.uniform()\n\n"
        "    pipe = Rand(batch_size=2, num_threads=1, device_id=None)\n"
        "    pipe.build()\n"
        "    for method in [pipe.schedule_run, pipe.share_outputs, pipe.release_outputs, pipe.outputs]:\n"
        "        method()\n"
    )
    results = set()
    for _ in range(6):
        once, twice = _twice(source)
        assert once == twice
        results.add(once)
    assert len(results) == 1
    assert "`.schedule_run` of `pipe`" in results.pop()  # the first on the line


def test_a_hand_built_pipeline_todo_is_not_followed_by_another_on_the_second_run():
    # The first TODO mentions `set_outputs`; the second run must not read that as a graph to desugar.
    source = (
        "from nvidia.dali import Pipeline\n\n\n"
        "def load(text):\n"
        "    other = Pipeline(batch_size=2, num_threads=1, device_id=None)\n"
        "    other.deserialize_and_build(text)\n"
        "    return other.run()\n"
    )
    once, twice = _twice(source)
    assert once.count("TODO(ndd-migrate):") == 1
    assert once == twice


# ------------------------------------------------------------------ a worker that dies


@pytest.mark.skipif(pool._fork_context() is None, reason="the pool's workers are forked only on Linux")
def test_a_file_that_kills_its_worker_is_that_files_error_and_the_run_goes_on(monkeypatch):
    real = pool.process_source

    def crashing(path, raw, policy):
        if path == "crash.py":  # as libcst's native parser does when its stack overflows
            os.kill(os.getpid(), signal.SIGKILL)
        return real(path, raw, policy)

    monkeypatch.setattr(pool, "process_source", crashing)  # the forked workers inherit it
    names = ["a.py", "b.py", "crash.py", "c.py", "d.py", "e.py"]
    ticks = []
    results = pool.process_sources(
        [(name, SMALL_PIPELINE.encode()) for name in names], Policy.migrate(), jobs=2, progress=ticks.append
    )
    assert [r.path for r in results] == names
    crashed = results[2].error
    assert crashed is not None and "process died (signal 9)" in crashed.message and "\n" not in crashed.message
    assert all(r.error is None and r.changed for i, r in enumerate(results) if i != 2)
    assert sum(ticks) == len(names)


def test_an_internal_error_with_a_long_message_is_reported_in_one_short_line(monkeypatch):
    from ndd_migrate.model.sources import hand_built

    def fails(module, *args, **kwargs):
        raise ValueError("Module(\n" + "    body=[...],\n" * 2700 + ")")  # as a CST node's repr

    monkeypatch.setattr(hand_built, "desugar", fails)
    error = _error(SMALL_PIPELINE)
    assert "\n" not in error.message and len(error.message) < 2 * pyparse.MAX_MESSAGE
    assert error.message.startswith("internal error (ValueError: Module(")
