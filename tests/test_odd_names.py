"""A file name that is not UTF-8 (Linux allows any bytes): every report format and the diff name
it without ending the run, even on a strict UTF-8 stream."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT, SMALL_PIPELINE

NAME = b"bad\xff\xfename.py"
SHOWN = "bad\\xff\\xfename.py"


@pytest.fixture
def tree(tmp_path):
    try:
        (tmp_path / os.fsdecode(NAME)).write_text(SMALL_PIPELINE)
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system refuses names that are not UTF-8")
    return tmp_path


def _cli(cwd, *args):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8:strict"}
    command = [sys.executable, "-c", "from ndd_migrate.cli import main; main()", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, timeout=120, env=env, check=False)


@pytest.mark.parametrize("fmt", ["concise", "full", "github", "json", "sarif"])
def test_every_check_format_names_the_file_with_its_bytes_escaped(tree, fmt):
    result = _cli(tree, "check", "--output-format", fmt, ".")
    assert result.returncode == 1, result.stderr.decode(errors="replace")[-800:]
    out = result.stdout.decode("utf-8")  # valid UTF-8, whatever the name
    if fmt == "json":
        assert {item["filename"] for item in json.loads(out)} == {SHOWN}
    elif fmt == "sarif":
        results = json.loads(out)["runs"][0]["results"]
        assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results} == {
            "bad%FF%FEname.py"
        }
    else:
        assert f"{SHOWN}:1:1: NDD301" in out


def test_migrate_diff_heads_with_the_names_own_bytes_and_migrate_writes_it(tree):
    result = _cli(tree, "migrate", "--diff", ".")
    assert result.returncode == 1, result.stderr.decode(errors="replace")[-800:]  # there is a diff
    assert b"\n--- a/" + NAME + b"\n+++ b/" + NAME + b"\n" in result.stdout  # after the support module's
    result = _cli(tree, "migrate", ".")
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-800:]
    assert "ndd.readers.Numpy" in (tree / os.fsdecode(NAME)).read_text()


def test_an_error_in_such_a_file_is_reported_with_its_name(tree):
    (tree / os.fsdecode(NAME)).write_text(SMALL_PIPELINE + "nonlocal q\n")
    result = _cli(tree, "migrate", ".")
    assert result.returncode == 2
    assert f"{SHOWN}:8: error: cannot parse" in (result.stdout + result.stderr).decode("utf-8")
