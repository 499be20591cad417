"""verify without DALI: loading, comparison, report, CLI parsing, git base, missing-DALI paths.

These run on a machine without the verify extra's DALI (numpy is needed for the comparison
tests only); the real two-sided checks are in test_verify_dali.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from ndd_migrate.verify import loading
from ndd_migrate.verify.command import UsageError, parse_args_json, parse_tolerance, verify_command
from ndd_migrate.verify.errors import INSTALL_HINT, SetupError
from ndd_migrate.verify.report import ErrorInfo, Finding, PairReport, VerifyReport

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# --------------------------------------------------------------------------------------------
# Import hygiene


def test_import_needs_neither_dali_nor_numpy():
    code = textwrap.dedent(
        """
        import sys
        sys.modules["nvidia"] = None   # any import of nvidia.* now fails
        sys.modules["numpy"] = None
        import ndd_migrate.verify as v
        from ndd_migrate.verify import api, command, report, loading, runner, gitbase, model
        assert callable(v.verify_files) and callable(v.assert_equivalent)
        assert v.VerifyReport().exit_code == 2
        print("ok")
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_missing_dali_is_exit_2_with_install_hint(tmp_path, monkeypatch, capsys):
    from ndd_migrate.verify import api

    monkeypatch.setattr(api, "_find_spec", lambda name: None)
    a = tmp_path / "a.py"
    b = tmp_path / "b.py"
    a.write_text("def f():\n    pass\n")
    b.write_text("def f():\n    yield 1\n")
    report = api.verify_files(a, b, pipeline="f")
    assert report.exit_code == 2
    # Checked before anything that needs numpy (a lint-only install): one report-level error.
    assert INSTALL_HINT in report.error.message and not report.pairs
    assert verify_command([str(a), str(b)], pipeline="f") == 2
    assert "pip install -e '.[verify]'" in capsys.readouterr().out


def test_worker_without_dali_reports_install_hint(tmp_path, monkeypatch):
    """The workers import DALI themselves; one that cannot gets the same clear verdict."""
    from ndd_migrate.verify import api
    from ndd_migrate.verify.model import SideSpec

    fake = tmp_path / "fake"
    (fake / "nvidia" / "dali").mkdir(parents=True)
    (fake / "nvidia" / "__init__.py").write_text("")
    (fake / "nvidia" / "dali" / "__init__.py").write_text("raise ImportError('no libdali.so')\n")
    monkeypatch.setenv("PYTHONPATH", str(fake))
    monkeypatch.setattr(api, "_find_spec", lambda name: object())
    src = tmp_path / "p.py"
    src.write_text("def f():\n    yield 1\n")
    rep = api.verify_pair(SideSpec(str(src), "f"), SideSpec(str(src), "f"), api.make_settings(timeout=60))
    assert rep.verdict == "error"
    assert rep.error.kind == "missing-dali"
    assert "no libdali.so" in rep.error.message and INSTALL_HINT in rep.error.message


# --------------------------------------------------------------------------------------------
# Loading


SCRIPT = textwrap.dedent(
    """\
    import os
    from nvidia.dali import pipeline_def, fn

    DATA = os.path.join("data", "x")
    load_plugins = []
    load_plugins.append("lib.so")


    def helper():
        return 3


    SIZE = helper()


    @pipeline_def(batch_size=2)
    def pipe(d):
        return fn.readers.file(file_root=d)


    def main():
        print("running")


    p = pipe(DATA)
    p.build()
    out = p.run()
    print(out)
    for _ in range(3):
        p.run()
    main()
    if __name__ == "__main__":
        main()
    """
)


def test_definitions_only_skips_script_code():
    tree = loading.parse_source(SCRIPT, "s.py")
    kept, dropped = loading.definitions_only(tree)
    lines = SCRIPT.splitlines()
    dropped_text = [lines[n - 1].strip() for n in dropped]
    assert dropped_text == [
        "p = pipe(DATA)",
        "p.build()",
        "out = p.run()",
        "print(out)",
        "for _ in range(3):",
        "main()",
        'if __name__ == "__main__":',
    ]
    import ast

    kept_src = ast.unparse(kept)
    assert "SIZE = helper()" in kept_src  # helper calls assigning constants still run
    assert "load_plugins.append('lib.so')" in kept_src


def test_definitions_only_skips_a_migrated_checkpointing_call_site():
    script = (
        "import nvidia.dali.experimental.dynamic as ndd\n"
        "def p(root, *, checkpoint=None):\n    yield root\n"
        "p_checkpoint = ndd.checkpoint.Checkpoint()\n"
        "pipe = p('/d', checkpoint=p_checkpoint)\n"
        "p_checkpoint.collect()\n"
        "state = p_checkpoint.serialize().encode()\n"
        "LIMIT = 3\n"
    )
    kept, dropped = loading.definitions_only(loading.parse_source(script, "s.py"))
    assert dropped == [4, 5, 6, 7]  # collect() before any next() would fail at load
    assert "LIMIT = 3" in __import__("ast").unparse(kept)


def test_factories_are_script_code_helpers_returning_generators_are_not():
    script = (
        "def build(root):\n    def pipe_batches():\n        while True:\n            yield root.evaluate(),\n"
        "    return pipe_batches()\n"
        "def numbers():\n    def gen():\n        while True:\n            yield 1\n    return gen()\n"
        "pipe = build('/d')\n"
        "SOURCE = numbers()\n"
    )
    assert loading.factories(script) == ["build"]
    kept, dropped = loading.definitions_only(loading.parse_source(script, "s.py"))
    assert dropped == [11]  # `pipe = build(...)` runs a pipeline; `SOURCE = numbers()` is data


def test_definitions_only_runs_a_module_level_data_generator():
    """The iterator a legacy ``iter_setup`` draws from (``next(crop_windows)``) is data: it must
    exist when the pipeline, or the generator it migrated to, is fed; the migrated generator
    (it ``evaluate()``s) is a pipeline, and its call is script code."""
    script = (
        "def windows(n):\n    for k in range(n):\n        yield k\n"
        "def Crops(batch_size):\n    while True:\n        yield (next(crop_windows) + 1).evaluate()\n"
        "crop_windows = windows(5)\n"
        "pipe = Crops(2)\n"
    )
    kept, dropped = loading.definitions_only(loading.parse_source(script, "s.py"))
    assert dropped == [8]
    assert "crop_windows = windows(5)" in __import__("ast").unparse(kept)


def test_load_module_unique_names_and_source_override(tmp_path):
    f = tmp_path / "mod.py"
    f.write_text("X = 1\ndef g():\n    return X\n")
    a = loading.load_module(str(f), mode="module")
    b = loading.load_module(str(f), source="X = 2\ndef g():\n    return X\n", display=f"{f}@HEAD")
    assert a.module.__name__ != b.module.__name__
    assert a.module.g() == 1 and b.module.g() == 2
    assert b.module.__file__ == str(f)  # runs under the real path
    import linecache

    assert linecache.getline(f"{f}@HEAD", 1).strip() == "X = 2"


def test_find_function_lists_candidates(tmp_path):
    f = tmp_path / "mod.py"
    f.write_text("def alpha():\n    pass\n\ndef beta():\n    pass\n")
    loaded = loading.load_module(str(f))
    assert loading.find_function(loaded, "beta", kind="migrated") is loaded.module.beta
    with pytest.raises(SetupError) as e:
        loading.find_function(loaded, "gamma", kind="migrated")
    assert e.value.kind == "no-function"
    assert "`gamma`" in str(e.value) and "alpha, beta" in str(e.value)


def test_top_level_functions():
    src = textwrap.dedent(
        """
        from nvidia.dali import pipeline_def
        import nvidia.dali as dali
        @pipeline_def
        def a(): pass
        @dali.pipeline_def(batch_size=2)
        def b(): pass
        def c():
            def inner():
                yield 1
            return inner
        def d():
            yield 1
        """
    )
    info = {f.name: f for f in loading.top_level_functions(src)}
    assert info["a"].is_pipeline_def and info["b"].is_pipeline_def
    assert not info["c"].is_pipeline_def and not info["c"].is_generator
    assert info["d"].is_generator


def test_syntax_error_is_setup_error():
    with pytest.raises(SetupError) as e:
        loading.top_level_functions("def f(:\n", "bad.py")
    assert e.value.kind == "syntax" and "bad.py:1" in str(e.value)


# --------------------------------------------------------------------------------------------
# CLI parsing


def test_parse_args_json():
    assert parse_args_json('["/data", 3]') == (("/data", 3), {})
    assert parse_args_json('{"crop": 224}') == ((), {"crop": 224})
    assert parse_args_json('{"args": ["/d"], "kwargs": {"crop": 1}}') == (("/d",), {"crop": 1})
    with pytest.raises(UsageError):
        parse_args_json("[1,")
    with pytest.raises(UsageError):
        parse_args_json("3")


def test_parse_tolerance():
    assert parse_tolerance(["0:1e-5:1e-6", "2:0:1"]) == {0: (1e-5, 1e-6), 2: (0.0, 1.0)}
    with pytest.raises(UsageError):
        parse_tolerance(["0:1e-5"])
    with pytest.raises(UsageError):
        parse_tolerance(["x:1:1"])


@pytest.mark.parametrize(
    "paths, options, message",
    [
        (["one.py"], {}, "two files"),
        (["a.py", "b.py"], {"iterations": 2, "epochs": 1}, "not both"),
        (["a.py", "b.py"], {"args_json": "{"}, "not valid JSON"),
        (["a.py", "b.py"], {"device": "tpu"}, "--device"),
        (["a.py", "b.py"], {"args_file": "/nonexistent/args.json"}, "cannot read"),
    ],
)
def test_usage_errors_exit_2(paths, options, message, capsys):
    assert verify_command(paths, **options) == 2
    captured = capsys.readouterr()
    assert message in captured.out + captured.err


def test_missing_file_exit_2(tmp_path, capsys):
    ok = tmp_path / "ok.py"
    ok.write_text("def f():\n    yield 1\n")
    code = verify_command([str(tmp_path / "missing.py"), str(ok)])
    assert code == 2
    assert "no such file" in capsys.readouterr().out


def test_no_pipeline_def_found_exit_2(tmp_path):
    from ndd_migrate.verify.api import verify_files

    a = tmp_path / "a.py"
    a.write_text("def f():\n    pass\n")
    report = verify_files(a, a)
    assert report.exit_code == 2 and "no @pipeline_def function" in report.error.message


def test_unpaired_function_reported_without_running(tmp_path):
    from ndd_migrate.verify.api import verify_files

    a = tmp_path / "a.py"
    b = tmp_path / "b.py"
    a.write_text("from nvidia.dali import pipeline_def\n@pipeline_def\ndef only_here():\n    pass\n")
    b.write_text("def other():\n    yield 1\n")
    report = verify_files(a, b)
    assert report.exit_code == 2
    assert "no function `only_here`" in report.pairs[0].error.message


# --------------------------------------------------------------------------------------------
# Comparison

np = pytest.importorskip("numpy")


def _batch(samples, dtype="INT32", layout="", kind="Batch"):
    return {"kind": kind, "dtype": dtype, "layout": layout, "device": "cpu", "samples": samples}


def test_compare_arrays_exact_and_tolerance():
    from ndd_migrate.verify.compare import Tolerance, compare_arrays

    a = np.array([1.0, 2.0, np.nan], dtype=np.float32)
    assert compare_arrays(a, a.copy(), Tolerance())[0]  # NaN == NaN for equality
    b = a + np.array([0, 1e-6, 0], dtype=np.float32)
    identical, within, n, max_abs, max_rel, _ = compare_arrays(a, b, Tolerance())
    assert not identical and not within and n == 1 and max_abs > 0
    assert compare_arrays(a, b, Tolerance(rtol=1e-5))[1]
    u0 = np.array([0, 255], dtype=np.uint8)
    u1 = np.array([255, 255], dtype=np.uint8)
    _, _, n, max_abs, max_rel, _ = compare_arrays(u0, u1, Tolerance())
    assert n == 1 and max_abs == 255 and max_rel == float("inf")  # no uint8 wrap-around


def test_comparator_reports_first_failure_with_excerpt():
    from ndd_migrate.verify.compare import Comparator

    c = Comparator()
    s = [np.arange(6, dtype=np.int32).reshape(2, 3), np.ones((2, 3), np.int32)]
    c.add_step(0, [_batch(s)], [_batch([x.copy() for x in s])])
    t = [s[0], s[1].copy()]
    t[1][1, 2] = 7
    c.add_step(1, [_batch(s)], [_batch(t)])
    (out,) = c.results()
    assert out.samples_compared == 4 and out.samples_equal == 3
    assert out.elements_differing == 1 and out.max_abs_error == 6
    f = out.first_failure
    assert (f.iteration, f.sample, f.reason) == (1, 1, "values")
    assert f.excerpt == [{"index": [1, 2], "original": 1, "migrated": 7}]


@pytest.mark.parametrize(
    "migrated, reason",
    [
        (_batch([np.zeros((2,), np.int32)]), "batch size"),
        (_batch([np.zeros((2,), np.float32)] * 2, dtype="FLOAT"), "dtype"),
        (_batch([np.zeros((2,), np.int32)] * 2, layout="HW"), "layout"),
        (_batch([np.zeros((3,), np.int32)] * 2), "shape"),
    ],
)
def test_comparator_structure_failures(migrated, reason):
    from ndd_migrate.verify.compare import Comparator

    c = Comparator()
    c.add_step(0, [_batch([np.zeros((2,), np.int32)] * 2)], [migrated])
    assert c.results()[0].first_failure.reason == reason


def test_comparator_missing_output_and_per_output_tolerance():
    from ndd_migrate.verify.compare import Comparator, Tolerance

    c = Comparator({1: Tolerance(atol=0.5)})
    o = [_batch([np.zeros(2, np.float32)], "FLOAT"), _batch([np.zeros(2, np.float32)], "FLOAT")]
    m = [o[0], _batch([np.full(2, 0.25, np.float32)], "FLOAT")]
    c.add_step(0, o, m)
    a, b = c.results()
    assert a.exact and b.ok and not b.exact and b.samples_within_tolerance == 1
    c.add_step(1, o, m[:1])
    assert c.results()[1].first_failure.reason == "missing output"
    assert "returns 2 output(s), the migrated code yields 1" in c.structure_findings[0]


# --------------------------------------------------------------------------------------------
# Report


def test_report_exit_codes_json_and_text():
    from ndd_migrate.verify.compare import OutputComparison

    eq = PairReport("a", "o.py:a", "m.py:a", verdict="equal", device="CPU-lowered")
    eq.outputs = [OutputComparison(0, dtype=("FLOAT", "FLOAT"), samples_compared=4, samples_equal=4)]
    diff = PairReport("b", "o.py:b", "m.py:b", verdict="different")
    diff.findings = [Finding("error", "step 0: random calls in a different order")]
    err = PairReport("c", "o.py:c", "m.py:c")
    err.error = ErrorInfo("exception", "ValueError: x", side="original", location="o.py:3")
    assert VerifyReport([eq]).exit_code == 0
    assert VerifyReport([eq, diff]).exit_code == 1
    assert VerifyReport([eq, diff, err]).exit_code == 2
    rep = VerifyReport([eq, diff, err])
    data = json.loads(rep.to_json())
    assert data["version"] == 1 and data["exit_code"] == 2 and data["verdict"] == "error"
    assert data["pairs"][0]["outputs"][0]["dtype"] == {"original": "FLOAT", "migrated": "FLOAT"}
    assert data["pairs"][2]["error"]["location"] == "o.py:3"
    text = rep.to_text()
    assert "EQUAL a" in text and "CPU-lowered" in text
    assert "DIFFERENT b" in text and "different order" in text
    assert "original side: ValueError: x at o.py:3" in text


# --------------------------------------------------------------------------------------------
# git base

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(repo, *args):
    subprocess.run(
        ["git", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        env={
            **os.environ,
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
        },
    )


@needs_git
def test_git_show_reads_revision(tmp_path):
    from ndd_migrate.verify.gitbase import git_show

    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    _git(repo, "init", "-q")
    f = repo / "sub" / "pipe.py"
    f.write_text("VERSION = 1\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "one")
    f.write_text("VERSION = 2\n")
    assert git_show(str(f), "HEAD") == "VERSION = 1\n"
    with pytest.raises(SetupError) as e:
        git_show(str(f), "no-such-rev")
    assert e.value.kind == "git"
    new = repo / "sub" / "new.py"
    new.write_text("x = 1\n")
    with pytest.raises(SetupError):
        git_show(str(new), "HEAD")  # did not exist at HEAD


# --- arguments for what the migrated function requires (callargs) ------------------------------

CALLARGS_ORIGINAL = """\
class Legacy(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, root, crop=64):
        super().__init__(batch_size, num_threads, device_id)

@pipeline_def(seed=3)
def train(root, crop, shard_id):
    return fn.readers.file(file_root=root, shard_id=shard_id)

pipe = Legacy(args.batch, 4, 0, args.root)
pipe = train(args.root, 32, shard_id=args.rank, num_threads=2)
"""

CALLARGS_MIGRATED = """\
def Legacy(batch_size, num_threads, device_id, root, crop=64):
    yield

def train(root, crop, shard_id, *, batch_size, num_threads, device_id, seed=3, other):
    reader = ndd.readers.File(file_root=root, shard_id=shard_id)
    yield
"""


def test_required_parameters_get_call_site_literals_then_defaults():
    from ndd_migrate.verify.callargs import DEFAULT_BATCH_SIZE, infer

    legacy = infer(
        CALLARGS_ORIGINAL,
        CALLARGS_ORIGINAL,
        "Legacy",
        CALLARGS_MIGRATED,
        "Legacy",
        positional=0,
        given={"root", "device_id"},
        seed=9,
    )
    assert legacy.values == {"batch_size": DEFAULT_BATCH_SIZE, "num_threads": 4}  # 4 by position
    assert legacy.notes[1] == "num_threads=4 from the original's call site (line 9)"
    train = infer(
        CALLARGS_ORIGINAL,
        CALLARGS_ORIGINAL,
        "train",
        CALLARGS_MIGRATED,
        "train",
        positional=1,
        given={"device_id"},
        seed=9,
    )
    # crop by position at the call site, num_threads by keyword; seed has a default (not required)
    assert train.values == {"crop": 32, "batch_size": DEFAULT_BATCH_SIZE, "num_threads": 2}
    # args.rank: no literal, and the reader's schema default is no value the program gives
    assert train.missing == ("shard_id", "other")
    everything = infer(
        CALLARGS_ORIGINAL,
        CALLARGS_ORIGINAL,
        "train",
        CALLARGS_MIGRATED,
        "train",
        positional=3,
        given={"batch_size", "num_threads", "device_id", "other"},
        seed=9,
    )
    assert everything.values == {} and everything.missing == ()


def test_batches_of_accepts_the_framework_iterator_shape():
    from ndd_migrate.verify.migrated_side import batches_of

    gen = iter([1])
    assert batches_of(gen) == (gen, None)
    assert batches_of(({"epoch_size": 3}, gen)) == (gen, {"epoch_size": 3})
    assert batches_of((gen, gen)) == (None, None) and batches_of([1]) == (None, None)


def test_end_findings_name_the_side_and_the_step():
    from ndd_migrate.verify.ending import end_fact, end_findings

    assert end_findings(None, None) == [] and end_findings(3, 3) == []
    assert end_fact(3, 3) == "both sides ended at step 3 (StopIteration)"
    assert end_fact(None, None) is None and end_fact(2, 3) is None
    ((sev, early),) = end_findings(None, 2)
    assert sev == "error" and early.startswith("the migrated generator ended at step 2")
    assert "the migration ends early" in early
    ((_, late),) = end_findings(3, None)
    assert late.startswith("the original ended at step 3") and "the migrated generator yielded" in late
    ((_, both),) = end_findings(2, 4)
    assert "the original ended at step 2 and the migrated generator at step 4" in both


def test_args_given_as_a_mapping_are_keyword_arguments():
    """`verify_files(args={"data_dir": ...})` passed the key, "data_dir", as the first argument;
    a mapping gives keywords, as `--args '{"data_dir": ...}'` does."""
    from ndd_migrate.verify.api import make_settings

    settings = make_settings(args={"data_dir": "/data"}, kwargs={"crop": 3})
    assert settings.args == () and settings.kwargs == {"data_dir": "/data", "crop": 3}
    with pytest.raises(ValueError, match=r"data_dir given both in args and in kwargs"):
        make_settings(args={"data_dir": "/data"}, kwargs={"data_dir": "/other"})
    assert make_settings(args=["/data"]).args == ("/data",)


def test_render_prints_and_returns_the_report_as_text():
    """`assert report.ok, report.render()` showed `None`."""
    import io

    from rich.console import Console

    from ndd_migrate.verify.report import VerifyReport

    report = VerifyReport()
    printed = io.StringIO()
    text = report.render(Console(file=printed, width=110, color_system=None))
    assert isinstance(text, str) and text == report.to_text()


def test_progress_is_told_each_phase_only_while_someone_listens(monkeypatch):
    """A run of 10–20 s said nothing until its report; now the parent tells the phases it reads
    from the workers' status files to whoever listens (the command line's spinner on a terminal)."""
    from ndd_migrate.verify import progress

    heard = []
    progress.tell("original", "train_pipe", "build")  # nobody listens: nothing happens
    with progress.reporting(lambda *told: heard.append(told)):
        assert progress.wanted()
        progress.tell("migrated", "train_pipe", "step 3")
    assert not progress.wanted()
    assert heard == [("migrated", "train_pipe", "step 3")]


def test_the_command_shows_progress_on_a_terminal_only():
    import io

    from rich.console import Console

    from ndd_migrate.verify import progress
    from ndd_migrate.verify.command import _progress_shown

    with _progress_shown(Console(file=io.StringIO())):  # a pipe
        assert not progress.wanted()
    terminal = Console(file=io.StringIO(), force_terminal=True)
    with _progress_shown(terminal):
        assert progress.wanted()
        progress.tell("migrated", "train_pipe", "step 3")
    assert not progress.wanted()
