"""``check``'s results cache (ndd_migrate/app/cache.py) through the real console script: a second run
reads the results it stored, any change to the file or the tool's options is a new entry, another
selection is read from the same entry (every rule's findings), ``--no-cache`` and ``--fix`` never
read it, and the directory can be chosen."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT
from tests.test_cli_contract import LEFTOVER, ndd, out, write

CACHE = ".ndd_migrate_cache"


def entries(directory):
    """The stored results (not the tag files, nor the index of stamps: ndd_migrate/app/stamps.py)."""
    return sorted(p for p in directory.rglob("*") if p.is_file() and p.parent.name not in (directory.name, "files"))


def poison(directory, message="from the cache"):
    """Change the message of every stored finding: a run that shows it read the cache."""
    for entry in entries(directory):
        data = json.loads(entry.read_text())
        for diagnostic in data["diagnostics"] + (data.get("findings") or {"diagnostics": []})["diagnostics"]:
            diagnostic["message"] = message
        entry.write_text(json.dumps(data))


def messages(done):
    return [f["message"] for f in json.loads(out(done))]


def check(tmp_path, *options):
    return ndd("check", "--output-format", "json", *options, ".", cwd=tmp_path)


def test_a_second_run_reads_the_cache_and_gives_the_same_report(tmp_path):
    write(tmp_path / "a.py", LEFTOVER)
    first = check(tmp_path)
    assert (tmp_path / CACHE / "CACHEDIR.TAG").is_file() and entries(tmp_path / CACHE)
    second = check(tmp_path)
    assert out(second) == out(first) and second.returncode == first.returncode == 1
    poison(tmp_path / CACHE)
    assert messages(check(tmp_path)) == ["from the cache"]
    assert messages(check(tmp_path, "--no-cache")) != ["from the cache"]


def test_the_full_format_shows_the_source_of_a_cached_result(tmp_path):
    write(tmp_path / "a.py", LEFTOVER)
    first = ndd("check", "--output-format", "full", ".", cwd=tmp_path)
    assert out(ndd("check", "--output-format", "full", ".", cwd=tmp_path)) == out(first)
    assert "device='mixed'" in out(first)


def test_a_changed_file_is_not_read_from_the_cache(tmp_path):
    path = write(tmp_path / "a.py", LEFTOVER)
    check(tmp_path)
    poison(tmp_path / CACHE)
    path.write_text(LEFTOVER + "\n")
    assert messages(check(tmp_path)) != ["from the cache"]


FIXTURES = ("image_classification", "legacy_classification", "train_val", "coco_detection")
SELECTIONS = ((), ("--select", "NDD1"), ("--ignore", "NDD001"), ("--select", "NDD0,NDD4"), ("--ignore", "NDD1"))


def test_another_selection_is_read_from_the_entries_of_every_rule(tmp_path):
    """An entry holds every rule's findings: a run with another --select/--ignore prints what a run
    without the cache prints, and once the passes a selection needs (whether a finding is fixable
    can depend on it) are stored, every selection seen is answered without checking a file again
    (the poisoned messages show each finding came from the cache)."""
    for name in FIXTURES:
        write(tmp_path / f"{name}.py", (ROOT / "fixtures" / name / "pipeline.py").read_text())
    expected = {options: out(check(tmp_path, "--no-cache", *options)) for options in SELECTIONS}
    for options in SELECTIONS:
        assert out(check(tmp_path, *options)) == expected[options], options
    poison(tmp_path / CACHE)
    for options in SELECTIONS:
        found = messages(check(tmp_path, *options))
        assert found and set(found) == {"from the cache"}, options


def test_a_narrower_selection_right_after_the_first_run_checks_no_file_again(tmp_path):
    """The first run, every rule selected, stores what ``--ignore`` of a rule that changes no fix
    here needs: the findings are read, filtered, from the cache."""
    write(tmp_path / "a.py", LEFTOVER)
    expected = json.loads(out(check(tmp_path, "--no-cache", "--ignore", "NDD9")))
    check(tmp_path)
    poison(tmp_path / CACHE)
    assert expected and json.loads(out(check(tmp_path, "--ignore", "NDD9"))) == [
        dict(finding, message="from the cache") for finding in expected
    ]


def test_fix_never_reads_the_cache(tmp_path):
    path = write(tmp_path / "a.py", LEFTOVER)
    check(tmp_path)
    poison(tmp_path / CACHE)
    done = check(tmp_path, "--fix")
    assert "device='gpu'" in path.read_text() and messages(done) != ["from the cache"]


def test_the_cache_directory_is_an_option_and_a_configuration_key(tmp_path):
    write(tmp_path / "a.py", LEFTOVER)
    check(tmp_path, "--cache-dir", "elsewhere")
    assert entries(tmp_path / "elsewhere") and not (tmp_path / CACHE).exists()
    write(tmp_path / "pyproject.toml", '[tool.ndd-migrate]\ncache-dir = "build/ndd"\n')
    check(tmp_path)
    assert entries(tmp_path / "build" / "ndd")
    check(tmp_path, "--no-cache", "--cache-dir", "never")
    assert not (tmp_path / "never").exists()


def test_concurrent_runs_share_the_cache_safely(tmp_path):
    for i in range(6):
        write(tmp_path / f"m{i}.py", LEFTOVER.replace("decode", f"decode{i}"))
    expected = out(check(tmp_path, "--no-cache"))
    script = "from ndd_migrate.cli import main; main()"
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", script, "check", "--output-format", "json", "-j", "1", "."],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            env={"PYTHONPATH": str(ROOT), "PATH": ""},
        )
        for _ in range(3)
    ]
    assert all(run.communicate(timeout=120)[0].decode() == expected for run in runs)
    assert out(check(tmp_path)) == expected
    assert not [p for p in (tmp_path / CACHE).rglob("*.tmp")]


def test_an_edited_module_anywhere_in_the_package_is_another_tool():
    """The fingerprint covers every source file of the package, not only the cache's own folder:
    an edited rule or model module must not be answered from results of the tool before the edit."""
    import os

    from ndd_migrate.app import cache

    before = cache._tool_fingerprint()
    for relative in ("rules/ndd002_build_call.py", "model/analysis.py", "syntax/names.py"):
        path = ROOT / "ndd_migrate" / relative
        status = path.stat()
        try:
            os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns + 1_000_000_000))
            assert cache._tool_fingerprint() != before, relative
        finally:
            os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
    assert cache._tool_fingerprint() == before


def test_the_tool_is_another_with_another_libcst_version():
    """libcst's version is read from its package, not asked of importlib.metadata (app.cache):
    what is read holds the version the installed distribution has."""
    from importlib.metadata import version

    from ndd_migrate.app import cache

    assert version("libcst") in cache._libcst_version()


def test_without_a_configuration_the_cache_goes_to_the_project_root(tmp_path):
    """Run from a sub-folder of a project with no `[tool.ndd-migrate]` table, the cache landed in
    that sub-folder (one cache per folder a command was started in)."""
    (tmp_path / ".git").mkdir()
    sub = tmp_path / "src" / "pkg"
    write(sub / "a.py", LEFTOVER)
    ndd("check", ".", cwd=sub)
    assert (tmp_path / CACHE / "CACHEDIR.TAG").is_file() and not (sub / CACHE).exists()


def test_clean_removes_our_caches_and_nothing_else(cli, tmp_path, monkeypatch):
    """`ndd-migrate clean` (ruff's `clean`): every `.ndd_migrate_cache` below the folder whose
    `CACHEDIR.TAG` is ours, and the configured `cache-dir`; a folder of that name without our tag
    is left alone."""
    (tmp_path / "pyproject.toml").write_text('[tool.ndd-migrate]\ncache-dir = "build/lint-cache"\n')
    (tmp_path / "a.py").write_text("from nvidia.dali import fn\n")
    monkeypatch.chdir(tmp_path)
    assert cli("check", "a.py").exit_code in (0, 1)
    configured = tmp_path / "build" / "lint-cache"
    assert (configured / "CACHEDIR.TAG").is_file()
    nested = tmp_path / "sub" / ".ndd_migrate_cache"
    nested.mkdir(parents=True)
    (nested / "CACHEDIR.TAG").write_text((configured / "CACHEDIR.TAG").read_text())
    stranger = tmp_path / "other" / ".ndd_migrate_cache"
    stranger.mkdir(parents=True)
    (stranger / "keep.txt").write_text("not a cache of ours")
    done = cli("clean")
    assert done.exit_code == 0 and not configured.exists() and not nested.exists()
    assert (stranger / "keep.txt").is_file() and done.stderr.count("Removing cache at:") == 2
