"""Running over many files: files without DALI cost no libcst, each file is read once, results keep
the order of the files, and worker processes are used only when they pay off."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ndd_migrate.app import pool, runner
from ndd_migrate.engine.catalog import all_rules, rule_codes
from ndd_migrate.engine.transform import transform
from ndd_migrate.io.policy import Policy
from tests.conftest import SMALL_PIPELINE

PIPELINE = SMALL_PIPELINE
PLAIN = "import os\n\n\ndef cwd():\n    return os.getcwd()\n"

# Runs the CLI in a fresh interpreter and prints which heavy modules it imported.
_LOADED = """
import json, sys
from ndd_migrate.cli import main
sys.argv = ["ndd-migrate", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
# importlib.metadata: asked for libcst's version it cost a warm check more than its files (app.cache)
heavy = ("libcst", "rich", "ndd_migrate.engine.transform", "ndd_migrate.engine.context", "ndd_migrate.rules.ndd",
         "importlib.metadata")
print(json.dumps(sorted({m for m in sys.modules for h in heavy if m == h or m.startswith(h)})))
"""


def loaded_modules(*args) -> list[str]:
    done = subprocess.run([sys.executable, "-c", _LOADED, *map(str, args)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_check_over_files_without_dali_never_imports_libcst_or_the_rules(tmp_path):
    for i in range(3):
        (tmp_path / f"m{i}.py").write_text(PLAIN)
    assert loaded_modules("check", "--select", "NDD1", tmp_path) == []


def test_migrate_over_files_without_dali_never_imports_libcst(tmp_path):
    (tmp_path / "m.py").write_text(PLAIN)
    assert not [m for m in loaded_modules("migrate", "--check", tmp_path) if "rich" not in m]


def test_a_file_with_dali_does_load_the_engine(tmp_path):
    # The control for the two tests above: the probe does see libcst when it is needed.
    (tmp_path / "m.py").write_text(PLAIN)
    (tmp_path / "p.py").write_text(PIPELINE)
    modules = loaded_modules("check", tmp_path)
    assert "libcst" in modules and "ndd_migrate.engine.transform" in modules


def test_each_file_is_read_once_and_its_bytes_handed_to_the_engine(tmp_path, monkeypatch):
    # The files exist only behind the reader (files.read_bytes): a second read would show.
    contents = {str(tmp_path / "p.py"): PIPELINE.encode(), str(tmp_path / "m.py"): PLAIN.encode()}
    opened = []

    def fake_read(path):
        opened.append(path)
        return contents[path]

    monkeypatch.setattr(runner.files, "read_bytes", fake_read)
    summary = runner.run(list(contents), Policy.check(), jobs=1)
    assert sorted(opened) == sorted(contents)
    processed, skipped = summary.results
    assert processed.error is None and {d.code for d in processed.diagnostics} >= {"NDD001"}
    assert skipped.skipped and not skipped.diagnostics


def test_results_keep_the_order_of_the_files_with_unreadable_ones_as_errors(tmp_path):
    a, b, missing, c = (tmp_path / name for name in ("a.py", "b.py", "gone.py", "c.py"))
    a.write_text(PIPELINE)
    b.write_text(PLAIN)
    c.write_text(PIPELINE)
    results = runner.run([a, b, missing, c], Policy.check(), jobs=1).results
    assert [r.path for r in results] == [str(a), str(b), str(missing), str(c)]
    assert [r.skipped for r in results] == [False, True, False, False]
    assert results[2].error is not None and "cannot read" in results[2].error.message
    assert results[0].diagnostics and results[3].diagnostics


@pytest.mark.parametrize(
    ("count", "jobs", "forked", "expected"),
    [
        (1, 2, True, 1),
        (3, 2, True, 1),  # one file each does not pay for a second process
        (4, 2, True, 2),
        (100, 8, True, 8),
        (10, 8, False, 1),  # a spawned worker re-imports libcst: it needs more files
        (16, 8, False, 2),
    ],
)
def test_worker_processes_only_when_enough_files_pay_for_them(count, jobs, forked, expected):
    assert pool.worker_count(count, jobs, forked=forked) == expected


def test_rule_codes_come_from_module_names_and_match_the_catalogue():
    assert rule_codes() == tuple(rule.code for rule in all_rules())


def test_check_without_fix_reports_the_same_findings_as_check_with_fix():
    # `check` alone skips generating the rewrite it would throw away; the findings are the same.
    plain = transform(PIPELINE, "p.py", Policy.check())
    fixing = transform(PIPELINE, "p.py", Policy.check(fix=True, unsafe_fixes=True))
    assert plain.new_source is None and not plain.changed and fixing.changed
    assert [(d.code, d.line, d.column) for d in plain.diagnostics] == [
        (d.code, d.line, d.column) for d in fixing.diagnostics
    ]
    assert not any(d.fixed for d in plain.diagnostics)


def test_bytes_kept_for_the_cross_file_pass_within_a_budget(tmp_path, monkeypatch):
    from ndd_migrate.app import runner

    small, big = tmp_path / "small.py", tmp_path / "big.py"
    small.write_bytes(b"x = 1\n")
    big.write_bytes(b"y = 2\n" * 10)
    monkeypatch.setattr(runner._KeptBytes, "BUDGET", 20)
    kept = runner._KeptBytes()
    kept.add(str(small), small.read_bytes())
    kept.add(str(big), big.read_bytes())  # over the budget: not kept
    small.write_bytes(b"changed\n")
    big.write_bytes(b"changed too\n")
    assert kept.read(str(small)) == b"x = 1\n"  # from memory
    assert kept.read(str(big)) == b"changed too\n"  # read again
    assert kept.read(str(tmp_path / "gone.py")) is None


def test_worker_processes_return_results_in_the_order_given():
    # The pool takes the largest files first; results must still line up with the input.
    body = "import nvidia.dali.fn as fn\n\n\ndef f{n}(x):\n    return fn.cast(x)\n"
    sources = [(f"m{n}.py", (body.format(n=n) + "# pad\n" * (n * 7 % 5)).encode()) for n in range(8)]
    results = pool.process_sources(sources, Policy.check(), jobs=2)
    assert [r.path for r in results] == [path for path, _ in sources]
    assert all(any(d.code == "NDD101" for d in r.diagnostics) for r in results)


def test_a_noqa_naming_our_codes_loads_the_engine_only_with_ndd801_selected(tmp_path):
    """NDD801 (opt-in) must judge `# noqa: NDD201` in a file without DALI; off, that file costs
    its bytes only, as every file without DALI does."""
    (tmp_path / "m.py").write_text(PLAIN + "x = 1  # noqa: NDD201\n")
    assert loaded_modules("check", tmp_path) == []
    assert "libcst" in loaded_modules("check", "--extend-select", "NDD801", tmp_path)
