"""The benchmarks that record their results in ``docs/benchmarks.md`` replace their latest report
and keep the earlier measurements (the ``###`` subsections) and every other section: a run of
``bench_check_speed.py`` wrote over 200 lines of the lint-speed record."""

from __future__ import annotations

import importlib.util
import re

import pytest

from tests.conftest import ROOT


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["bench_check_speed", "bench_check_cache", "bench_large_files"])
def test_a_new_report_keeps_the_record(tmp_path, name):
    bench = _load(name)
    original = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    docs = tmp_path / "benchmarks.md"
    docs.write_text(original, encoding="utf-8")
    bench.write_section(docs, f"{bench.SECTION}\n\nthe new run\n", bench.SECTION)
    written = docs.read_text(encoding="utf-8")
    assert re.findall(r"^#{2,3} .*$", written, re.M) == re.findall(r"^#{2,3} .*$", original, re.M) or (
        bench.SECTION not in original
    )
    assert f"{bench.SECTION}\n\nthe new run\n" in written
    # everything outside the section's latest report is as it was
    head, _, tail = original.partition(bench.SECTION)
    assert written.startswith(head)
    kept = tail[min(i for i in (tail.find("\n## "), tail.find("\n### "), len(tail)) if i >= 0) :]
    assert written.endswith(kept)
