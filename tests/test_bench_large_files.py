"""The cost-per-size benchmark's summary: the growth exponent it fits to every size's time."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("bench_large_files", ROOT / "benchmarks" / "bench_large_files.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

SIZES = {50: Path("a"), 100: Path("b"), 200: Path("c"), 500: Path("d"), 1000: Path("e"), 2000: Path("f")}


def _results(seconds: dict[int, float]) -> dict:
    return {("this", command, size): [(t, t, 100.0)] for size, t in seconds.items() for command in bench.COMMANDS}


def test_linear_cost_is_a_doubling_for_a_doubling():
    """Fitted from 200 KB on: the small sizes' fixed costs would pull the exponent under 1."""
    text = bench.growth(_results({s: 0.05 * s for s in SIZES}), SIZES, {"this": ROOT}, 300)
    assert "`check`: CPU time ~ size^1.000 over 200–2,000 KB (4 sizes): a doubling costs 2.00x" in text
    assert "`migrate --diff`: CPU time ~ size^1.000" in text


def test_quadratic_cost_shows_as_four_times_per_doubling():
    text = bench.growth(_results({s: 1e-4 * s * s for s in SIZES}), SIZES, {"this": ROOT}, 300)
    assert "size^2.000" in text and "a doubling costs 4.00x" in text


def test_a_size_past_the_time_limit_is_left_out_of_the_fit():
    results = _results({s: 0.05 * s for s in SIZES})
    results[("this", "check", 2000)] = [(None, 80.0, 100.0)]  # killed at the limit: no time to fit
    results[("this", "migrate --diff", 1000)] = results[("this", "migrate --diff", 2000)] = [(None, 80.0, 100.0)]
    text = bench.growth(results, SIZES, {"this": ROOT}, 300)
    assert "`check`: CPU time ~ size^1.000 over 200–1,000 KB (3 sizes)" in text
    assert "`migrate --diff`" not in text  # two sizes left: too few to fit


def test_the_small_sizes_do_not_count():
    seconds = {s: 0.05 * s for s in SIZES}
    seconds[50] = seconds[100] = 9.0  # start-up dominates: as slow as 200 KB
    text = bench.growth(_results(seconds), SIZES, {"this": ROOT}, 300)
    assert "size^1.000" in text and "a doubling costs 2.00x" in text


def test_the_docs_keep_the_sections_subsections(tmp_path):
    docs = tmp_path / "benchmarks.md"
    docs.write_text(
        f"# B\n\n## Other\n\nkept\n\n{bench.SECTION}\n\nold run\n\n### Earlier\n\nhistory\n\n## Next\n\nkept too\n",
        encoding="utf-8",
    )
    bench.write_section(docs, f"{bench.SECTION}\n\nnew run\n", bench.SECTION)
    assert docs.read_text(encoding="utf-8") == (
        f"# B\n\n## Other\n\nkept\n\n{bench.SECTION}\n\nnew run\n\n### Earlier\n\nhistory\n\n## Next\n\nkept too\n"
    )
    docs.write_text(f"# B\n\n{bench.SECTION}\n\nold run\n\n## Next\n\nkept\n", encoding="utf-8")
    bench.write_section(docs, f"{bench.SECTION}\n\nnew run\n", bench.SECTION)
    assert docs.read_text(encoding="utf-8") == f"# B\n\n{bench.SECTION}\n\nnew run\n\n## Next\n\nkept\n"
